import { createRequire } from "node:module";

/**
 * `node:os`, loaded by the first call that needs it. An ES module import of `node:os` loads it (and
 * builds its module namespace) when the importing chunk links: with the runtime chunk, that is
 * ~2 M instructions of the first `session.create`, which uses neither function. `require` returns
 * Node's cached module on later calls.
 */
const nodeRequire = createRequire(import.meta.url);

function nodeOs(): typeof import("node:os") {
  return nodeRequire("node:os") as typeof import("node:os");
}

/**
 * The current user's home folder (`os.homedir()`).
 *
 * @example
 * const expanded = join(homedir(), ".tandem");
 */
export function homedir(): string {
  return nodeOs().homedir();
}

/**
 * The operating system's folder for temporary files (`os.tmpdir()`).
 *
 * @example
 * const folder = mkdtempSync(join(tmpdir(), "tandem-shell-"));
 */
export function tmpdir(): string {
  return nodeOs().tmpdir();
}
