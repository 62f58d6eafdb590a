import { expect, it } from "vitest";
import { parseWarmShells } from "../../src/sandbox/pool-setting.js";

it("TANDEM_SANDBOX_POOL takes a whole number from 0 to 8; unset or empty means the default", () => {
  expect(parseWarmShells(undefined)).toBeUndefined();
  expect(parseWarmShells("")).toBeUndefined();
  expect(parseWarmShells("0")).toBe(0);
  expect(parseWarmShells(" 2 ")).toBe(2);
  expect(parseWarmShells("8")).toBe(8);
});

it("anything else is refused with a message naming the setting", () => {
  for (const text of ["9", "-1", "1.5", "two", "1e1", "0x2", "2 3"]) {
    expect(() => parseWarmShells(text)).toThrow(`TANDEM_SANDBOX_POOL must be a whole number from 0 to 8 (got ${JSON.stringify(text)})`);
  }
});
