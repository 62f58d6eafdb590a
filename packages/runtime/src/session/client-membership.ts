import type { ClientPort } from "./client-port.js";
import type { ClientRegistration, SessionClients } from "./clients.js";
import type { SessionScope } from "./scope.js";

/**
 * What {@link ClientMembership} changes in its session's scope: the emitter (each attached client
 * is one of its sinks), what each client registered, and the requests waiting for a client.
 */
export type MembershipHost = Pick<SessionScope, "emitter" | "clients" | "pending">;

/**
 * Which clients are attached to a session: attaching adds a client as an event sink with its
 * registration, detaching removes both and abandons the waiting requests nobody left can answer;
 * either announces a change of who answers elicitations (`capabilities.changed`).
 *
 * @example
 * const membership = new ClientMembership(scope, () => rebuildTools());
 * membership.attach(port, registrationOf(params));
 */
export class ClientMembership {
  /**
   * What the clients were last told (or, before a second client joined, what the first one
   * registered). Compared with the state after a change: a client that went away closed its port
   * before it is detached, so the state just before the detach no longer counts it.
   */
  private announced = { elicitation: false, commands: "[]" };

  constructor(
    private readonly host: MembershipHost,
    /** The registrations changed (while clients remain): the session's config and tools follow them. */
    private readonly registrationsChanged: () => void,
  ) {}

  /**
   * Attaches a client with what it registered (see {@link SessionClients}): it receives events from
   * now on, its tools join the session's, and requests it can answer may go to it. A client that
   * attaches again replaces its own registration.
   */
  attach(port: ClientPort, registration: ClientRegistration): void {
    const { emitter, clients } = this.host;
    const listening = emitter.sinkCount > 0;
    if (!emitter.hasSink(port)) emitter.addSink(port);
    clients.register(port, registration);
    this.registrationsChanged();
    this.announceChanges(listening);
  }

  /**
   * Detaches a client: its tools and handlers leave the session. Waiting requests nobody left can
   * answer are abandoned (tool calls to tools no other client provides, permission requests when
   * no client answers them); when no client is left, everything but tool calls and permission
   * requests, which the session manager holds for a resuming client or abandons.
   */
  detach(port: ClientPort): void {
    const { emitter, clients, pending } = this.host;
    if (!emitter.hasSink(port)) return;
    emitter.removeSink(port);
    clients.remove(port);
    this.announceChanges(emitter.sinkCount > 0);
    if (emitter.sinkCount === 0) {
      // Tool calls and permission requests stay for a client that resumes the session: the
      // session manager holds them for a while, or closes the session (which abandons them).
      for (const kind of ["userInput", "elicitation", "exitPlanMode", "command"] as const) pending.abandonAll("disconnected", kind);
      return;
    }
    this.registrationsChanged();
    pending.abandonWhere("tool", (toolName) => toolName === undefined || !clients.provides(toolName), "disconnected");
    if (!clients.anyAnswersPermissions) pending.abandonAll("disconnected", "permission");
  }

  /** Whether a client is attached. */
  isAttached(port: ClientPort): boolean {
    return this.host.emitter.hasSink(port);
  }

  /**
   * `capabilities.changed` when the clients that answer elicitations changed, `commands.changed`
   * when the commands the clients registered changed; told only to clients that were there.
   */
  private announceChanges(tell: boolean): void {
    const { emitter, clients } = this.host;
    const now = { elicitation: clients.anyAnswersElicitation, commands: commandKey(clients) };
    const before = this.announced;
    this.announced = now;
    if (!tell || emitter.sinkCount === 0) return;
    if (now.elicitation !== before.elicitation) emitter.emit("capabilities.changed", { ui: { elicitation: now.elicitation } });
    if (now.commands !== before.commands) {
      const commands = clients.commands().map(({ name, description }) => ({ name, ...(description !== undefined ? { description } : {}) }));
      emitter.emit("commands.changed", { commands });
    }
  }
}

/** The registered commands as one comparable string. */
function commandKey(clients: SessionClients): string {
  return JSON.stringify(clients.commands().map(({ name, description }) => [name, description ?? ""]));
}
