import { expect, it } from "vitest";
import { SessionSandbox } from "../../src/sandbox/session-sandbox.js";

const environment = { bwrapPath: "bwrap", platform: "linux" as const };

it("tells its listeners when processes would start differently: a move, another policy, disabled, disposed; not when nothing changed", async () => {
  const sandbox = new SessionSandbox({ enabled: true, allowBypass: true, addCurrentWorkingDirectory: false }, "/work/a", environment);
  let changes = 0;
  sandbox.onChange(() => changes++);
  sandbox.reconfigure(undefined);
  sandbox.reconfigure({ enabled: true, allowBypass: true, addCurrentWorkingDirectory: false });
  expect(changes).toBe(0);
  // The policy does not name the folder, but the shells' working directory is another one.
  sandbox.reconfigure(undefined, "/work/b");
  expect(changes).toBe(1);
  sandbox.reconfigure({ enabled: true, allowBypass: true, userPolicy: { filesystem: { readwritePaths: ["/work/out"] } } });
  expect(changes).toBe(2);
  sandbox.disableForSession();
  expect(changes).toBe(3);
  await sandbox.dispose();
  expect(changes).toBe(4);
});

it("keeps the session's own config when it moves (a move is not a resume without a sandbox config)", async () => {
  const sandbox = new SessionSandbox({ enabled: true, userPolicy: { filesystem: { readwritePaths: ["out"] } } }, "/work/a", { ...environment, runtimeDefault: { enabled: false } });
  sandbox.reconfigure(undefined, "/work/b");
  expect(sandbox.sandboxing).toBe(true);
  expect(sandbox.warmShells).toBe(1);
  expect((await sandbox.status()).enabled).toBe(true);
  await sandbox.dispose();
});
