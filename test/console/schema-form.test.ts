/** The console's elicitation forms: fields read from a JSON Schema, and the checks before sending. */
import { describe, expect, it } from "vitest";
import { checkForm, formFields } from "../../packages/console/web/schema-form.js";

const schema = {
  type: "object" as const,
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 5 },
    size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
    count: { type: "integer", minimum: 1, maximum: 3 },
    ratio: { type: "number" },
    ok: { type: "boolean", default: true },
    tags: { type: "array", items: { enum: ["a", "b"] } },
    site: { type: "string", format: "uri" },
  },
  required: ["name", "size", "count", "tags"],
};

describe("formFields", () => {
  it("reads kinds, labels, options, bounds and required fields in the schema's order", () => {
    const fields = formFields(schema);
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ["name", "text", true],
      ["size", "enum", true],
      ["count", "integer", true],
      ["ratio", "number", false],
      ["ok", "boolean", false],
      ["tags", "multi", true],
      ["site", "text", false],
    ]);
    expect(fields[0]).toMatchObject({ label: "Name", minLength: 2, maxLength: 5 });
    expect(fields[1]?.options).toEqual([{ value: "s", label: "Small" }, { value: "l", label: "Large" }]);
    expect(fields[2]).toMatchObject({ minimum: 1, maximum: 3 });
    expect(fields[4]?.defaultValue).toBe(true);
    expect(formFields(undefined)).toEqual([]);
  });
});

describe("checkForm", () => {
  const fields = formFields(schema);

  it("turns a right form into typed content, leaving out empty optional fields", () => {
    expect(checkForm(fields, { name: "Ada", size: "l", count: "2", ratio: "", ok: false, tags: ["b"], site: "" })).toEqual({
      ok: true,
      content: { name: "Ada", size: "l", count: 2, ok: false, tags: ["b"] },
    });
  });

  it("says what is wrong with each field", () => {
    expect(checkForm(fields, { name: "", size: "", count: "", tags: [] })).toEqual({
      ok: false,
      errors: { name: "Required.", size: "Required.", count: "Required.", tags: "Pick at least one." },
    });
    expect(checkForm(fields, { name: "A", size: "xl", count: "1.5", ratio: "abc", tags: ["z"], site: "not a uri" })).toEqual({
      ok: false,
      errors: { name: "At least 2 characters.", size: "Pick one of the choices.", count: "A whole number, please.", ratio: "A number, please.", tags: "Pick at least one.", site: "A URI, please." },
    });
    expect(checkForm(fields, { name: "Adalovelace", size: "s", count: "9", tags: ["a"] })).toEqual({
      ok: false,
      errors: { name: "At most 5 characters.", count: "At most 3." },
    });
  });
});
