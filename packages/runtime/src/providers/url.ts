/**
 * Removes trailing slashes from a URL.
 *
 * @example
 * trimSlash("http://localhost:11434/v1/"); // "http://localhost:11434/v1"
 */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
