import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
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
 * `isError: true` makes the outcome a failure.
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
  const textForModel = texts.join("\n");
  const binary = binaryResults.length > 0 ? { binaryResults } : {};
  if (result.isError === true) {
    const message = textForModel || `The MCP tool "${toolName}" reported an error.`;
    return { resultType: "failure", textForModel: message, errorMessage: message, contents, ...binary };
  }
  return { resultType: "success", textForModel, contents, ...binary };
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
