/**
 * `forEachLine` over real files: the text and byte range of every line, whatever the bytes are
 * (multi-byte characters, invalid UTF-8, a character split across the 1 MiB read boundary, a torn
 * last line). The lines are decoded a chunk at a time; each must read as the line decoded alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forEachLine, type ByteRange } from "../../src/store/event-lines.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-event-lines-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every complete line of `bytes` from `start`, decoded on its own, with its range (newline included). */
function expectedLines(bytes: Buffer, start = 0): Array<{ text: string; range: ByteRange }> {
  const lines: Array<{ text: string; range: ByteRange }> = [];
  let lineStart = start;
  for (let newline = bytes.indexOf(0x0a, start); newline !== -1; newline = bytes.indexOf(0x0a, lineStart)) {
    lines.push({ text: bytes.toString("utf8", lineStart, newline), range: [lineStart, newline + 1] });
    lineStart = newline + 1;
  }
  return lines;
}

async function scan(bytes: Buffer, start = 0) {
  const path = join(dir, "events.jsonl");
  writeFileSync(path, bytes);
  const lines: Array<{ text: string; range: ByteRange }> = [];
  const result = await forEachLine(path, start, (text, range) => {
    lines.push({ text, range });
  });
  return { lines, result };
}

describe("forEachLine", () => {
  it("hands out each line as decoded alone, with byte ranges, across multi-byte and invalid UTF-8", async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":"plain"}\n{"b":"é中😀 accents"}\n\n'),
      Buffer.from([0x7b, 0xe4, 0xb8, 0x0a]), // a character cut short by the newline
      Buffer.from([0xff, 0xfe, 0x41, 0x0a]), // bytes that are never UTF-8
      Buffer.from('{"c":"after"}\ntorn'),
    ]);
    const { lines, result } = await scan(bytes);
    expect(lines).toEqual(expectedLines(bytes));
    expect(lines.map((line) => line.text)).toContain('{"b":"é中😀 accents"}');
    expect(result).toEqual({ end: bytes.length - 4, bytesRead: bytes.length, tornBytes: 4 });
  });

  it("keeps a character that straddles the 1 MiB read boundary whole, and starts mid-file at an offset", async () => {
    const head = `${"x".repeat(1024 * 1024 - 3)}`; // the line's "é" starts 1 byte before the boundary
    const bytes = Buffer.from(`${head}é${"ü".repeat(50)}\n{"next":"ß"}\n${"€".repeat(400_000)}\nend\n`);
    const all = await scan(bytes);
    expect(all.lines).toEqual(expectedLines(bytes));
    expect(all.result).toEqual({ end: bytes.length, bytesRead: bytes.length, tornBytes: 0 });
    const second = expectedLines(bytes)[1]!.range[0];
    const fromOffset = await scan(bytes, second);
    expect(fromOffset.lines).toEqual(expectedLines(bytes, second));
  });

  it("reads a line longer than two reads, ASCII lines on both sides of it, and a torn ASCII tail", async () => {
    const long = `{"long":"${"a".repeat(3 * 1024 * 1024)}"}`;
    const bytes = Buffer.from(`${'{"n":1}\n'.repeat(50_000)}${long}\n${'{"n":2}\n'.repeat(1000)}{"torn":`);
    const { lines, result } = await scan(bytes);
    expect(lines).toEqual(expectedLines(bytes));
    expect(lines[50_000]!.text).toBe(long);
    expect(result).toEqual({ end: bytes.length - 8, bytesRead: bytes.length, tornBytes: 8 });
  });

  it("stops when the callback returns false, at the end of that line", async () => {
    const bytes = Buffer.from("one\ntwo\nthree\n");
    const path = join(dir, "events.jsonl");
    writeFileSync(path, bytes);
    const seen: string[] = [];
    const result = await forEachLine(path, 0, (text) => {
      seen.push(text);
      return text !== "two";
    });
    expect(seen).toEqual(["one", "two"]);
    expect(result).toEqual({ end: 8, bytesRead: bytes.length, tornBytes: 0 });
  });
});
