import type { ModelInfo } from "./types.js";

/**
 * The models list, fetched once and shared. Concurrent callers wait for the same fetch (a promise
 * chain serves as the lock); everyone gets a copy, so no caller can change what others see.
 */
export class ModelCache {
  #models: ModelInfo[] | null = null;
  #lock: Promise<void> = Promise.resolve();

  /** The cached list, or the result of `fetch` (cached when it succeeds). */
  async get(fetch: () => Promise<ModelInfo[]> | ModelInfo[]): Promise<ModelInfo[]> {
    const previous = this.#lock;
    let release!: () => void;
    this.#lock = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      if (this.#models) return [...this.#models];
      const models = await fetch();
      this.#models = [...models];
      return [...models];
    } finally {
      release();
    }
  }

  /** Forgets the list (on stop). */
  clear(): void {
    this.#models = null;
  }
}
