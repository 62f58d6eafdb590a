/**
 * The import graph of a TypeScript source folder, read with the TypeScript compiler's parser:
 * every relative `import`/`export … from` (type-only ones included, since a type couples two files
 * as much as a value does) and every `import("…")`, resolved to the file it names.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** One import of one file by another; paths are relative to the source root, with `/`. */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import type`, or every imported name marked `type`. */
  typeOnly: boolean;
  /** `import("…")`: loaded on first use. */
  dynamic: boolean;
}

/** Every `.ts` file under `root` (declaration files left out), relative to it. */
export function sourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) found.push(relative(root, path).split(sep).join("/"));
    }
  };
  walk(root);
  return found.sort();
}

/** The imports of every source file under `root` that name another file under it (packages are left out). */
export function readImportGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root)) {
    const path = join(root, file);
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean): void => {
      if (!specifier.startsWith(".")) return;
      const target = resolveSpecifier(dirname(path), specifier);
      if (target === undefined) throw new Error(`${file}: cannot resolve ${specifier}`);
      edges.push({ from: file, to: relative(root, target).split(sep).join("/"), typeOnly, dynamic });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, importIsTypeOnly(node), false);
      else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, node.isTypeOnly, false);
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument && ts.isStringLiteral(argument)) add(argument.text, false, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

/** `./x.js` → `x.ts` (or `x/index.ts`), as the compiler's NodeNext resolution maps ESM specifiers. */
function resolveSpecifier(folder: string, specifier: string): string | undefined {
  const named = resolve(folder, specifier);
  const candidates = [named.replace(/\.js$/, ".ts"), `${named}.ts`, join(named, "index.ts")];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/**
 * The import cycles between files: each strongly connected group of two or more files (or a file
 * importing itself), its files sorted, the groups sorted by their first file.
 */
export function fileCycles(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  // Tarjan's algorithm, iterative so deep chains cannot overflow the stack.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  for (const start of files) {
    if (order.has(start)) continue;
    const work: Array<{ file: string; nextIndex: number }> = [{ file: start, nextIndex: 0 }];
    order.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = next.get(frame.file) ?? [];
      if (frame.nextIndex < targets.length) {
        const target = targets[frame.nextIndex++]!;
        if (!order.has(target)) {
          order.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, nextIndex: 0 });
        } else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file)!, order.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== order.get(frame.file)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.file);
      const selfImport = group.length === 1 && targets.includes(frame.file);
      if (group.length > 1 || selfImport) groups.push(group.sort());
    }
  }
  return groups.sort((left, right) => left[0]!.localeCompare(right[0]!));
}
