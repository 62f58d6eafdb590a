import { describe, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { SecretFilter } from "../../src/secrets/secret-filter.js";

describe("SecretFilter", () => {
  it("replaces a value wherever it occurs, raw and as escaped inside JSON text, keeping the JSON valid", () => {
    const secrets = new SecretFilter();
    const secret = 'pa"ss\\word';
    secrets.add([secret]);
    const json = JSON.stringify({ output: `value=${secret}; again ${secret}` });
    const redacted = secrets.redact(json);
    expect(JSON.parse(redacted)).toEqual({ output: "value=******; again ******" });
    expect(secrets.redact(`raw ${secret}`)).toBe("raw ******");
  });

  it("hides the longer of two overlapping values whole, ignores empty values, and leaves text alone without values", () => {
    const secrets = new SecretFilter();
    expect(secrets.redact("nothing to hide")).toBe("nothing to hide");
    secrets.add(["abc", "", "abcdef"]);
    expect(secrets.size).toBe(2);
    expect(secrets.redact("xabcdefx abc")).toBe("x******x ******");
  });

  it("keeps filtered values out of the lines a logger writes", () => {
    const lines: string[] = [];
    const logger = new Logger("info", (line) => lines.push(line), "json");
    const secrets = new SecretFilter();
    logger.redactWith((line) => secrets.redact(line));
    secrets.add(["tok-123456"]);
    logger.info("calling with tok-123456", { header: "Bearer tok-123456" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("tok-123456");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ message: "calling with ******", header: "Bearer ******" });
  });
});
