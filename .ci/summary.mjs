// Prints the closing line CI reads ("tests: N passed, N failed") from vitest's JSON report.
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(new URL("../test-results.json", import.meta.url), "utf8"));
const failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
console.log(`tests: ${report.numPassedTests} passed, ${failed} failed`);
process.exitCode = failed > 0 || report.numPassedTests === 0 ? 1 : 0;
