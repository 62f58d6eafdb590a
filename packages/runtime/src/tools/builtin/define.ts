import { z } from "zod";
import { deniedOutcome } from "../../permissions/outcome.js";
import { LazyParameters, type PermissionAskOptions, type Tool, type ToolContext, type ToolOutcome, type ToolPermissionRequest } from "../types.js";

/** The definition of a built-in tool: a zod schema for its arguments and an `execute`. */
export interface BuiltinToolSpec<Schema extends z.ZodObject> {
  name: string;
  description: string;
  schema: Schema;
  /**
   * The permission to ask before `execute`, built from the validated arguments. Tools whose request
   * depends on what they find on disk ask inside `execute` with {@link askPermission} instead.
   */
  permission?: (args: z.infer<Schema>, context: ToolContext) => ToolPermissionRequest | Promise<ToolPermissionRequest>;
  execute(args: z.infer<Schema>, context: ToolContext): Promise<ToolOutcome>;
  /** Releases what the tool holds; see {@link Tool.dispose}. */
  dispose?(): Promise<void>;
}

/**
 * Makes a {@link Tool} from a zod schema. The JSON Schema the model sees comes from the same zod
 * schema; arguments are validated before any permission is asked, and an invalid call fails with
 * a text the model can act on: `Invalid input: "<field>": <message>`.
 *
 * @example
 * const intent = defineBuiltinTool({
 *   name: "report_intent",
 *   description: "Say what you are doing.",
 *   schema: z.object({ intent: z.string() }),
 *   execute: async ({ intent }) => success(`Intent logged: ${intent}`),
 * });
 */
/**
 * JSON Schemas of the built-in tools, by tool name (a built-in's schema never changes), each built
 * when a model request (or `tools.list`) first reads it: a session's create compares tool lists by
 * these objects' identity and builds none.
 */
const parametersByName = new Map<string, LazyParameters>();

export function defineBuiltinTool<Schema extends z.ZodObject>(spec: BuiltinToolSpec<Schema>): Tool {
  let parameters = parametersByName.get(spec.name);
  if (!parameters) {
    const schema = spec.schema;
    parameters = new LazyParameters(() => parametersSchema(schema));
    parametersByName.set(spec.name, parameters);
  }
  const built = parameters;
  return {
    name: spec.name,
    description: spec.description,
    get parameters() {
      return built.json;
    },
    parametersSource: built,
    async execute(rawArgs: unknown, context: ToolContext): Promise<ToolOutcome> {
      const parsed = spec.schema.safeParse(withoutNulls(rawArgs));
      if (!parsed.success) return invalidInput(parsed.error, rawArgs);
      const args = parsed.data as z.infer<Schema>;
      if (spec.permission) {
        const denied = await askPermission(context, await spec.permission(args, context));
        if (denied) return denied;
      }
      return spec.execute(args, context);
    },
    ...(spec.dispose ? { dispose: spec.dispose } : {}),
  };
}

/**
 * Asks for a permission; returns the outcome to give the model when it was not granted, or
 * `undefined` when the tool may go on.
 *
 * @example
 * const denied = await askPermission(context, { kind: "read", intention: `Read file: ${path}`, path });
 * if (denied) return denied;
 */
export async function askPermission(context: ToolContext, request: ToolPermissionRequest, options?: PermissionAskOptions): Promise<ToolOutcome | undefined> {
  const decision = await context.requestPermission(request, options);
  if (decision.kind === "approved") return undefined;
  return deniedOutcome(decision);
}

/** The JSON Schema of a tool's arguments, with `required` always present and in declared order. */
export function parametersSchema(schema: z.ZodObject): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  const required = Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);
  return { ...(withoutSafeIntegerBounds(json) as Record<string, unknown>), required };
}

// zod writes ±MAX_SAFE_INTEGER bounds on every integer; they tell the model nothing.
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).filter(
    ([key, each]) => !((key === "minimum" || key === "maximum") && Math.abs(each as number) === Number.MAX_SAFE_INTEGER),
  );
  return Object.fromEntries(entries.map(([key, each]) => [key, withoutSafeIntegerBounds(each)]));
}

/** The model-facing text for arguments that do not satisfy the schema. */
export function invalidInput(error: z.ZodError, rawArgs: unknown): ToolOutcome {
  const details = error.issues.map((issue) => describeIssue(issue, rawArgs));
  return {
    resultType: "failure",
    textForModel: `Invalid input: ${details.join("; ")}`,
    errorMessage: "Invalid input",
  };
}

function describeIssue(issue: z.core.$ZodIssue, rawArgs: unknown): string {
  const message = issueMessage(issue, valueAt(rawArgs, issue.path));
  if (issue.path.length === 0) return message;
  return `"${issue.path.map(String).join(".")}": ${message}`;
}

// The wording follows the reference runtime (zod 3 style: "Required", "Expected string, received number").
function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return "Required";
      return `Expected ${issue.expected}, received ${typeName(value)}`;
    case "invalid_value":
      return `Invalid enum value. Expected ${issue.values.map((each) => `'${String(each)}'`).join(" | ")}, received '${String(value)}'`;
    default:
      return issue.message;
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "nan";
  return typeof value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

// Models often send `null` for an optional argument they do not use; treat it as absent.
function withoutNulls(args: unknown): unknown {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
}
