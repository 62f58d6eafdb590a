/**
 * The fields of an elicitation form, read from its JSON Schema (the flat object schemas MCP
 * allows: strings, numbers, integers, booleans, enums and lists of enum values), and the checks a
 * filled-in form must pass before it is sent. No DOM here.
 */

/** One choice of an enum field. */
export interface FieldOption {
  value: string;
  label: string;
}

/** One field of the form. */
export interface FormField {
  name: string;
  label: string;
  description?: string;
  kind: "text" | "number" | "integer" | "boolean" | "enum" | "multi";
  required: boolean;
  options?: FieldOption[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  defaultValue?: string | number | boolean | string[];
}

/** What the page read from the inputs: text for text and number inputs, booleans, picked values. */
export type RawValues = Record<string, string | boolean | string[]>;

/** A form's content as the server gets it, or the message of each field that is not right. */
export type FormCheck = { ok: true; content: Record<string, string | number | boolean | string[]> } | { ok: false; errors: Record<string, string> };

type Schema = Record<string, unknown>;

const asNumber = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const asString = (value: unknown) => (typeof value === "string" ? value : undefined);

function optionsOf(schema: Schema): FieldOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({ value: String(value), label: String(names[index] ?? value) }));
  }
  const variants = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!variants) return undefined;
  return variants.filter((variant): variant is Schema => !!variant && typeof variant === "object" && "const" in variant).map((variant) => ({ value: String(variant.const), label: String(variant.title ?? variant.const) }));
}

/** The fields of `requestedSchema`, in the schema's order. */
export function formFields(schema: { properties?: Record<string, unknown>; required?: string[] } | undefined): FormField[] {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([name, raw]) => {
    const property = (raw && typeof raw === "object" ? raw : {}) as Schema;
    const items = (property.items && typeof property.items === "object" ? property.items : {}) as Schema;
    const options = property.type === "array" ? optionsOf(items) : optionsOf(property);
    const kind: FormField["kind"] =
      property.type === "array" ? "multi" : options ? "enum" : property.type === "boolean" ? "boolean" : property.type === "integer" ? "integer" : property.type === "number" ? "number" : "text";
    const field: FormField = { name, label: asString(property.title) ?? name, kind, required: required.has(name) };
    if (asString(property.description)) field.description = asString(property.description);
    if (options) field.options = options;
    if (asNumber(property.minimum) !== undefined) field.minimum = asNumber(property.minimum);
    if (asNumber(property.maximum) !== undefined) field.maximum = asNumber(property.maximum);
    if (asNumber(property.minLength) !== undefined) field.minLength = asNumber(property.minLength);
    if (asNumber(property.maxLength) !== undefined) field.maxLength = asNumber(property.maxLength);
    if (asString(property.format)) field.format = asString(property.format);
    if (property.default !== undefined) field.defaultValue = property.default as FormField["defaultValue"];
    return field;
  });
}

function checkText(field: FormField, text: string): string | undefined {
  if (field.minLength !== undefined && text.length < field.minLength) return `At least ${field.minLength} characters.`;
  if (field.maxLength !== undefined && text.length > field.maxLength) return `At most ${field.maxLength} characters.`;
  if (field.format === "email" && !/^[^\s@]+@[^\s@]+$/.test(text)) return "An email address, please.";
  if (field.format === "uri" && !/^[a-z][a-z\d+.-]*:\S+$/i.test(text)) return "A URI, please.";
  return undefined;
}

function checkNumber(field: FormField, text: string): number | string {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) return "A number, please.";
  if (field.kind === "integer" && !Number.isInteger(value)) return "A whole number, please.";
  if (field.minimum !== undefined && value < field.minimum) return `At least ${field.minimum}.`;
  if (field.maximum !== undefined && value > field.maximum) return `At most ${field.maximum}.`;
  return value;
}

/** Checks the form: required fields, number ranges, text lengths, enum values. Empty optional fields are left out. */
export function checkForm(fields: readonly FormField[], raw: RawValues): FormCheck {
  const content: Record<string, string | number | boolean | string[]> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = raw[field.name];
    if (field.kind === "boolean") {
      content[field.name] = value === true;
      continue;
    }
    if (field.kind === "multi") {
      const picked = Array.isArray(value) ? value.filter((item) => field.options?.some((option) => option.value === item)) : [];
      if (field.required && picked.length === 0) errors[field.name] = "Pick at least one.";
      else if (picked.length) content[field.name] = picked;
      continue;
    }
    const text = typeof value === "string" ? value : "";
    if (text.trim() === "") {
      if (field.required) errors[field.name] = "Required.";
      continue;
    }
    if (field.kind === "enum") {
      if (!field.options?.some((option) => option.value === text)) errors[field.name] = "Pick one of the choices.";
      else content[field.name] = text;
      continue;
    }
    if (field.kind === "number" || field.kind === "integer") {
      const checked = checkNumber(field, text);
      if (typeof checked === "string") errors[field.name] = checked;
      else content[field.name] = checked;
      continue;
    }
    const problem = checkText(field, text);
    if (problem) errors[field.name] = problem;
    else content[field.name] = text;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, content };
}
