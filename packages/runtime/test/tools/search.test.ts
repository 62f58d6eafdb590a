import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globTool } from "../../src/tools/builtin/glob.js";
import { grepTool } from "../../src/tools/builtin/grep.js";
import { globFilter, globMatcher } from "../../src/tools/builtin/search/glob-pattern.js";
import { Ripgrep } from "../../src/tools/builtin/search/ripgrep.js";
import { walkFiles } from "../../src/tools/builtin/search/walk.js";
import type { Tool } from "../../src/tools/types.js";
import { denyAll, fakeContext, tempDir } from "./helpers.js";

let dir: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;

beforeAll(() => {
  dir = tempDir();
  outside = tempDir("tandem-outside-");
  const write = (path: string, text: string | Buffer) => {
    mkdirSync(join(dir.path, path, ".."), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  };
  write("data.txt", "apple\nbanana\napple pie\n");
  write("src/a.ts", "export const apple = 1;\n// TODO: more\n");
  write("src/b.ts", "export const b = 2;\n");
  write("src/view.tsx", "const Apple = () => null;\n");
  write("src/deep/c.js", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
  write("node_modules/pkg/index.js", "apple\n");
  write(".hidden/secret.txt", "apple\n");
  write("build/out.txt", "apple\n");
  write(".gitignore", "build/\n*.log\n");
  write("debug.log", "apple\n");
  write("image.bin", Buffer.from([0x61, 0x70, 0x70, 0x6c, 0x65, 0x00, 0x01]));
  writeFileSync(join(outside.path, "far.txt"), "apple\n");
  symlinkSync(outside.path, join(dir.path, "far"));
});

afterAll(() => {
  dir.remove();
  outside.remove();
});

function run(tool: Tool, args: Record<string, unknown>, context = fakeContext(dir.path)) {
  return tool.execute(args, context.context);
}

describe("glob patterns", () => {
  it("translates *, **, ?, classes and braces", async () => {
    const matches = async (glob: string, path: string) => (await globMatcher(glob))(path);
    expect(await matches("src/**/*.{ts,tsx}", "src/a/b/c.tsx")).toBe(true);
    expect(await matches("src/**/*.{ts,tsx}", "src/c.ts")).toBe(true);
    expect(await matches("src/*.ts", "src/a/c.ts")).toBe(false);
    expect(await matches("file?.[!a-c]s", "file1.ds")).toBe(true);
    expect(await matches("file?.[!a-c]s", "file1.as")).toBe(false);
    expect(await matches("**", "any/thing")).toBe(true);
    expect(await matches("*.ts", ".eslintrc.ts")).toBe(true);
  });

  it("understands extglobs and POSIX classes (picomatch)", async () => {
    const matches = async (glob: string, path: string) => (await globMatcher(glob))(path);
    expect(await matches("*.+(ts|tsx)", "view.tsx")).toBe(true);
    expect(await matches("*.+(ts|tsx)", "view.js")).toBe(false);
    expect(await matches("!(*.test).ts", "a.ts")).toBe(true);
    expect(await matches("!(*.test).ts", "a.test.ts")).toBe(false);
    expect(await matches("v[[:digit:]].txt", "v1.txt")).toBe(true);
    expect(await matches("v[[:digit:]].txt", "vx.txt")).toBe(false);
  });

  it("matches names anywhere without a slash, paths with one, and excludes with !", async () => {
    const keep = await globFilter(["*.ts", "!src/b.ts"]);
    expect(["src/a.ts", "src/b.ts", "x.ts", "x.js"].filter(keep)).toEqual(["src/a.ts", "x.ts"]);
  });
});

describe(".gitignore semantics (the ignore package)", () => {
  it("treats braces literally, honours escapes, and lets a deeper .gitignore re-include", async () => {
    const tree = tempDir();
    const write = (path: string, text: string) => {
      mkdirSync(join(tree.path, path, ".."), { recursive: true });
      writeFileSync(join(tree.path, path), text);
    };
    write(".gitignore", "{a,b}.txt\n\\#notes\n*.log\nout/**\n!out/keep/\n");
    for (const name of ["a.txt", "b.txt", "{a,b}.txt", "#notes", "notes", "x.log", "out/y.txt", "logs/keep.log", "logs/drop.log"]) write(name, "x\n");
    write("logs/.gitignore", "!keep.log\n");
    try {
      const listed: string[] = [];
      for await (const file of walkFiles(tree.path)) listed.push(file.relative);
      expect(listed).toEqual(["a.txt", "b.txt", "logs/keep.log", "notes"]);
    } finally {
      tree.remove();
    }
  });
});

const backends = [{ name: "node", ripgrep: new Ripgrep(null) }];
// `rg` on PATH, or the binary named by TANDEM_TEST_RG, runs the same cases.
const systemRipgrep = new Ripgrep(process.env.TANDEM_TEST_RG);
if (await systemRipgrep.available()) backends.push({ name: "rg", ripgrep: systemRipgrep });

describe.each(backends)("grep ($name)", ({ ripgrep }) => {
  const grep = grepTool(ripgrep);

  it("lists matching files ./-relative by default, skipping ignored, hidden, binary and node_modules files", async () => {
    const context = fakeContext(dir.path);
    expect((await run(grep, { pattern: "apple" }, context)).textForModel).toBe("./data.txt\n./src/a.ts");
    expect(context.permissions).toEqual([{ kind: "read", intention: `Search in directory: ${dir.path}`, path: dir.path }]);
  });

  it("shows content with and without line numbers, and absolute names with a path", async () => {
    expect((await run(grep, { pattern: "apple", output_mode: "content", "-n": true, glob: "*.txt" })).textForModel).toBe(
      "./data.txt:1:apple\n./data.txt:3:apple pie",
    );
    const data = join(dir.path, "data.txt");
    expect((await run(grep, { pattern: "pie", output_mode: "content", path: data })).textForModel).toBe(`${data}:apple pie`);
    expect((await run(grep, { pattern: "apple", output_mode: "content", "-n": true, path: "src" })).textForModel).toBe(
      `${join(dir.path, "src", "a.ts")}:1:export const apple = 1;`,
    );
  });

  it("counts, ignores case, filters by type, limits and uses context", async () => {
    expect((await run(grep, { pattern: "apple", output_mode: "count" })).textForModel).toBe("./data.txt:2\n./src/a.ts:1");
    expect((await run(grep, { pattern: "APPLE", "-i": true, type: "ts" })).textForModel).toBe("./src/a.ts\n./src/view.tsx");
    expect((await run(grep, { pattern: "apple", head_limit: 1 })).textForModel).toBe("./data.txt");
    expect((await run(grep, { pattern: "four", output_mode: "content", "-n": true, "-C": 1, path: "src/deep" })).textForModel).toBe(
      [`${dir.path}/src/deep/c.js-3-three`, `${dir.path}/src/deep/c.js:4:four`, `${dir.path}/src/deep/c.js-5-five`].join("\n"),
    );
  });

  it("matches across lines in multiline mode", async () => {
    expect((await run(grep, { pattern: "apple.banana", multiline: true, output_mode: "content", "-n": true })).textForModel).toBe(
      "./data.txt:1:apple\n./data.txt:2:banana",
    );
  });

  it("reports no matches and a missing path", async () => {
    expect((await run(grep, { pattern: "zebra" })).textForModel).toBe("No matches found.");
    const missing = join(dir.path, "nope");
    expect((await run(grep, { pattern: "x", path: "nope" })).textForModel).toBe(
      `Error: rg: ${missing}: IO error for operation on ${missing}: No such file or directory (os error 2)`,
    );
  });

  it("asks with the real path for a symlink leading outside, and searches nothing when denied", async () => {
    const context = fakeContext(dir.path, { decide: denyAll });
    const outcome = await run(grep, { pattern: "apple", path: "far" }, context);
    expect(outcome.resultType).toBe("rejected");
    expect(context.permissions).toEqual([{ kind: "read", intention: `Search in directory: ${outside.path}`, path: outside.path }]);
  });
});

describe.each(backends)("glob ($name)", ({ ripgrep }) => {
  const glob = globTool(ripgrep);

  it("finds files by pattern, sorted, ./-relative without a path and absolute with one", async () => {
    const context = fakeContext(dir.path);
    expect((await run(glob, { pattern: "**/*.ts" }, context)).textForModel).toBe("./src/a.ts\n./src/b.ts");
    expect(context.permissions).toEqual([{ kind: "read", intention: `Search for files matching pattern in: ${dir.path}`, path: dir.path }]);
    expect((await run(glob, { pattern: "*.{js,tsx}", path: "src" })).textForModel).toBe(
      `${dir.path}/src/deep/c.js\n${dir.path}/src/view.tsx`,
    );
    expect((await run(glob, { pattern: "src/*.ts" })).textForModel).toBe("./src/a.ts\n./src/b.ts");
  });

  it("finds hidden files only when the pattern names them, and says when nothing matched", async () => {
    expect((await run(glob, { pattern: "**/secret.txt" })).textForModel).toBe("No files matched the pattern.");
    expect((await run(glob, { pattern: ".hidden/*.txt" })).textForModel).toBe("./.hidden/secret.txt");
  });
});
