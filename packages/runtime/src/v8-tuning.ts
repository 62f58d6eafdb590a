import { setFlagsFromString } from "node:v8";

/**
 * The optimizing compiler (TurboFan) tier-up budget the runtime runs with: about 30 times V8's
 * default (67,584 bytes of bytecode executed per function before it is considered for
 * optimization).
 *
 * The runtime's work comes in short bursts (one JSON-RPC message, one event, one SSE chunk) spread
 * over many functions. With V8's defaults, hundreds of lukewarm functions are queued for TurboFan
 * within the first turns; the background compiles compete with the client and the model server for
 * the machine's cores and the optimized code costs memory, without paying back. With the larger
 * budget only code that is really hot (a resume's pass over 100,000 events, a long search) is
 * optimized; the rest runs in Sparkplug's baseline code. The measurements (less CPU per turn and
 * per streamed chunk, lower peak memory) are in bench/README.md.
 */
export const interruptBudget = 2_000_000;

/**
 * Applies {@link interruptBudget} unless Node was started with its own `--interrupt-budget`,
 * and keeps WebAssembly in V8's baseline compiler (Liftoff) unless Node was started with a
 * Liftoff flag of its own. The runtime's WebAssembly is the bash parser of shell permission
 * requests (tree-sitter), whose grammar is a few huge functions: optimizing them with TurboFan
 * cost ~55 MB more RSS after 100 parses and made a typical parse slower on the 2-core dev
 * machine (1.2 ms against 0.5 ms, the compiles competing for the cores), for parses that take
 * well under a millisecond in Liftoff.
 * V8 reads the budget whenever it sets up a function's tier-up counter, so setting it at start-up,
 * before the runtime's code runs, covers all of it.
 *
 * @example
 * tuneV8(process.execArgv);
 */
export function tuneV8(execArgv: readonly string[]): void {
  if (!execArgv.some((arg) => arg.startsWith("--interrupt-budget"))) setFlagsFromString(`--interrupt-budget=${interruptBudget}`);
  if (!execArgv.some((arg) => arg.includes("liftoff"))) setFlagsFromString("--liftoff-only");
}
