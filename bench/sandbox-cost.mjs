// The sandbox's cost per bash call: a one-off shell running `true`, started as the shell tools start
// it (through the lifeline watchdog), plain and inside bubblewrap with the sandbox's real arguments
// (packages/runtime/dist; run `npm run build` first). Prints the median and p90 of each and the
// difference, the cost the sandbox adds to every one-off bash call (goal: at most 5 ms).
//
//   node bench/sandbox-cost.mjs            # 60 shells each
//   BENCH_SHELLS=200 node bench/sandbox-cost.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../packages/runtime/dist/", import.meta.url);
const { resolveSandboxPolicy } = await import(new URL("sandbox/policy.js", dist));
const { bwrapArguments, probeBwrap } = await import(new URL("sandbox/bwrap.js", dist));
const { lifelineCommand } = await import(new URL("tools/builtin/shell/lifeline.js", dist));
const shells = Number(process.env.BENCH_SHELLS ?? 60);
const bwrap = process.env.TANDEM_BWRAP || "bwrap";

const problem = await probeBwrap(bwrap);
if (problem) {
  console.error(`the sandbox cannot start here: ${problem}`);
  process.exit(1);
}
const workdir = mkdtempSync(join(tmpdir(), "tandem-bench-sandbox-"));
const policy = resolveSandboxPolicy({ enabled: true }, undefined, workdir);

/** Milliseconds from spawn to exit of one shell that runs `true`. */
function once(command, args) {
  const launch = lifelineCommand(command, args);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, { cwd: workdir, detached: true, stdio: ["ignore", "ignore", "inherit", "pipe"] });
    child.on("error", reject);
    child.on("exit", (code) => {
      child.stdio[3]?.destroy();
      if (code !== 0) reject(new Error(`exit ${code}`));
      else resolve(performance.now() - started);
    });
  });
}

async function measure(label, command, args) {
  for (let warm = 0; warm < 5; warm++) await once(command, args);
  const times = [];
  for (let index = 0; index < shells; index++) times.push(await once(command, args));
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const p90 = times[Math.floor(times.length * 0.9)];
  console.log(`${label.padEnd(12)} median ${median.toFixed(2)} ms   p90 ${p90.toFixed(2)} ms   (${shells} shells)`);
  return median;
}

try {
  const shellArgs = ["--noprofile", "--norc", "-c", "true"];
  const plain = await measure("plain", "bash", shellArgs);
  const sandboxed = await measure("sandboxed", bwrap, [...bwrapArguments(policy, { cwd: workdir }), "--", "bash", ...shellArgs]);
  console.log(`sandbox cost per bash call: ${(sandboxed - plain).toFixed(2)} ms (goal: at most 5 ms)`);
} finally {
  rmSync(workdir, { recursive: true, force: true });
}
