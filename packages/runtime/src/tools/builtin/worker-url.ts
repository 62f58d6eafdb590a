/**
 * The URL of a worker thread's script `name` (e.g. `sql-worker.js`) for the module at `moduleUrl`:
 * next to it. In `bundle/` each worker is an entry of its own next to the runtime's chunks (see
 * `build.mjs`); in `dist/` it is the compiled file next to the module. Run from the TypeScript
 * sources (tests), it is the compiled one in `dist/` (`npm run build` makes it).
 *
 * @example
 * new Worker(workerScriptUrl("sql-worker.js", import.meta.url));
 */
export function workerScriptUrl(name: string, moduleUrl: string): URL {
  if (!moduleUrl.endsWith(".ts")) return new URL(`./${name}`, moduleUrl);
  const sources = moduleUrl.lastIndexOf("/src/");
  return new URL(`./${name}`, `${moduleUrl.slice(0, sources)}/dist/${moduleUrl.slice(sources + "/src/".length)}`);
}
