/** What a redacted secret is replaced with. */
export const redactionMark = "******";

/**
 * Values to keep out of everything the runtime writes or sends (`secrets.addFilterValues`): log
 * lines, persisted events and the events clients receive. A value is replaced wherever it occurs,
 * as itself and as it appears inside a JSON string (escaped), so the text stays valid JSON.
 * Values are never removed: a secret once shown must stay hidden for the runtime's life.
 *
 * @example
 * const secrets = new SecretFilter();
 * secrets.add(["hunter2"]);
 * secrets.redact('{"output":"password: hunter2"}'); // '{"output":"password: ******"}'
 */
export class SecretFilter {
  /** Every form to replace (raw and JSON-escaped), longest first so a longer secret is not cut by a shorter one inside it. */
  private forms: string[] = [];
  private readonly values = new Set<string>();

  /** Adds values; empty strings are ignored (they would match everywhere). */
  add(values: readonly string[]): void {
    for (const value of values) {
      if (value.length === 0 || this.values.has(value)) continue;
      this.values.add(value);
    }
    const forms = new Set<string>();
    for (const value of this.values) {
      forms.add(value);
      forms.add(JSON.stringify(value).slice(1, -1));
    }
    this.forms = [...forms].sort((a, b) => b.length - a.length);
  }

  /** How many values are filtered. */
  get size(): number {
    return this.values.size;
  }

  /** `text` with every filtered value replaced by {@link redactionMark}. */
  redact(text: string): string {
    if (this.forms.length === 0) return text;
    let redacted = text;
    for (const form of this.forms) {
      if (redacted.includes(form)) redacted = redacted.split(form).join(redactionMark);
    }
    return redacted;
  }
}
