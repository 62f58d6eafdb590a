/**
 * Memoising helpers that defer building zod schemas until first use: a runtime that never reads a
 * schema never pays for its construction (start-up time and heap).
 * @module
 */

/** The record a {@link memoisedRecord} returns: each factory replaced by what it builds. */
export type BuiltRecord<Factories> = { readonly [Key in keyof Factories]: Factories[Key] extends () => infer Value ? Value : never };

/**
 * A record whose properties are built by their factory on first read and then kept. Keys,
 * enumeration order and `Object.keys`/`Object.entries` stay those of `factories`.
 *
 * @example
 * const schemas = memoisedRecord({ ping: () => z.object({}) });
 * schemas.ping.parse({}); // built here, once
 */
export function memoisedRecord<Factories extends Record<string, () => unknown>>(factories: Factories): BuiltRecord<Factories> {
  const record: Record<string, unknown> = {};
  for (const [key, factory] of Object.entries(factories)) {
    Object.defineProperty(record, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = factory();
        Object.defineProperty(record, key, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return record as BuiltRecord<Factories>;
}

/**
 * Defines getter `key` on `target` that calls `build` on first read and then keeps the value.
 * Used by the method tokens for their params/result schemas.
 */
export function defineMemoisedProperty<Target extends object, Value>(target: Target, key: string, build: () => Value): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = build();
      Object.defineProperty(target, key, { value, enumerable: true, writable: false, configurable: false });
      return value;
    },
  });
}
