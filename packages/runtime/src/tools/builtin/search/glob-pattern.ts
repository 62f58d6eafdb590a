/**
 * Glob matching through picomatch (loaded on first use): `*` and `?` stay within one path segment,
 * `**` spans segments, `[abc]` / `[!abc]` / `[[:digit:]]` are character classes, `{a,b}`
 * alternatives (they may nest), `+(a|b)` and friends extglobs. Dot files match like any other.
 */
import type { Matcher } from "picomatch";

/**
 * A matcher for one glob over `/`-separated relative paths.
 *
 * @example
 * (await globMatcher("src/**\/*.{ts,tsx}"))("src/a/b.tsx"); // true
 */
export async function globMatcher(glob: string): Promise<Matcher> {
  const { default: picomatch } = await import("picomatch");
  // `posix` makes `[!a-c]` a negated class (without it picomatch reads the `!` literally).
  return picomatch(glob, { dot: true, posix: true });
}

/**
 * A path filter in the manner of `rg --glob`: a glob without `/` matches a file's name at any
 * depth, one with `/` matches the path relative to the search root; `!glob` excludes.
 *
 * @example
 * const keep = await globFilter(["*.ts", "!*.test.ts"]);
 * keep("src/a.ts"); // true
 */
export async function globFilter(globs: string[]): Promise<(relativePath: string) => boolean> {
  if (globs.length === 0) return () => true;
  const rules = await Promise.all(
    globs.map(async (raw) => {
      const negate = raw.startsWith("!");
      const glob = (negate ? raw.slice(1) : raw).replace(/^\.\//, "").replace(/^\//, "");
      return { negate, matchesName: !glob.includes("/"), matches: await globMatcher(glob) };
    }),
  );
  const hasPositive = rules.some((rule) => !rule.negate);
  return (relativePath) => {
    const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
    let kept = !hasPositive;
    for (const rule of rules) {
      const subject = rule.matchesName ? name : relativePath;
      if (rule.matches(subject)) kept = !rule.negate;
    }
    return kept;
  };
}
