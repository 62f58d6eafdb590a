/**
 * A session scope on its own, for testing subsystems without a `Session`: a real emitter writing a
 * real event log in a fresh folder, the runtime's provider clients pointed at the testkit's
 * scripted model server over real HTTP, and clients that stand in for an application at the
 * client port (they receive events and answer the runtime's requests with the handlers given).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionCreateParams, SessionEvent, SessionEventType } from "@tandem/protocol";
import { ModelServer, parseScript } from "@tandem/testkit";
import { profileFor } from "../../src/compat/profile.js";
import { Logger } from "../../src/log.js";
import { defaultRetryPolicy } from "../../src/loop/retry.js";
import type { ClientPort } from "../../src/ports/clients.js";
import { createModelClient } from "../../src/providers/resolve.js";
import { SessionEmitter } from "../../src/session/emitter.js";
import { SessionScope, type ScopeServices } from "../../src/session/scope.js";
import { FileSessionStore } from "../../src/store/session-store.js";

/** A client at the client port: it records the events it receives and answers requests by method. */
export class ScriptedClient implements ClientPort {
  private static nextId = 1;
  readonly id = ScriptedClient.nextId++;
  isOpen = true;
  /** The types of the events delivered to this client, in order. */
  readonly eventTypes: string[] = [];
  /** The requests the runtime made of this client, in order. */
  readonly requests: Array<{ method: string; params: unknown }> = [];

  constructor(private readonly handlers: Record<string, (params: unknown) => unknown> = {}) {}

  deliverSessionEvent(_sessionId: string, _eventJson: string, eventType?: string): void {
    if (eventType) this.eventTypes.push(eventType);
  }

  async sendRequest<R>(method: string, params: unknown): Promise<R> {
    this.requests.push({ method, params });
    const handle = this.handlers[method];
    if (!handle) throw new Error(`no handler for ${method}`);
    return (await handle(params)) as R;
  }
}

/** A scope, its scripted model server and everything it wrote. */
export interface ScopeWorld {
  scope: SessionScope;
  model: ModelServer;
  /** Every event the scope's emitter emitted, in order. */
  events: SessionEvent[];
  /** The events of one type emitted so far. */
  eventsOf<T extends SessionEventType>(type: T): Array<Extract<SessionEvent, { type: T }>>;
  dispose(): Promise<void>;
}

/**
 * Builds a scope for session `s1` whose model client is the runtime's OpenAI-compatible client
 * pointed at a scripted model server (serving `scripts`, YAML text).
 *
 * @example
 * const world = await scopeWorld({ scripts: ["name: hi\nsteps:\n  - reply: { content: hello }\n"] });
 * try { ... } finally { await world.dispose(); }
 */
export async function scopeWorld(options: { scripts?: readonly string[]; config?: SessionCreateParams } = {}): Promise<ScopeWorld> {
  const model = new ModelServer();
  for (const script of options.scripts ?? []) model.addScript(parseScript(script));
  const { url } = await model.start();
  const home = mkdtempSync(join(tmpdir(), "tandem-scope-"));
  const logger = new Logger("warning", () => undefined);
  const store = new FileSessionStore(home, logger);
  const sessionId = "s1";
  const emitter = new SessionEmitter(sessionId, store.openEventLog(sessionId), null);
  const events: SessionEvent[] = [];
  emitter.addListener((event) => events.push(event));
  const services: ScopeServices = {
    logger,
    protocolVersion: 3,
    retryPolicy: { ...defaultRetryPolicy, maxRetries: 0 },
    maxModelCallsPerTurn: 10,
    hookTimeoutMs: 5_000,
    createModelClient: (config) => createModelClient({ type: "openai", baseUrl: url }, { env: {} }, { model: config.model }),
    compaction: { timeoutMs: 5_000, knownWindow: () => undefined, fetchWindow: async () => undefined },
    sandbox: { bwrapPath: "bwrap", platform: process.platform },
  };
  const config: SessionCreateParams = { model: "gpt-4.1", ...options.config };
  const scope = new SessionScope({
    sessionId,
    config,
    workingDirectory: home,
    workspacePath: join(home, "session-state", sessionId),
    files: store.files(sessionId),
    model: config.model ?? "gpt-4.1",
    emitter,
    services,
    startTime: new Date(),
    profile: profileFor("1.0"),
  });
  return {
    scope,
    model,
    events,
    eventsOf: <T extends SessionEventType>(type: T) => events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type),
    async dispose() {
      await emitter.close();
      await model.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
