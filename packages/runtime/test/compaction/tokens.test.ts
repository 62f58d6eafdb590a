/**
 * The token estimate compaction uses between provider reports, against real tokenizers (o200k and
 * cl100k, via gpt-tokenizer, a dev dependency used only here) on a sample of what conversations
 * hold: prose, code, JSON, shell output, hex ids, Russian and Chinese.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { estimateTextTokens } from "../../src/compaction/tokens.js";

const repo = (path: string): string => readFileSync(fileURLToPath(new URL(`../../../../${path}`, import.meta.url)), "utf8");
const hexIds = Array.from({ length: 200 }, (_, index) => `${((BigInt(index) * 0x9e3779b97f4a7c15n) % (1n << 64n)).toString(16).padStart(16, "0")} ${(index * 7919).toString(36)}`).join("\n");
const shellOutput = Array.from({ length: 150 }, (_, index) => `-rwxr-xr-x  1 root root   ${(index * 7919) % 100000} Mar ${(index % 28) + 1}  2024 tool-${index}`).join("\n");

const samples: Record<string, string> = {
  prose: repo("README.md").slice(0, 20_000),
  code: repo("packages/runtime/src/store/event-log.ts"),
  json: JSON.stringify(JSON.parse(repo("package-lock.json"))).slice(0, 20_000),
  prettyJson: JSON.stringify(JSON.parse(repo("package-lock.json")), null, 2).slice(0, 20_000),
  shell: shellOutput,
  git: execFileSync("git", ["log", "--stat", "-n", "10"], { encoding: "utf8" }).slice(0, 20_000) || "commit abc\n file | 2 +-",
  hexIds,
  russian: "Второй пилот SDK находится в стадии технического предварительного просмотра. Функциональность может измениться. ".repeat(20),
  chinese: "这是一个测试。我们正在测量分词器的准确性，以及估算值与实际值之间的差距。".repeat(20),
  french: "Le développement était déjà très avancé à côté de la forêt. ".repeat(20),
  greek: "Ελληνικά κείμενα για δοκιμή του αναλυτή. ".repeat(20),
};
/** Cyrillic and Greek cost cl100k 2–2.5× what they cost o200k: the estimate lands between the two. */
const bounds: Record<string, [number, number]> = { russian: [0.85, 2.5], greek: [0.6, 2.5] };

describe("estimateTextTokens", () => {
  for (const [name, text] of Object.entries(samples)) {
    const [lower, upper] = bounds[name] ?? [0.85, 1.6];
    it(`stays within ${lower}–${upper} of o200k and cl100k on ${name}`, () => {
      const estimate = estimateTextTokens(text);
      for (const real of [o200k(text), cl100k(text)]) {
        expect(estimate / real, `${name}: estimate ${estimate}, real ${real}`).toBeGreaterThanOrEqual(lower);
        expect(estimate / real, `${name}: estimate ${estimate}, real ${real}`).toBeLessThanOrEqual(upper);
      }
    });
  }

  it("over the whole sample errs on the high side, within 25 %", () => {
    const text = Object.values(samples).join("\n\n");
    const ratio = estimateTextTokens(text) / o200k(text);
    expect(ratio).toBeGreaterThanOrEqual(1);
    expect(ratio).toBeLessThanOrEqual(1.25);
  });

  it("counts an empty text as no tokens", () => {
    expect(estimateTextTokens("")).toBe(0);
  });
});
