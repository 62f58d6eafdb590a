import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTool } from "../../src/tools/builtin/create.js";
import { editTool } from "../../src/tools/builtin/edit.js";
import { viewTool } from "../../src/tools/builtin/view.js";
import type { Tool } from "../../src/tools/types.js";
import { denyAll, fakeContext, tempDir } from "./helpers.js";

let dir: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;
const view = viewTool({ maxLines: 50, maxBytes: 4096 });
const create = createTool();
const edit = editTool();

beforeEach(() => {
  dir = tempDir();
  outside = tempDir("tandem-outside-");
});
afterEach(() => {
  dir.remove();
  outside.remove();
});

function run(tool: Tool, args: Record<string, unknown>, context = fakeContext(dir.path)) {
  return tool.execute(args, context.context);
}

function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files[path.slice(root.length)] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return files;
}

describe("view", () => {
  beforeEach(() => writeFileSync(join(dir.path, "abc.txt"), "a\nb\nc\n"));

  it("numbers lines, with a final empty line for a trailing newline, and asks a read permission", async () => {
    const context = fakeContext(dir.path);
    const path = join(dir.path, "abc.txt");
    const display = path.slice(1);
    // The display text is the reference runtimes' whole-file diff: every line (split at each newline) as context.
    const shown = `\ndiff --git a/${display} b/${display}\nindex 0000000..0000000 100644\n--- a/${display}\n+++ b/${display}\n@@ -1,4 +1,4 @@\n a\n b\n c\n \n`;
    expect(await run(view, { path }, context)).toEqual({ resultType: "success", textForModel: "1. a\n2. b\n3. c\n4. ", detailedContent: shown });
    expect(context.permissions).toEqual([{ kind: "read", intention: `Read file: ${path}`, path }]);
  });

  it("shows ranges, accepts relative paths, and gives empty text past the end or for empty files", async () => {
    expect((await run(view, { path: "abc.txt", view_range: [2, 2] })).textForModel).toBe("2. b");
    expect((await run(view, { path: "abc.txt", view_range: [2, -1] })).textForModel).toBe("2. b\n3. c\n4. ");
    expect((await run(view, { path: "abc.txt", view_range: [9, 12] })).textForModel).toBe("");
    writeFileSync(join(dir.path, "empty.txt"), "");
    expect((await run(view, { path: "empty.txt" })).textForModel).toBe("");
    expect((await run(view, { path: "abc.txt", view_range: [3, 1] })).resultType).toBe("failure");
  });

  it("lists a directory's entries sorted, top level only, after a List directory permission", async () => {
    mkdirSync(join(dir.path, "sub"));
    writeFileSync(join(dir.path, "sub", "deep.txt"), "");
    writeFileSync(join(dir.path, "B.md"), "");
    const context = fakeContext(dir.path);
    expect((await run(view, { path: dir.path }, context)).textForModel).toBe("B.md\nabc.txt\nsub");
    expect(context.permissions[0]).toEqual({ kind: "read", intention: `List directory: ${dir.path}`, path: dir.path });
  });

  it("asks to read a missing path, then says it does not exist", async () => {
    const context = fakeContext(dir.path);
    const path = join(dir.path, "missing.txt");
    expect(await run(view, { path }, context)).toMatchObject({
      resultType: "failure",
      textForModel: `Path ${path} does not exist. Please provide a valid path.`,
      errorMessage: "Path does not exist",
    });
    expect(context.permissions).toEqual([{ kind: "read", intention: `Read file: ${path}`, path }]);
  });

  it("asks for a view_range on large files unless forced", async () => {
    writeFileSync(join(dir.path, "long.txt"), Array.from({ length: 60 }, (_, index) => `line ${index}`).join("\n"));
    const refused = await run(view, { path: "long.txt" });
    expect(refused.resultType).toBe("failure");
    expect(refused.textForModel).toContain("too large to view at once (60 lines). Use view_range");
    expect((await run(view, { path: "long.txt", view_range: [1, 2] })).textForModel).toBe("1. line 0\n2. line 1");
    expect((await run(view, { path: "long.txt", forceReadLargeFiles: true })).textForModel.split("\n")).toHaveLength(60);
    writeFileSync(join(dir.path, "wide.txt"), "x".repeat(5000));
    expect((await run(view, { path: "wide.txt" })).textForModel).toContain("(5000 bytes)");
  });

  it("returns images as a short text plus an image block", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    writeFileSync(join(dir.path, "pixel.png"), png);
    const outcome = await run(view, { path: "pixel.png" });
    expect(outcome.textForModel).toBe("Viewed image file successfully.");
    expect(outcome.binaryResults).toEqual([{ type: "image", mimeType: "image/png", data: png.toString("base64"), caption: `Image file at path ${join(dir.path, "pixel.png")}` }]);
  });

  it("shows the real path in the permission when a symlink leads outside, and reads nothing when denied", async () => {
    writeFileSync(join(outside.path, "secret.txt"), "top secret");
    symlinkSync(outside.path, join(dir.path, "link"));
    const context = fakeContext(dir.path, { decide: denyAll });
    const outcome = await run(view, { path: "link/secret.txt" }, context);
    expect(outcome.resultType).toBe("rejected");
    expect(outcome.textForModel).not.toContain("top secret");
    const real = join(outside.path, "secret.txt");
    expect(context.permissions).toEqual([{ kind: "read", intention: `Read file: ${real}`, path: real }]);
  });

  it("resolves .. escapes in the permission", async () => {
    const context = fakeContext(dir.path);
    await run(view, { path: `../${outside.path.split("/").at(-1)}` }, context);
    expect(context.permissions[0]).toMatchObject({ path: outside.path, intention: `List directory: ${outside.path}` });
  });

  it("validates arguments before asking", async () => {
    const context = fakeContext(dir.path);
    expect((await run(view, { path: 3 }, context)).textForModel).toBe('Invalid input: "path": Expected string, received number');
    expect(context.permissions).toEqual([]);
  });
});

describe("create", () => {
  it("creates a file after a write permission with a diff, and reports its length", async () => {
    const context = fakeContext(dir.path);
    const path = join(dir.path, "notes.txt");
    const outcome = await run(create, { path, file_text: "one\ntwo\n" }, context);
    const display = path.slice(1);
    // Events show the reference runtimes' form; the code-change totals count the git-style diff.
    const shown = `\ndiff --git a/${display} b/${display}\ncreate file mode 100644\nindex 0000000..0000000\n--- a/dev/null\n+++ b/${display}\n@@ -1,0 +1,2 @@\n+one\n+two\n`;
    const diff = `diff --git a/${display} b/${display}\nnew file mode 100644\n--- /dev/null\n+++ b/${display}\n@@ -0,0 +1,2 @@\n+one\n+two\n`;
    expect(outcome).toEqual({ resultType: "success", textForModel: `Created file ${path} with 8 characters`, detailedContent: shown, fileChange: { path, diff, before: null } });
    expect(context.permissions).toEqual([{ kind: "write", intention: "Create file", fileName: path, diff: shown, newFileContents: "one\ntwo\n" }]);
    expect(context.events).toEqual([{ type: "session.info", data: { infoType: "file_created", message: path } }]);
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
  });

  it("refuses relative paths, existing paths and missing parents without asking", async () => {
    writeFileSync(join(dir.path, "there.txt"), "x");
    const context = fakeContext(dir.path);
    expect((await run(create, { path: "rel.txt", file_text: "" }, context)).textForModel).toBe('Path "rel.txt" is not absolute. Please provide an absolute path.');
    expect((await run(create, { path: join(dir.path, "there.txt"), file_text: "" }, context)).textForModel).toBe(
      `Path ${join(dir.path, "there.txt")} already exists as a file. Use \`view\` to check contents then edit it.`,
    );
    expect((await run(create, { path: dir.path, file_text: "" }, context)).textForModel).toBe(
      `Path ${dir.path} already exists as a directory. Use \`view\` to check contents then edit it.`,
    );
    const parent = join(dir.path, "no", "such");
    expect((await run(create, { path: join(parent, "f.txt"), file_text: "" }, context)).textForModel).toBe(
      `Parent directory ${parent} does not exist. You need to create it before creating the file.`,
    );
    expect(context.permissions).toEqual([]);
    expect(readFileSync(join(dir.path, "there.txt"), "utf8")).toBe("x");
  });

  it("names the real target when the parent is a symlink leading outside", async () => {
    symlinkSync(outside.path, join(dir.path, "out"));
    const context = fakeContext(dir.path, { decide: denyAll });
    await run(create, { path: join(dir.path, "out", "planted.txt"), file_text: "x" }, context);
    expect(context.permissions[0]).toMatchObject({ kind: "write", fileName: join(outside.path, "planted.txt") });
    expect(snapshot(outside.path)).toEqual({});
  });
});

describe("edit", () => {
  const file = () => join(dir.path, "code.ts");
  beforeEach(() => writeFileSync(file(), "const a = 1;\nconst b = 2;\nconst c = 3;\n"));

  it("replaces a unique match after a write permission carrying the diff and the new contents", async () => {
    const context = fakeContext(dir.path);
    const outcome = await run(edit, { path: file(), old_str: "const b = 2;", new_str: "const b = 20;" }, context);
    const display = file().slice(1);
    const diff =
      `diff --git a/${display} b/${display}\n--- a/${display}\n+++ b/${display}\n` +
      "@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n";
    // The reference runtimes' form: the empty text after the final newline is a line of its own.
    const shown =
      `\ndiff --git a/${display} b/${display}\nindex 0000000..0000000 100644\n--- a/${display}\n+++ b/${display}\n` +
      "@@ -1,4 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n \n";
    expect(outcome).toEqual({ resultType: "success", textForModel: `File ${file()} updated with changes.`, detailedContent: shown, fileChange: { path: file(), diff, before: "const a = 1;\nconst b = 2;\nconst c = 3;\n" } });
    expect(context.permissions).toEqual([
      { kind: "write", intention: "Edit file", fileName: file(), diff: shown, newFileContents: "const a = 1;\nconst b = 20;\nconst c = 3;\n" },
    ]);
    expect(readFileSync(file(), "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
  });

  it("explains no match, several matches, identical strings and a missing old_str", async () => {
    const path = file();
    expect((await run(edit, { path, old_str: "nope", new_str: "x" })).textForModel).toBe(
      `No match found: old_str not found in ${path}; no changes made; you might want to try again with correct old_str`,
    );
    expect((await run(edit, { path, old_str: "const", new_str: "let" })).textForModel).toBe(
      `Multiple matches found for old_str in ${path}; no changes made; you might want to try again and be more specific with old_str`,
    );
    const context = fakeContext(dir.path);
    expect((await run(edit, { path, old_str: "a = 1", new_str: "a = 1" }, context)).textForModel).toBe("No changes made: old_str and new_str are the same");
    expect(context.permissions).toHaveLength(1);
    expect((await run(edit, { path, new_str: "x" })).textForModel).toBe("Invalid inputs: old_str is required");
    expect(readFileSync(path, "utf8")).toBe("const a = 1;\nconst b = 2;\nconst c = 3;\n");
  });

  it("reports a missing file like the reference runtime", async () => {
    const path = join(dir.path, "gone.txt");
    expect((await run(edit, { path, old_str: "a", new_str: "b" })).textForModel).toBe(
      `Failed to execute with arguments: {"path":"${path}","old_str":"a","new_str":"b","command":"edit"} due to error: Error: ENOENT: no such file or directory, open '${path}'`,
    );
  });

  it("edits relative paths and shows .. escapes resolved", async () => {
    const context = fakeContext(join(dir.path));
    mkdirSync(join(dir.path, "inner"));
    const innerContext = fakeContext(join(dir.path, "inner"), { decide: denyAll });
    await run(edit, { path: "../code.ts", old_str: "a = 1", new_str: "a = 9" }, innerContext);
    expect(innerContext.permissions[0]).toMatchObject({ fileName: file() });
    expect((await run(edit, { path: "code.ts", old_str: "a = 1", new_str: "a = 9" }, context)).resultType).toBe("success");
  });
});

describe("deny-all", () => {
  it("leaves the file system unchanged when create and edit are denied", async () => {
    writeFileSync(join(dir.path, "keep.txt"), "original\n");
    const before = snapshot(dir.path);
    for (const decide of [denyAll, () => ({ kind: "denied-no-approval-rule-and-could-not-request-from-user" as const })]) {
      const context = fakeContext(dir.path, { decide });
      const created = await run(create, { path: join(dir.path, "new.txt"), file_text: "x" }, context);
      const edited = await run(edit, { path: join(dir.path, "keep.txt"), old_str: "original", new_str: "changed" }, context);
      expect(created.resultType === "denied" || created.resultType === "rejected").toBe(true);
      expect(edited.resultType === "denied" || edited.resultType === "rejected").toBe(true);
      expect(context.permissions.map((request) => request.kind)).toEqual(["write", "write"]);
    }
    expect(snapshot(dir.path)).toEqual(before);
  });
});
