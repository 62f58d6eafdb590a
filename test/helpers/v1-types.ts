import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * One value a client received, and the official SDK 1.0.x type it must have: `SessionEvent` for
 * events, or a type expression over the SDK's API for a result (e.g.
 * `Awaited<ReturnType<CopilotSession["rpc"]["mode"]["get"]>>`).
 */
export interface ReceivedValue {
  /** Where it came from, for the failure message (e.g. `custom tool: event 12`). */
  label: string;
  type: string;
  value: unknown;
}

/** A value that does not have its declared 1.0.x type, with the compiler's reason. */
export interface TypeViolation {
  label: string;
  value: unknown;
  reason: string;
}

/** A file the compiler sees but that is never written: beside the tests, so `copilot-sdk-v1` resolves from the repository. */
const virtualFile = fileURLToPath(new URL("../__received-values.check.ts", import.meta.url));

/**
 * Checks values received from the runtime against the official SDK 1.0.x's own declared types
 * (`copilot-sdk-v1`'s generated `session-events.d.ts` and `rpc.d.ts`, as installed): each value
 * becomes an object literal assigned to its type, and the TypeScript compiler checks them — enum
 * spellings, required fields, field types and, for object literals, fields the type does not know.
 * Returns every violation (none: all values conform).
 *
 * @example
 * const violations = checkAgainstV1Types([{ label: "abort", type: "SessionEvent", value: event }]);
 * expect(violations).toEqual([]);
 */
export function checkAgainstV1Types(values: readonly ReceivedValue[]): TypeViolation[] {
  const lines = ['import type { CopilotClient, CopilotSession, SessionEvent } from "copilot-sdk-v1";', "export {};"];
  const lineOf: number[] = [];
  values.forEach((received, index) => {
    lineOf.push(lines.length);
    lines.push(`const value${index}: ${received.type} = ${JSON.stringify(received.value)};`);
  });
  lines.push("type Unused = CopilotClient | CopilotSession | SessionEvent;");
  const source = `${lines.join("\n")}\n`;

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
    noUnusedLocals: false,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === virtualFile ? ts.createSourceFile(fileName, source, languageVersion, true) : getSourceFile(fileName, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === virtualFile || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => (fileName === virtualFile ? source : readFile(fileName));

  const program = ts.createProgram([virtualFile], options, host);
  const file = program.getSourceFile(virtualFile);
  if (!file) throw new Error("the compiler did not take the generated file");
  const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  const violations: TypeViolation[] = [];
  for (const diagnostic of diagnostics) {
    const line = diagnostic.start === undefined ? -1 : file.getLineAndCharacterOfPosition(diagnostic.start).line;
    const index = lineOf.indexOf(line);
    const reason = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (index === -1) throw new Error(`the type check itself failed (line ${line + 1}): ${reason}`);
    const received = values[index] as ReceivedValue;
    violations.push({ label: received.label, value: received.value, reason });
  }
  return violations;
}
