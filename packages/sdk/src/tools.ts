import type { ToolDefinition } from "@tandem/protocol";

/**
 * The structural shape of a zod schema the SDK relies on: the inferred output type (for handler
 * typing) and `toJSONSchema()` (for the wire). Any object with a `toJSONSchema()` method counts.
 *
 * @example
 * const schema: ZodSchema<{ city: string }> = z.object({ city: z.string() });
 */
export interface ZodSchema<T = unknown> {
  _output: T;
  toJSONSchema(): Record<string, unknown>;
}

/**
 * How a tool call ended, as the model is told.
 *
 * @example
 * const kind: ToolResultType = "failure";
 */
export type ToolResultType = "success" | "failure" | "rejected" | "denied";

/**
 * Binary content (an image, for example) a tool hands back to the model.
 *
 * @example
 * const image: ToolBinaryResult = { data: base64Png, mimeType: "image/png", type: "image" };
 */
export type ToolBinaryResult = {
  data: string;
  mimeType: string;
  type: string;
  description?: string;
};

/**
 * A structured tool result: the text the model sees plus how the call ended.
 *
 * @example
 * const result: ToolResultObject = { textResultForLlm: "Service unavailable", resultType: "failure", error: "timeout" };
 */
export type ToolResultObject = {
  textResultForLlm: string;
  binaryResultsForLlm?: ToolBinaryResult[];
  resultType: ToolResultType;
  error?: string;
  sessionLog?: string;
  toolTelemetry?: Record<string, unknown>;
};

/**
 * What a tool handler may return in the common cases (any other value is JSON-encoded).
 *
 * @example
 * const result: ToolResult = "42 degrees";
 */
export type ToolResult = string | ToolResultObject;

/**
 * Context passed to a tool handler next to its arguments.
 *
 * @example
 * const handler: ToolHandler = (args, invocation) => `called ${invocation.toolName} in ${invocation.sessionId}`;
 */
export interface ToolInvocation {
  sessionId: string;
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  /** W3C trace context of the runtime's tool span, when it sends one. */
  traceparent?: string;
  /** W3C trace state of the runtime's tool span, when it sends one. */
  tracestate?: string;
}

/**
 * Runs a custom tool. The return value goes back to the model: `null`/`undefined` as an empty result,
 * strings as they are, anything else JSON-encoded. A thrown error is reported as a failed call.
 *
 * @example
 * const add: ToolHandler<{ a: number; b: number }> = ({ a, b }) => String(a + b);
 */
export type ToolHandler<TArgs = unknown> = (args: TArgs, invocation: ToolInvocation) => Promise<unknown> | unknown;

/**
 * A custom tool: its declaration (sent to the runtime) and its handler (kept in this process).
 *
 * @example
 * const tool: Tool = { name: "now", description: "Current time", handler: () => new Date().toISOString() };
 */
export interface Tool<TArgs = unknown> {
  name: string;
  description?: string;
  /** A zod schema (converted with `toJSONSchema()`) or a plain JSON Schema object. */
  parameters?: ZodSchema<TArgs> | Record<string, unknown>;
  handler: ToolHandler<TArgs>;
  /** Must be true to replace a built-in tool of the same name; otherwise the runtime refuses the clash. */
  overridesBuiltInTool?: boolean;
  /** When true, the runtime runs the tool without asking for permission. */
  skipPermission?: boolean;
}

/**
 * Defines a tool, inferring the handler's argument type from a zod `parameters` schema.
 *
 * @example
 * const weather = defineTool("get_weather", {
 *   description: "Weather for a city",
 *   parameters: z.object({ city: z.string() }),
 *   handler: async ({ city }) => ({ city, temperature: 21 }),
 * });
 */
export function defineTool<T = unknown>(
  name: string,
  config: {
    description?: string;
    parameters?: ZodSchema<T> | Record<string, unknown>;
    handler: ToolHandler<T>;
    overridesBuiltInTool?: boolean;
    skipPermission?: boolean;
  },
): Tool<T> {
  return { name, ...config };
}

function isZodSchema(value: unknown): value is ZodSchema {
  return typeof value === "object" && value !== null && typeof (value as { toJSONSchema?: unknown }).toJSONSchema === "function";
}

/** The JSON Schema of a tool's parameters (zod schemas are converted). */
export function toJsonSchema(parameters: Tool<unknown>["parameters"]): Record<string, unknown> | undefined {
  if (!parameters) return undefined;
  if (isZodSchema(parameters)) return parameters.toJSONSchema();
  return parameters;
}

/** The wire declaration of a tool: everything but the handler. */
export function toToolDefinition(tool: Tool<any>): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: toJsonSchema(tool.parameters),
    overridesBuiltInTool: tool.overridesBuiltInTool,
    skipPermission: tool.skipPermission,
  };
}

/** Protocol v3: a handler's return value as the string `session.tools.handlePendingToolCall` carries. */
export function toToolResultString(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

function isToolResultObject(value: unknown): value is ToolResultObject {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { textResultForLlm?: unknown }).textResultForLlm === "string" &&
    "resultType" in value
  );
}

/** Protocol v2: a handler's return value as the structured result `tool.call` answers with. */
export function toToolResultObject(value: unknown): ToolResultObject {
  if (value === null || value === undefined) {
    return { textResultForLlm: "Tool returned no result", resultType: "failure", error: "tool returned no result", toolTelemetry: {} };
  }
  if (isToolResultObject(value)) return value;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return { textResultForLlm: text, resultType: "success", toolTelemetry: {} };
}

/** Protocol v2: the answer for a tool this client does not know. */
export function unsupportedToolResult(toolName: string): ToolResultObject {
  return {
    textResultForLlm: `Tool '${toolName}' is not supported by this client instance.`,
    resultType: "failure",
    error: `tool '${toolName}' not supported`,
    toolTelemetry: {},
  };
}

/** Protocol v2: the answer for a handler that threw. The model is not shown the error details. */
export function failedToolResult(error: unknown): ToolResultObject {
  return {
    textResultForLlm: "Invoking this tool produced an error. Detailed information is not available.",
    resultType: "failure",
    error: errorMessage(error),
    toolTelemetry: {},
  };
}

/** The message of a thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
