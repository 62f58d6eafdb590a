/**
 * Small statistics helpers for benchmark samples (milliseconds, bytes, rates).
 * @module
 */

/**
 * Summary of a list of samples. Empty input gives nulls.
 * @param {number[]} samples
 * @returns {{ n: number, median: number | null, min: number | null, max: number | null, p99: number | null }}
 */
export function summarize(samples) {
  const values = samples.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (values.length === 0) return { n: 0, median: null, min: null, max: null, p99: null };
  return { n: values.length, median: quantile(values, 0.5), min: values[0], max: values[values.length - 1], p99: quantile(values, 0.99) };
}

/**
 * Quantile of sorted values with linear interpolation.
 * @param {number[]} sorted ascending
 * @param {number} q between 0 and 1
 * @returns {number}
 */
export function quantile(sorted, q) {
  if (sorted.length === 1) return sorted[0];
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

/**
 * Sum of numbers.
 * @param {number[]} values
 * @returns {number}
 */
export function sum(values) {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
