import * as os from "node:os";
import { describe, expect, it } from "vitest";
import { homedir, tmpdir } from "../src/node-os.js";

describe("node-os", () => {
  it("answers what node:os answers, loading it on the first call", () => {
    expect(homedir()).toBe(os.homedir());
    expect(tmpdir()).toBe(os.tmpdir());
  });
});
