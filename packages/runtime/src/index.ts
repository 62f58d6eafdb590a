/**
 * @tandem/runtime — the Tandem agent runtime. Most users start it as the `tandem` binary; these
 * exports are for embedding it in-process.
 */
export { main } from "./cli.js";
export { parseArgs } from "./args.js";
export type { RuntimeArgs } from "./args.js";
export { Runtime } from "./runtime.js";
export type { RuntimeOptions } from "./runtime.js";
export { Logger, stderrSink } from "./log.js";
export { TandemError } from "./errors.js";
export { runtimeVersion } from "./version.js";
