/**
 * The runtime raises V8's TurboFan tier-up budget at start-up (src/v8-tuning.ts). These tests run
 * a fresh Node process that calls `tuneV8` and then warms up a function, and read V8's own
 * optimization status of that function (`%GetOptimizationStatus`).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const tuningModule = fileURLToPath(new URL("../dist/v8-tuning.js", import.meta.url));

/** V8's status bits (src/runtime/runtime.h): queued for or under optimization, or optimized. */
const optimizedOrQueued = 16 | 64 | 256 | 512 | 1024;

/** Warms up a small function 3,000 times after `tuneV8(execArgv)`; returns V8's status bits. */
function statusAfterWarmUp(nodeFlags: string[]): number {
  const script = `
    const { tuneV8 } = await import(${JSON.stringify(tuningModule)});
    tuneV8(process.execArgv);
    function lukewarm(o) { let s = 0; for (const k in o) s += String(o[k]).length; return s; }
    for (let i = 0; i < 3000; i++) lukewarm({ a: i, b: "x", c: [1, 2] });
    process.stdout.write(String(%GetOptimizationStatus(lukewarm)));
  `;
  const run = spawnSync(process.execPath, ["--allow-natives-syntax", ...nodeFlags, "--input-type=module", "-e", script], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

describe("tuneV8", () => {
  it("keeps a lukewarm function out of TurboFan once the budget is raised at run time", () => {
    const status = statusAfterWarmUp([]);
    expect(status & 1).toBe(1);
    expect(status & optimizedOrQueued).toBe(0);
  });

  it("leaves a budget given on the command line alone", () => {
    const status = statusAfterWarmUp(["--interrupt-budget=1000"]);
    expect(status & optimizedOrQueued).not.toBe(0);
  });

  it("keeps hot WebAssembly in the baseline compiler (Liftoff) unless told otherwise", () => {
    const script = `
      const { tuneV8 } = await import(${JSON.stringify(tuningModule)});
      tuneV8(process.execArgv);
      // (func (param i32) (result i32) (loop (br_if 0 (local.tee 0 (i32.sub (local.get 0) (i32.const 1))))) (local.get 0))
      const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0,
        10, 18, 1, 16, 0, 3, 64, 32, 0, 65, 1, 107, 34, 0, 13, 0, 11, 32, 0, 11]);
      const { instance } = await WebAssembly.instantiate(bytes);
      for (let i = 0; i < 200; i++) instance.exports.f(100000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      process.stdout.write(String(%IsLiftoffFunction(instance.exports.f)));
    `;
    const liftoff = (nodeFlags: string[]) =>
      spawnSync(process.execPath, ["--allow-natives-syntax", ...nodeFlags, "--input-type=module", "-e", script], { encoding: "utf8" }).stdout;
    expect(liftoff([])).toBe("true");
    expect(liftoff(["--no-liftoff-only"])).toBe("false");
  });
});
