/**
 * One clock for the main thread and the model-server worker: milliseconds since the epoch with
 * sub-millisecond resolution (`performance.timeOrigin + performance.now()`, monotonic per thread).
 * @module
 */

/** @returns {number} milliseconds since the epoch, fractional */
export function now() {
  return performance.timeOrigin + performance.now();
}

/**
 * Resolves after `ms` milliseconds.
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Races a promise against a deadline; rejects with a clear message when it passes.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what named in the error
 * @returns {Promise<T>}
 */
export function withTimeout(promise, ms, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
