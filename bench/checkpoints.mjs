// Measures git checkpoints (packages/runtime/dist/checkpoints) on a generated repository:
// node bench/checkpoints.mjs [files=1000] [rounds=10]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitCheckpoints } from "../packages/runtime/dist/checkpoints/git-checkpoints.js";

const fileCount = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 10);
const repo = mkdtempSync(join(tmpdir(), "tandem-bench-checkpoints-"));
const git = (...args) => execFileSync("git", args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" } });
git("init", "-q");
for (let index = 0; index < fileCount; index++) {
  const folder = join(repo, `dir${index % 50}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `file${index}.ts`), `export const value${index} = ${index};\n`.repeat(40));
}
git("add", "-A");
git("commit", "-q", "-m", "initial");

const sessionDir = mkdtempSync(join(tmpdir(), "tandem-bench-session-"));
const checkpoints = await GitCheckpoints.open(repo, "bench-session", join(sessionDir, "checkpoint.index"));
const timings = [];
for (let round = 0; round < rounds; round++) {
  // A turn's worth of change: two files edited, one created.
  writeFileSync(join(repo, "dir0", `file0.ts`), `// round ${round}\n`);
  writeFileSync(join(repo, "dir1", `new${round}.ts`), `// new ${round}\n`);
  const started = performance.now();
  await checkpoints.snapshot(`event-${round}`, "start");
  timings.push(performance.now() - started);
}
const first = checkpoints.all[0];
const started = performance.now();
const changes = await checkpoints.changesSince(first.commit);
const previewMs = performance.now() - started;
const restoreStarted = performance.now();
await checkpoints.restore(first.commit);
const restoreMs = performance.now() - restoreStarted;
const sorted = [...timings].sort((a, b) => a - b);
console.log(JSON.stringify({
  files: fileCount,
  firstSnapshotMs: Math.round(timings[0]),
  medianSnapshotMs: Math.round(sorted[Math.floor(sorted.length / 2)]),
  maxSnapshotMs: Math.round(sorted.at(-1)),
  previewMs: Math.round(previewMs),
  previewFiles: changes.length,
  restoreMs: Math.round(restoreMs),
}));
rmSync(repo, { recursive: true, force: true });
rmSync(sessionDir, { recursive: true, force: true });
