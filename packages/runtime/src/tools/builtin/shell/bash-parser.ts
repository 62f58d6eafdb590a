/**
 * The bash parser behind `shell` permission requests: tree-sitter-bash, run by web-tree-sitter.
 *
 * Why: the request must list every command a line will run, including those inside `$(…)`,
 * backticks, `<(…)`, here-documents, functions and `bash -c '…'` strings. A real grammar
 * gets these right where a hand-written splitter cannot; tree-sitter-bash is the grammar coding
 * agents and editors use for exactly this, and it marks what it cannot parse (ERROR/MISSING
 * nodes), so anything not understood can be refused as "not read-only".
 *
 * Packages: `web-tree-sitter` 0.25 (the official WebAssembly runtime: no native code, ESM) and
 * the bash grammar's `.wasm` from `@vscode/tree-sitter-wasm` (pinned; VS Code's prebuilt
 * grammars): no install script, no dependencies, 22 MB unpacked (other grammars included).
 * The `tree-sitter-bash` package also ships the `.wasm` (and is as large, with C sources and
 * native prebuilds), but its install script runs `node-gyp-build` for a native addon we do not
 * use, which compiles from source (needing a C toolchain and Node headers) on platforms it has
 * no prebuild for, failing the runtime's install where that is missing. The grammar is ABI 15,
 * built with tree-sitter 0.25, which web-tree-sitter 0.25 loads (it accepts ABI 13–15;
 * `Language.load` refuses others, and then requests fail closed).
 *
 * Loading: nothing of this is imported until the first shell permission request (dynamic
 * `import()`, kept external in the bundle), so the runtime's cold start is unchanged. Measured
 * on the shared 2-core dev machine (Node 20, the runtime's V8 flags, load average 2–16):
 * import + runtime wasm init + grammar load 35–120 ms (~45 ms when quiet), the first parse
 * 15–65 ms, then a typical command line parses and is analysed in ~0.5 ms; the parser adds
 * ~20 MB RSS (with TurboFan optimising the grammar it was ~75 MB, hence `--liftoff-only` in
 * v8-tuning.ts).
 */
import { createRequire } from "node:module";
import type { Language, Parser, Tree } from "web-tree-sitter";

/** The loaded grammar and the runtime's `Parser` class. */
export interface BashGrammar {
  Parser: typeof Parser;
  language: Language;
}

/** Where the two `.wasm` files are. */
export interface BashWasmFiles {
  runtime: string;
  grammar: string;
}

/** The `.wasm` files of the installed packages, found the way Node finds modules from this file (or the bundle). */
export function installedWasmFiles(): BashWasmFiles {
  const require = createRequire(import.meta.url);
  return {
    runtime: require.resolve("web-tree-sitter/tree-sitter.wasm"),
    grammar: require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"),
  };
}

/**
 * Imports web-tree-sitter, initialises its WebAssembly runtime and loads the bash grammar.
 * Call it once per process (see {@link loadBashGrammar}): a second `Parser.init` replaces the
 * runtime that earlier parsers and grammars live in.
 */
export async function loadBashGrammarFrom(files: BashWasmFiles): Promise<BashGrammar> {
  const { Parser, Language } = await import("web-tree-sitter");
  await Parser.init({ locateFile: () => files.runtime });
  const language = await Language.load(files.grammar);
  return { Parser, language };
}

// The one piece of module state: web-tree-sitter keeps its WebAssembly instance in module state
// of its own (`Parser.init` replaces it for every parser in the process), and a grammar loaded
// into that instance can never be unloaded, so both must be loaded once per process, not once
// per session. Each session's ShellCommandParser still owns its own Parser.
let grammarOnce: Promise<BashGrammar> | undefined;

/** The bash grammar, loaded on the first call and shared by every later one. */
export function loadBashGrammar(): Promise<BashGrammar> {
  grammarOnce ??= loadBashGrammarFrom(installedWasmFiles());
  return grammarOnce;
}

/** Parses bash source synchronously (the tree must be deleted by the caller). */
export interface BashSyntaxParser {
  parse(source: string): Tree;
}

/** How a {@link ShellCommandParser} gets its grammar and reports trouble. */
export interface ShellCommandParserOptions {
  /** Loads the grammar (default: {@link loadBashGrammar}). */
  loadGrammar?: () => Promise<BashGrammar>;
  /** Told once when the grammar cannot be loaded. */
  warn?: (message: string, detail?: unknown) => void;
}

/**
 * A session's bash parser, loaded on first use. When the grammar cannot be loaded, `syntax()`
 * resolves to undefined (and the failure is logged once); callers must then fail closed.
 *
 * @example
 * const parser = new ShellCommandParser({ warn: (message, detail) => logger.warn(message, detail) });
 * const syntax = await parser.syntax();
 * const tree = syntax?.parse("echo $(date)");
 */
export class ShellCommandParser {
  private parser: Parser | undefined;
  private failed = false;
  private readonly loadGrammar: () => Promise<BashGrammar>;
  private readonly warn: (message: string, detail?: unknown) => void;

  constructor(options: ShellCommandParserOptions = {}) {
    this.loadGrammar = options.loadGrammar ?? loadBashGrammar;
    this.warn = options.warn ?? (() => {});
  }

  /** The parser, or undefined when the grammar cannot be loaded. */
  async syntax(): Promise<BashSyntaxParser | undefined> {
    if (this.failed) return undefined;
    if (!this.parser) {
      let grammar: BashGrammar;
      try {
        grammar = await this.loadGrammar();
      } catch (error) {
        this.failed = true;
        this.warn("the bash parser could not be loaded; shell permission requests list each command line as one command that is not read-only", error);
        return undefined;
      }
      // Another call may have created it while this one waited for the grammar.
      this.parser ??= new grammar.Parser().setLanguage(grammar.language);
    }
    const parser = this.parser;
    return {
      parse: (source) => {
        const tree = parser.parse(source);
        if (!tree) throw new Error("the bash parser returned no tree");
        return tree;
      },
    };
  }

  /** Frees the parser; a later `syntax()` makes a new one. */
  dispose(): void {
    this.parser?.delete();
    this.parser = undefined;
  }
}
