import { parseScript } from "@tandem/testkit";
import type { TestWorld } from "./harness.js";
import type { RawClient, WireMessage } from "./raw-client.js";

type Event = { type: string; data: Record<string, unknown> };

/** The session event a `session.event` notification carries. */
export const eventOf = (message: WireMessage): Event => (message.params as { event: Event }).event;

/** Matches the `session.event` of `type` whose data names `callId`. */
export const isEvent = (type: string, callId: string) => (message: WireMessage) =>
  message.method === "session.event" && eventOf(message).type === type && JSON.stringify(eventOf(message).data).includes(`"${callId}"`);

/** One bash call of the model as the application saw it. */
export interface BashRun {
  permission: Record<string, unknown> | undefined;
  complete: { success: boolean; sandboxed?: boolean; result?: { content: string }; error?: { message: string } };
  text: string;
}

/**
 * Bash calls of the fake model, one per turn, in sessions of a runtime driven by a {@link RawClient}.
 * Each session's script is matched on its first prompt and grows by one bash call and one reply per
 * call; the application approves (or denies) each command.
 *
 * @example
 * const bash = new ScriptedBash(world, client, "sandbox");
 * const run = await bash.run(sessionId, { command: "echo hi" });
 */
export class ScriptedBash {
  private readonly scripts = new Map<string, { match: string; steps: unknown[] }>();
  private calls = 0;

  constructor(
    private readonly world: TestWorld,
    private readonly client: RawClient,
    private readonly name: string,
  ) {}

  /** Scripts the call and sends its prompt; answers the call's id and number. */
  async send(sessionId: string, bashArgs: Record<string, unknown>): Promise<{ callId: string; step: number; sentAt: number }> {
    const step = ++this.calls;
    const callId = `call_${this.name}_${step}`;
    const prompt = `${this.name} step ${step}`;
    const script = this.scripts.get(sessionId) ?? { match: prompt, steps: [] };
    this.scripts.set(sessionId, script);
    script.steps.push(
      { reply: { toolCalls: [{ id: callId, name: "bash", arguments: { description: "A sandboxed command", ...bashArgs } }] } },
      { expect: { lastRole: "tool" }, reply: { content: `Done ${step}.` } },
    );
    this.world.model.clearScripts();
    for (const [id, each] of this.scripts) this.world.model.addScript(parseScript(JSON.stringify({ name: `${this.name}-${id}`, ...each }), `${this.name}-${id}.yaml`));
    const sentAt = this.client.received.length;
    await this.client.request("session.send", { sessionId, prompt });
    return { callId, step, sentAt };
  }

  /** Scripts the call, sends it and approves the command once asked; answers the call's id and number. */
  async start(sessionId: string, bashArgs: Record<string, unknown>): Promise<{ callId: string; step: number }> {
    const { callId, step } = await this.send(sessionId, bashArgs);
    const asked = eventOf(await this.client.waitFor(isEvent("permission.requested", callId), 30_000)).data as { requestId: string };
    await this.client.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId: asked.requestId, result: { kind: "approved" } });
    return { callId, step };
  }

  /**
   * One bash call, approved (or denied with `approve` false) when the application is asked; answers
   * once the turn is over (the model's reply after it, or idle after a denial).
   */
  async run(sessionId: string, bashArgs: Record<string, unknown>, approve = true): Promise<BashRun> {
    const { callId, step, sentAt } = await this.send(sessionId, bashArgs);
    const first = await Promise.race([
      this.client.waitFor(isEvent("permission.requested", callId), 30_000),
      this.client.waitFor(isEvent("tool.execution_complete", callId), 30_000),
    ]);
    let permission: Record<string, unknown> | undefined;
    if (eventOf(first).type === "permission.requested") {
      const data = eventOf(first).data as { requestId: string; permissionRequest: Record<string, unknown> };
      permission = data.permissionRequest;
      await this.client.request("session.permissions.handlePendingPermissionRequest", {
        sessionId,
        requestId: data.requestId,
        result: approve ? { kind: "approved" } : { kind: "denied-interactively-by-user" },
      });
    }
    const complete = eventOf(await this.client.waitFor(isEvent("tool.execution_complete", callId), 60_000)).data as BashRun["complete"];
    if (approve) {
      await this.client.waitFor((message) => message.method === "session.event" && eventOf(message).type === "assistant.message" && JSON.stringify(eventOf(message).data).includes(`Done ${step}.`), 30_000);
    } else {
      // A denial ends the turn without asking the model again: its reply step is never used.
      this.scripts.get(sessionId)?.steps.pop();
      await this.client.waitFor((message) => this.client.received.indexOf(message) > sentAt && message.method === "session.event" && eventOf(message).type === "session.idle", 30_000);
    }
    return { permission, complete, text: complete.result?.content ?? complete.error?.message ?? "" };
  }
}
