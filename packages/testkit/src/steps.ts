/**
 * Choosing what to serve: which script, which step, and what the step does on
 * this particular hit (hang, error or reply).
 */
import type { MessageSummary } from "./formats/types.js";
import type { ErrorSpec, ExpectSpec, ReplySpec, Script, ScriptStep } from "./script.js";

/** What a step does for one request. */
export type StepOutcome =
  | { kind: "hang" }
  | { kind: "error"; error: ErrorSpec }
  | { kind: "reply"; reply: ReplySpec }
  | { kind: "exhausted" };

/**
 * Picks the script for a request: the only script if there is just one, else the
 * first whose `match` occurs in the first user message, else the default (no `match`).
 */
export function selectScript(scripts: readonly Script[], firstUserText: string | undefined): Script | undefined {
  if (scripts.length === 1) return scripts[0];
  const text = firstUserText ?? "";
  const matched = scripts.find((script) => script.match !== undefined && text.includes(script.match));
  if (matched) return matched;
  return scripts.find((script) => script.match === undefined);
}

/**
 * Decides what the `hit`-th request (0-based) served by `step` gets: first
 * `hangTimes` hangs (all, if unset), then `error.times` errors (all, if unset),
 * then the reply; `exhausted` if the step has nothing left.
 */
export function decideOutcome(step: ScriptStep, hit: number): StepOutcome {
  let remaining = hit;
  if (step.hang) {
    if (step.hangTimes === undefined || remaining < step.hangTimes) return { kind: "hang" };
    remaining -= step.hangTimes;
  }
  if (step.error) {
    if (step.error.times === undefined || remaining < step.error.times) return { kind: "error", error: step.error };
  }
  if (step.reply) return { kind: "reply", reply: step.reply };
  return { kind: "exhausted" };
}

function preview(text: string): string {
  const limit = 200;
  return JSON.stringify(text.length > limit ? `${text.slice(0, limit)}…` : text);
}

/** Checks a step's `expect` against the last message; returns a description of the mismatch, if any. */
export function checkExpectation(expect: ExpectSpec | undefined, last: MessageSummary | undefined): string | undefined {
  if (!expect) return undefined;
  if (!last) return "expected a last message but the request has no messages";
  const problems: string[] = [];
  if (expect.lastRole !== undefined && last.role !== expect.lastRole) {
    problems.push(`expected last message role ${JSON.stringify(expect.lastRole)} but got ${JSON.stringify(last.role)}`);
  }
  if (expect.contains !== undefined && !last.text.includes(expect.contains)) {
    problems.push(`expected last message to contain ${JSON.stringify(expect.contains)} but it was ${preview(last.text)}`);
  }
  return problems.length > 0 ? problems.join("; ") : undefined;
}
