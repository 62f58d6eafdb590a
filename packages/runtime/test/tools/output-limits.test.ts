import { expect, it } from "vitest";
import type { ToolOutcome } from "../../src/tools/types.js";
import { PartialOutputStream } from "../../src/tools/builtin/shell/partial-output.js";
import { boundedToolText, MAX_DETAILED_OUTPUT_CHARS, truncateMiddle, withinToolOutputLimits } from "../../src/tools/output-limits.js";

it("coalesces streamed output, caps it and says how much was not streamed", async () => {
  const sent: string[] = [];
  const stream = new PartialOutputStream((text) => sent.push(text), { intervalMs: 20, chunkChars: 100, totalChars: 250 });
  stream.write("a");
  stream.write("b");
  expect(sent).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 40));
  expect(sent).toEqual(["ab"]);
  stream.write("c".repeat(120));
  expect(sent).toHaveLength(2);
  stream.write("d".repeat(500));
  expect(sent.join("").replace(/\n\[Output truncated[^\]]*\]\n/g, "")).toHaveLength(250);
  expect(sent.at(-1)).toContain("streaming stopped after 250 characters");
  stream.write("e".repeat(1000));
  stream.close();
  expect(sent.at(-1)).toBe("\n[Output truncated: 1372 more characters were not streamed.]\n");
  stream.write("late");
  expect(sent.at(-1)).toContain("1372");
});

it("cuts long text in the middle with a count of what was left out", () => {
  const text = Array.from({ length: 10_000 }, (_, index) => `line ${index}`).join("\n");
  const cut = truncateMiddle(text, 1000, "Look closer.");
  expect(cut.length).toBeLessThan(1200);
  expect(cut).toMatch(/^line 0\n/);
  expect(cut).toMatch(/line 9999$/);
  expect(cut).toMatch(/\[Output truncated: \d+ characters \(\d+ lines\) omitted from the middle\. Look closer\.\]/);

  const bounded = boundedToolText("z".repeat(MAX_DETAILED_OUTPUT_CHARS * 4), 30_000);
  expect(bounded.textForModel.length).toBeLessThan(30_300);
  expect(bounded.detailedContent?.length).toBeLessThan(MAX_DETAILED_OUTPUT_CHARS + 300);
  expect(boundedToolText("short", 30_000)).toEqual({ textForModel: "short" });
});

it("bounds any tool outcome's model text, detailed text and error message", () => {
  const small = { resultType: "success" as const, textForModel: "ok" };
  expect(withinToolOutputLimits(small)).toBe(small);
  const huge = "h".repeat(5_000_000);
  const outcome: ToolOutcome = { resultType: "failure", textForModel: huge, errorMessage: huge };
  const bounded = withinToolOutputLimits(outcome);
  expect(bounded.textForModel.length).toBeLessThan(1024 * 1024 + 300);
  expect(bounded.detailedContent?.length).toBeLessThan(MAX_DETAILED_OUTPUT_CHARS + 300);
  expect(bounded.errorMessage?.length).toBeLessThan(MAX_DETAILED_OUTPUT_CHARS + 300);
});
