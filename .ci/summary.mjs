// Prints the closing line CI reads ("tests: N passed, N failed") from vitest's JSON report.
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(new URL("../test-results.json", import.meta.url), "utf8"));
// Suites that failed to load have no failed tests of their own; count them as failures too.
const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0) + (report.success === false && !report.numFailedTests ? 1 : 0);
console.log(`tests: ${report.numPassedTests} passed, ${failed} failed`);
process.exitCode = failed > 0 || report.numPassedTests === 0 ? 1 : 0;
