import { afterEach, describe, expect, it } from "vitest";
import { joinSession } from "../src/extension.js";

const saved = process.env.SESSION_ID;
afterEach(() => {
  if (saved === undefined) delete process.env.SESSION_ID;
  else process.env.SESSION_ID = saved;
});

describe("joinSession", () => {
  it("refuses to run outside an extension process (no SESSION_ID)", async () => {
    delete process.env.SESSION_ID;
    await expect(joinSession()).rejects.toThrow("joinSession() is intended for extensions running as child processes of the runtime");
  });
});
