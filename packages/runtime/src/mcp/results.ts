import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { boundedToolText, MAX_DETAILED_OUTPUT_CHARS, MAX_MODEL_OUTPUT_CHARS, truncateMiddle } from "../tools/output-limits.js";
import type { BinaryResult, ToolOutcome } from "../tools/types.js";

/**
 * The outcome of an MCP tool call. `contents` is the server's raw content array, for the
 * `result.contents` field of `tool.execution_complete`.
 */
export interface McpToolOutcome extends ToolOutcome {
  contents: ContentBlock[];
}

/**
 * Maps an MCP `tools/call` result to a tool outcome: text blocks are joined for the model, images
 * become `binaryResults`, embedded resources and resource links become text naming their URI, and
 * `isError: true` makes the outcome a failure. Long text is cut for the model like shell output
 * ({@link boundedToolText}), and long text blocks in `contents` are cut too.
 *
 * @example
 * mcpResultToOutcome({ content: [{ type: "text", text: "3" }] }, "add");
 * // { resultType: "success", textForModel: "3", contents: [{ type: "text", text: "3" }] }
 */
export function mcpResultToOutcome(result: CallToolResult, toolName: string): McpToolOutcome {
  const contents = Array.isArray(result.content) ? result.content : [];
  const texts: string[] = [];
  const binaryResults: BinaryResult[] = [];
  for (const block of contents) {
    const text = describeBlock(block, binaryResults);
    if (text !== undefined) texts.push(text);
  }
  if (contents.length === 0 && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent));
  const text = texts.join("\n");
  const binary = binaryResults.length > 0 ? { binaryResults } : {};
  const keptContents = boundedContents(contents);
  if (result.isError === true) {
    const message = boundedToolText(text || `The MCP tool "${toolName}" reported an error.`, MAX_MODEL_OUTPUT_CHARS);
    return { resultType: "failure", ...message, errorMessage: message.textForModel, contents: keptContents, ...binary };
  }
  return { resultType: "success", ...boundedToolText(text, MAX_MODEL_OUTPUT_CHARS), contents: keptContents, ...binary };
}

/** The content blocks for the event, with text blocks cut to {@link MAX_DETAILED_OUTPUT_CHARS}. */
function boundedContents(contents: ContentBlock[]): ContentBlock[] {
  if (!contents.some((block) => block.type === "text" && block.text.length > MAX_DETAILED_OUTPUT_CHARS)) return contents;
  return contents.map((block) =>
    block.type === "text" && block.text.length > MAX_DETAILED_OUTPUT_CHARS ? { ...block, text: truncateMiddle(block.text, MAX_DETAILED_OUTPUT_CHARS, "") } : block,
  );
}

/** The model text of one content block (undefined when it has none); images go to `binary`. */
function describeBlock(block: ContentBlock, binary: BinaryResult[]): string | undefined {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      binary.push({ type: "image", mimeType: block.mimeType, data: block.data });
      return undefined;
    case "audio":
      return `[audio content (${block.mimeType}) omitted]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) return `Resource ${resource.uri}:\n${resource.text}`;
      if (resource.mimeType?.startsWith("image/")) {
        binary.push({ type: "image", mimeType: resource.mimeType, data: resource.blob });
        return `Resource ${resource.uri} (${resource.mimeType})`;
      }
      return `Resource ${resource.uri} (${resource.mimeType ?? "binary"}, ${resource.blob.length} base64 characters, not shown)`;
    }
    case "resource_link": {
      const label = block.title ?? block.name;
      return `Resource link: ${label} (${block.uri})${block.description ? ` - ${block.description}` : ""}`;
    }
    default:
      return undefined;
  }
}
