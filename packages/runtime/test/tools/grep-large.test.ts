import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grepTool } from "../../src/tools/builtin/grep.js";
import { Ripgrep } from "../../src/tools/builtin/search/ripgrep.js";
import { walkFiles } from "../../src/tools/builtin/search/walk.js";
import type { Tool } from "../../src/tools/types.js";
import { fakeContext, tempDir } from "./helpers.js";

let dir: ReturnType<typeof tempDir>;
/** Lines of the 20 MB file; the needle is on the second to last. */
let bigLines: number;

beforeAll(() => {
  dir = tempDir();
  const line = "the quick brown fox jumps over the lazy dog, again and again and again\n";
  bigLines = Math.ceil((20 * 1024 * 1024) / line.length);
  writeFileSync(join(dir.path, "big.log"), `${line.repeat(bigLines - 2)}a NEEDLE here\n${line}`);
  writeFileSync(join(dir.path, "small.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
  writeFileSync(join(dir.path, "other.txt"), "two\n");
  writeFileSync(join(dir.path, "blob.bin"), Buffer.from("NEEDLE\0\x01\x02\nNEEDLE again\n", "latin1"));
  mkdirSync(join(dir.path, "many"));
  writeFileSync(join(dir.path, "many", "x.txt"), "x\n".repeat(100_000));
});

afterAll(() => dir.remove());

function run(tool: Tool, args: Record<string, unknown>) {
  return tool.execute(args, fakeContext(dir.path).context);
}

describe("grep (node) on large files", () => {
  const grep = grepTool(new Ripgrep(null));

  it("finds a needle at the end of a 20 MB file, in every output mode", async () => {
    expect((await run(grep, { pattern: "NEEDLE", glob: "*.log" })).textForModel).toBe("./big.log");
    expect((await run(grep, { pattern: "NEEDLE", glob: "*.log", output_mode: "count" })).textForModel).toBe("./big.log:1");
    expect((await run(grep, { pattern: "NEEDLE", glob: "*.log", output_mode: "content", "-n": true, "-A": 1 })).textForModel).toBe(
      `./big.log:${bigLines - 1}:a NEEDLE here\n./big.log-${bigLines}-the quick brown fox jumps over the lazy dog, again and again and again`,
    );
    expect((await run(grep, { pattern: "here\\nthe quick", multiline: true, glob: "*.log", output_mode: "count" })).textForModel).toBe("./big.log:2");
  });

  it("names the files it could not search instead of a bare no-match", async () => {
    const small = grepTool(new Ripgrep(null), { maxMultilineBytes: 1024, maxLineChars: 1024 });
    expect((await run(small, { pattern: "NEEDLE.here", multiline: true, glob: "*.log" })).textForModel).toBe(
      "No matches found.\n[1 file was not searched: ./big.log (too large: larger than 1 KB, the limit of a multiline search)]",
    );
    writeFileSync(join(dir.path, "long-line.txt"), `${"y".repeat(600 * 1024)} NEEDLE`);
    try {
      expect((await run(small, { pattern: "NEEDLE|seven", glob: "*.txt" })).textForModel).toBe(
        "./small.txt\n[1 file was not searched: ./long-line.txt (too large: a line longer than 1024 characters)]",
      );
    } finally {
      rmSync(join(dir.path, "long-line.txt"));
    }
  });

  it("skips binary files on a walk, as ripgrep does, but searches a binary file named as the path", async () => {
    expect((await run(grep, { pattern: "NEEDLE again" })).textForModel).toBe("No matches found.");
    const blob = join(dir.path, "blob.bin");
    expect((await run(grep, { pattern: "NEEDLE", path: "blob.bin", output_mode: "content" })).textForModel).toBe(
      `${blob}: binary file matches (found "\\0" byte around offset 6)`,
    );
    expect((await run(grep, { pattern: "NEEDLE", path: "blob.bin", output_mode: "count" })).textForModel).toBe(`${blob}:2`);
  });

  it("prints context groups with -- within and between files", async () => {
    expect((await run(grep, { pattern: "^(two|six)$", glob: "*.txt", output_mode: "content", "-n": true, "-C": 1 })).textForModel).toBe(
      ["./other.txt:1:two", "--", "./small.txt-1-one", "./small.txt:2:two", "./small.txt-3-three", "--", "./small.txt-5-five", "./small.txt:6:six", "./small.txt-7-seven"].join("\n"),
    );
    expect((await run(grep, { pattern: "^(three|four)$", path: "small.txt", output_mode: "content", "-B": 2 })).textForModel).toBe(
      [`${dir.path}/small.txt-one`, `${dir.path}/small.txt-two`, `${dir.path}/small.txt:three`, `${dir.path}/small.txt:four`].join("\n"),
    );
  });

  it("counts the lines it did not keep when the output is long", async () => {
    const text = (await run(grep, { pattern: "^x$", path: "many", output_mode: "content" })).textForModel;
    const shown = text.split("\n").slice(0, -1);
    expect(shown.every((line) => line === `${dir.path}/many/x.txt:x`)).toBe(true);
    expect(text.split("\n").at(-1)).toBe(`[… ${100_000 - shown.length} more lines not shown. Narrow the search (path, glob, type) or use head_limit.]`);
    expect((await run(grep, { pattern: "^x$", path: "many", output_mode: "content", head_limit: 2 })).textForModel).toBe(
      `${dir.path}/many/x.txt:x\n${dir.path}/many/x.txt:x`,
    );
  });
});

describe("walking huge trees", () => {
  it("says where it stopped", async () => {
    const limits: number[] = [];
    const files: string[] = [];
    for await (const file of walkFiles(dir.path, { maxFiles: 2, onLimit: (limit) => limits.push(limit) })) files.push(file.relative);
    expect(files).toEqual(["big.log", "blob.bin"]);
    expect(limits).toEqual([2]);
    const all: string[] = [];
    for await (const file of walkFiles(dir.path, { maxFiles: 5, onLimit: (limit) => limits.push(limit) })) all.push(file.relative);
    expect(all).toEqual(["big.log", "blob.bin", "many/x.txt", "other.txt", "small.txt"]);
    expect(limits).toEqual([2]);
  });

});
