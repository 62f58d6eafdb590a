import type { ModelToolCall } from "../../ports/conversation.js";
import { ProviderError } from "../errors.js";
import type { WireToolCallDelta } from "./wire.js";

interface AssembledCall {
  /** The wire `index` (missing for Gemini's OpenAI compatibility). */
  index: number | undefined;
  /** The id the server sent, if any. */
  wireId: string | undefined;
  name: string | undefined;
  rawArguments: string;
}

/**
 * Assembles the tool calls of a streamed answer from their deltas. A call's first delta brings
 * its `index`, `id` and `function.name`; later deltas of the same index add to
 * `function.arguments`, which is kept as the raw text the model produced. A delta at a known index
 * starts another call only when it names a different function, carries a different id, or starts
 * a new JSON value after complete arguments (servers that put every call at index 0). Deltas
 * without an index are matched by id, else continue the last call.
 *
 * @example
 * const calls = new ToolCallAssembler();
 * calls.accept({ index: 0, id: "call_1", function: { name: "get_weather", arguments: "" } });
 * calls.accept({ index: 0, function: { arguments: '{"city":"Paris"}' } });
 * calls.finish(undefined); // [{ id: "call_1", name: "get_weather", rawArguments: '{"city":"Paris"}' }]
 */
export class ToolCallAssembler {
  private readonly calls: AssembledCall[] = [];
  /** The call each index currently continues. */
  private readonly byIndex = new Map<number, AssembledCall>();

  /** Takes one entry of a delta's `tool_calls`. */
  accept(delta: WireToolCallDelta): void {
    const index = typeof delta.index === "number" ? delta.index : undefined;
    const wireId = nonBlank(delta.id);
    const name = nonBlank(delta.function?.name);
    const argumentsDelta = typeof delta.function?.arguments === "string" ? delta.function.arguments : "";
    let call = this.continuedCall(index, wireId, name, argumentsDelta);
    if (!call) {
      call = { index, wireId, name, rawArguments: "" };
      this.calls.push(call);
      if (index !== undefined) this.byIndex.set(index, call);
    }
    call.wireId ??= wireId;
    call.name ??= name;
    call.rawArguments += argumentsDelta;
  }

  /**
   * The assembled calls, ordered by index (when every call has one). Calls without an id get a
   * generated one, as do repeated ids (also ids in `usedIds`, which collects the ids given out, so
   * that the calls of several choices can share it). A call that never got a name fails the answer.
   */
  finish(providerCallId: string | undefined, usedIds: Set<string> = new Set()): ModelToolCall[] {
    const ordered = this.calls.every((call) => call.index !== undefined) ? [...this.calls].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : this.calls;
    return ordered.map((call) => {
      if (call.name === undefined) {
        throw new ProviderError("Model provider error: Expected 'function.name' to be a string.", "provider", undefined, providerCallId, false, undefined);
      }
      const id = call.wireId !== undefined && !usedIds.has(call.wireId) ? call.wireId : generateToolCallId(usedIds);
      usedIds.add(id);
      return { id, name: call.name, rawArguments: call.rawArguments };
    });
  }

  private continuedCall(index: number | undefined, wireId: string | undefined, name: string | undefined, argumentsDelta: string): AssembledCall | undefined {
    if (index === undefined) {
      const withId = wireId !== undefined ? this.calls.find((call) => call.wireId === wireId) : undefined;
      if (withId) return name === undefined || name === withId.name ? withId : undefined;
      return name !== undefined ? undefined : this.calls.at(-1);
    }
    const current = this.byIndex.get(index);
    if (!current || name === undefined || current.name === undefined) return current;
    if (name !== current.name) return undefined;
    if (wireId !== undefined && current.wireId !== undefined && wireId !== current.wireId) return undefined;
    if (startsJsonValue(argumentsDelta) && isCompleteJson(current.rawArguments)) return undefined;
    return current;
  }
}

/**
 * A random 16-character id like the AI SDK's `generateId()`, for a tool call the server sent
 * without one; not one of `usedIds`.
 *
 * @example
 * generateToolCallId(new Set()); // "x7Qe0TzK3mP9aBcD"
 */
export function generateToolCallId(usedIds: ReadonlySet<string> = new Set()): string {
  for (;;) {
    let id = "";
    for (let position = 0; position < 16; position++) id += idAlphabet[Math.floor(Math.random() * idAlphabet.length)];
    if (!usedIds.has(id)) return id;
  }
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function nonBlank(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function startsJsonValue(text: string): boolean {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
