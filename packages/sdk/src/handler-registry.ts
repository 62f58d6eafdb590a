/**
 * Wildcard and per-type handlers for events discriminated on `type`. Handlers run in registration
 * order, typed ones first; a throwing handler does not stop the others.
 */
export class HandlerRegistry<E extends { type: string }> {
  readonly #wildcard = new Set<(event: E) => void>();
  readonly #byType = new Map<string, Set<(event: E) => void>>();

  /** Adds a handler for every event; returns the function that removes it. */
  add(handler: (event: E) => void): () => void {
    this.#wildcard.add(handler);
    return () => {
      this.#wildcard.delete(handler);
    };
  }

  /** Adds a handler for one event type; returns the function that removes it. */
  addTyped(type: string, handler: (event: E) => void): () => void {
    let handlers = this.#byType.get(type);
    if (!handlers) {
      handlers = new Set();
      this.#byType.set(type, handlers);
    }
    handlers.add(handler);
    return () => {
      this.#byType.get(type)?.delete(handler);
    };
  }

  /** Calls the handlers registered for the event's type, then the wildcard handlers. */
  emit(event: E): void {
    const typed = this.#byType.get(event.type);
    const handlers = [...(typed ?? []), ...this.#wildcard];
    for (const handler of handlers) {
      try {
        handler(event);
      } catch {
        // One handler's failure must not keep the event from the others.
      }
    }
  }

  /** Removes every handler. */
  clear(): void {
    this.#wildcard.clear();
    this.#byType.clear();
  }
}
