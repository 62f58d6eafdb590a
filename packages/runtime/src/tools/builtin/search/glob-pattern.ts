/**
 * A glob as a regular expression over `/`-separated relative paths: `*` and `?` stay within one
 * path segment, `**` spans segments, `[abc]` / `[!abc]` are character classes and `{a,b}`
 * alternatives (they may nest).
 *
 * @example
 * globToRegExp("src/**\/*.{ts,tsx}").test("src/a/b.tsx"); // true
 */
export function globToRegExp(glob: string, options: { caseInsensitive?: boolean } = {}): RegExp {
  return new RegExp(`^${translate(glob)}$`, options.caseInsensitive ? "i" : "");
}

function translate(glob: string): string {
  let out = "";
  let braceDepth = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === "*") {
      if (glob[index + 1] === "*") {
        const atStart = index === 0 || glob[index - 1] === "/";
        const atEnd = index + 2 === glob.length || glob[index + 2] === "/";
        if (atStart && atEnd) {
          if (glob[index + 2] === "/") {
            out += "(?:[^/]*/)*";
            index += 2;
          } else {
            out += ".*";
            index += 1;
          }
          continue;
        }
        out += "[^/]*";
        index += 1;
        continue;
      }
      out += "[^/]*";
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      continue;
    }
    if (char === "[") {
      const close = glob.indexOf("]", index + 2);
      if (close === -1) {
        out += "\\[";
        continue;
      }
      let body = glob.slice(index + 1, close);
      if (body.startsWith("!")) body = `^${body.slice(1)}`;
      out += `[${body.replaceAll("\\", "\\\\")}]`;
      index = close;
      continue;
    }
    if (char === "{") {
      braceDepth++;
      out += "(?:";
      continue;
    }
    if (char === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
      continue;
    }
    if (char === "," && braceDepth > 0) {
      out += "|";
      continue;
    }
    if (char === "\\" && index + 1 < glob.length) {
      out += escapeRegExp(glob[++index]!);
      continue;
    }
    out += escapeRegExp(char);
  }
  return out + ")".repeat(braceDepth);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * A path filter in the manner of `rg --glob`: a glob without `/` matches a file's name at any
 * depth, one with `/` matches the path relative to the search root; `!glob` excludes.
 *
 * @example
 * const keep = globFilter(["*.ts", "!*.test.ts"]);
 * keep("src/a.ts"); // true
 */
export function globFilter(globs: string[]): (relativePath: string) => boolean {
  const rules = globs.map((raw) => {
    const negate = raw.startsWith("!");
    const glob = (negate ? raw.slice(1) : raw).replace(/^\.\//, "").replace(/^\//, "");
    return { negate, matchesName: !glob.includes("/"), regex: globToRegExp(glob) };
  });
  const hasPositive = rules.some((rule) => !rule.negate);
  return (relativePath) => {
    const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
    let kept = !hasPositive;
    for (const rule of rules) {
      const subject = rule.matchesName ? name : relativePath;
      if (rule.regex.test(subject)) kept = !rule.negate;
    }
    return kept;
  };
}
