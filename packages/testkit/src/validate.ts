/**
 * Small hand-written validators used to check scripts. Every failure names the
 * script source (file path or "<inline>") and the dotted path of the bad field.
 */

/** A plain JSON/YAML object. */
export type PlainObject = Record<string, unknown>;

/** Thrown when a script is not valid YAML or does not have the expected shape. */
export class ScriptValidationError extends Error {
  /** File path (or "<inline>") of the script that failed to validate. */
  readonly source: string;
  /** Dotted path of the offending field, e.g. `steps[1].reply.toolCalls[0].name`; empty for whole-document errors. */
  readonly field: string;

  constructor(source: string, field: string, detail: string) {
    super(field ? `${source}: ${field} ${detail}` : `${source}: ${detail}`);
    this.name = "ScriptValidationError";
    this.source = source;
    this.field = field;
  }
}

/** Where a value being validated lives: the script source and the field path. */
export interface FieldContext {
  readonly source: string;
  readonly field: string;
}

/** Returns the context of a child field (`parent.key` or `parent[index]`). */
export function child(context: FieldContext, key: string | number): FieldContext {
  if (typeof key === "number") return { source: context.source, field: `${context.field}[${key}]` };
  const field = context.field ? `${context.field}.${key}` : key;
  return { source: context.source, field };
}

/** Throws a {@link ScriptValidationError} for the given field. */
export function fail(context: FieldContext, detail: string): never {
  throw new ScriptValidationError(context.source, context.field, detail);
}

/** Describes a value's type for error messages. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/** True for non-null, non-array objects. */
export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Requires an object and rejects keys outside `allowedKeys` (catches typos like `toolcalls`). */
export function readObject(context: FieldContext, value: unknown, allowedKeys: readonly string[]): PlainObject {
  if (!isPlainObject(value)) fail(context, `must be an object, got ${describeType(value)}`);
  for (const key of Object.keys(value)) {
    if (allowedKeys.includes(key)) continue;
    fail(child(context, key), `is not a known field (expected one of: ${allowedKeys.join(", ")})`);
  }
  return value;
}

/** Reads an optional string field. */
export function optionalString(context: FieldContext, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") fail(context, `must be a string, got ${describeType(value)}`);
  return value;
}

/** Reads a required, non-empty string field. */
export function requiredString(context: FieldContext, value: unknown): string {
  if (value === undefined || value === null) fail(context, "is required");
  const text = optionalString(context, value);
  if (!text) fail(context, "must be a non-empty string");
  return text;
}

/** Reads an optional integer field that must be at least `minimum`. */
export function optionalInteger(context: FieldContext, value: unknown, minimum: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    fail(context, `must be an integer, got ${describeType(value)}`);
  }
  if (value < minimum) fail(context, `must be >= ${minimum}, got ${value}`);
  return value;
}

/** Reads an optional boolean field. */
export function optionalBoolean(context: FieldContext, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") fail(context, `must be true or false, got ${describeType(value)}`);
  return value;
}

/** Requires an array. */
export function readArray(context: FieldContext, value: unknown): unknown[] {
  if (!Array.isArray(value)) fail(context, `must be a list, got ${describeType(value)}`);
  return value;
}
