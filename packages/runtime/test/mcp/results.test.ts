import { describe, expect, it } from "vitest";
import { qualifiedToolName, toolAllowed, callTimeoutMs, isRemoteConfig } from "../../src/mcp/config.js";
import { progressMessage } from "../../src/mcp/mcp-tool.js";
import { mcpResultToOutcome } from "../../src/mcp/results.js";

describe("mcpResultToOutcome", () => {
  it("joins text blocks and keeps the raw contents", () => {
    const content = [
      { type: "text" as const, text: "one" },
      { type: "text" as const, text: "two" },
    ];
    expect(mcpResultToOutcome({ content }, "t")).toEqual({ resultType: "success", textForModel: "one\ntwo", contents: content });
  });

  it("allows empty text", () => {
    expect(mcpResultToOutcome({ content: [{ type: "text", text: "" }] }, "t")).toMatchObject({ resultType: "success", textForModel: "" });
    expect(mcpResultToOutcome({ content: [] }, "t")).toMatchObject({ resultType: "success", textForModel: "", contents: [] });
  });

  it("sends images as binary results, and image blobs of embedded resources too", () => {
    const outcome = mcpResultToOutcome(
      {
        content: [
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///x.jpg", mimeType: "image/jpeg", blob: "BBBB" } },
          { type: "resource", resource: { uri: "file:///x.bin", blob: "CCCC" } },
          { type: "audio", data: "DDDD", mimeType: "audio/wav" },
        ],
      },
      "t",
    );
    expect(outcome.binaryResults).toEqual([
      { type: "image", mimeType: "image/png", data: "AAAA" },
      { type: "image", mimeType: "image/jpeg", data: "BBBB" },
    ]);
    expect(outcome.textForModel).toBe(
      "Resource file:///x.jpg (image/jpeg)\nResource file:///x.bin (binary, 4 base64 characters, not shown)\n[audio content (audio/wav) omitted]",
    );
  });

  it("uses structured content when there is no content", () => {
    expect(mcpResultToOutcome({ content: [], structuredContent: { answer: 42 } }, "t").textForModel).toBe('{"answer":42}');
  });

  it("makes isError results failures", () => {
    expect(mcpResultToOutcome({ content: [{ type: "text", text: "bad input" }], isError: true }, "t")).toMatchObject({
      resultType: "failure",
      textForModel: "bad input",
      errorMessage: "bad input",
    });
    expect(mcpResultToOutcome({ content: [], isError: true }, "lookup").textForModel).toBe('The MCP tool "lookup" reported an error.');
  });
});

describe("config helpers", () => {
  it("names tools {server}-{tool} and applies allow-lists", () => {
    expect(qualifiedToolName("gh", "list_issues")).toBe("gh-list_issues");
    const config = { command: "x", args: [], tools: ["a", "srv-b"] };
    expect(toolAllowed(config, "srv", "a")).toBe(true);
    expect(toolAllowed(config, "srv", "b")).toBe(true);
    expect(toolAllowed(config, "srv", "c")).toBe(false);
    expect(toolAllowed({ command: "x", args: [], tools: ["*"] }, "srv", "c")).toBe(true);
    expect(toolAllowed({ command: "x", args: [], tools: [] }, "srv", "c")).toBe(false);
  });

  it("reads timeouts and transport kinds", () => {
    expect(callTimeoutMs({ command: "x", args: [], tools: [] }, 60_000)).toBe(60_000);
    expect(callTimeoutMs({ command: "x", args: [], tools: [], timeout: 500 }, 60_000)).toBe(500);
    expect(isRemoteConfig({ type: "sse", url: "http://h", tools: [] })).toBe(true);
    expect(isRemoteConfig({ type: "stdio", command: "x", args: [], tools: [] })).toBe(false);
  });

  it("formats progress", () => {
    expect(progressMessage({ progress: 1, total: 4, message: "reading" })).toBe("reading");
    expect(progressMessage({ progress: 1, total: 4 })).toBe("1/4");
    expect(progressMessage({ progress: 7 })).toBe("7");
  });
});
