/**
 * `Session` keeps what a reader expects on a session (send, abort, attach and detach clients,
 * reconfigure, shut down, its scope and its subsystems); everything else is read from the scope or
 * from the subsystem that owns it. This check counts the class's public members (a getter and its
 * setter once, the constructor not at all) so that the session does not grow back into a hub.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, it } from "vitest";

const sessionFile = fileURLToPath(new URL("../../packages/runtime/src/session/session.ts", import.meta.url));

/** How many public members `Session` may have. Move a member to the scope or a subsystem before raising it. */
const memberBudget = 30;

/** The names of the public members of the class `className` declared in `source`, each once. */
function publicMembers(source: string, className: string): string[] {
  const file = ts.createSourceFile(sessionFile, source, ts.ScriptTarget.Latest, true);
  const declaration = file.statements.find((statement): statement is ts.ClassDeclaration => ts.isClassDeclaration(statement) && statement.name?.text === className);
  if (!declaration) throw new Error(`no class ${className} in ${sessionFile}`);
  const names = new Set<string>();
  for (const member of declaration.members) {
    if (ts.isConstructorDeclaration(member) || member.name === undefined) continue;
    if (ts.isPrivateIdentifier(member.name)) continue;
    if (ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
    names.add(member.name.getText(file));
  }
  return [...names];
}

it(`Session has at most ${memberBudget} public members`, () => {
  const members = publicMembers(readFileSync(sessionFile, "utf8"), "Session");
  expect(members.length, `Session's public members: ${members.join(", ")}`).toBeLessThanOrEqual(memberBudget);
});
