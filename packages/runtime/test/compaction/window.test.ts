import { describe, expect, it } from "vitest";
import type { ModelInfo } from "@tandem/protocol";
import { ModelWindows } from "../../src/compaction/model-windows.js";
import { ContextWindow, defaultWindowTokens } from "../../src/compaction/window.js";
import { Logger } from "../../src/log.js";

const quiet = new Logger("error", () => undefined);
const listed = (id: string, maxPromptTokens: number): ModelInfo => ({
  id,
  name: id,
  capabilities: { supports: { vision: false, reasoningEffort: false }, limits: { max_prompt_tokens: maxPromptTokens, max_context_window_tokens: maxPromptTokens + 16_000 } },
});

describe("the model window from the provider's model list", () => {
  it("is read once per provider and used once ready", async () => {
    let reads = 0;
    const windows = new ModelWindows(async () => {
      reads++;
      return [listed("claude-sonnet-4", 200_000)];
    }, () => undefined);
    const lookup = { known: () => undefined, fetch: (model: string) => windows.limit(undefined, model) };
    const first = new ContextWindow(undefined, lookup, quiet);
    expect(first.limit("claude-sonnet-4")).toBe(defaultWindowTokens);
    await first.ready("claude-sonnet-4");
    expect(first.limit("claude-sonnet-4")).toBe(200_000);
    const second = new ContextWindow(undefined, lookup, quiet);
    await second.ready("claude-sonnet-4");
    await second.ready("gpt-4.1");
    expect(second.limit("claude-sonnet-4")).toBe(200_000);
    expect(second.limit("gpt-4.1")).toBe(defaultWindowTokens);
    expect(reads).toBe(1);
  });

  it("falls back to the default when the list cannot be read, and does not ask again", async () => {
    let reads = 0;
    const failures: unknown[] = [];
    const windows = new ModelWindows(async () => {
      reads++;
      throw new Error("404 no model list");
    }, (error) => failures.push(error));
    const lookup = { known: () => undefined, fetch: (model: string) => windows.limit(undefined, model) };
    for (const window of [new ContextWindow(undefined, lookup, quiet), new ContextWindow(undefined, lookup, quiet)]) {
      await window.ready("claude-sonnet-4");
      expect(window.limit("claude-sonnet-4")).toBe(defaultWindowTokens);
    }
    expect(reads).toBe(1);
    expect(failures).toHaveLength(1);
  });

  it("does not hold the first call back longer than its wait when the list is slow", async () => {
    let answer: (models: ModelInfo[]) => void = () => undefined;
    const slow = new Promise<ModelInfo[]>((resolve) => {
      answer = resolve;
    });
    const windows = new ModelWindows(() => slow, () => undefined);
    const window = new ContextWindow(undefined, { known: () => undefined, fetch: (model) => windows.limit(undefined, model) }, quiet);
    await window.ready("claude-sonnet-4", 10);
    expect(window.limit("claude-sonnet-4")).toBe(defaultWindowTokens);
    answer([listed("claude-sonnet-4", 200_000)]);
    await window.ready("claude-sonnet-4", 10);
    expect(window.limit("claude-sonnet-4")).toBe(200_000);
  });

  it("asks nothing when the provider config states the window", async () => {
    let reads = 0;
    const window = new ContextWindow(50_000, { known: () => undefined, fetch: async () => (reads++, 1) }, quiet);
    await window.ready("any");
    expect(window.limit("any")).toBe(50_000);
    expect(reads).toBe(0);
  });
});
