/**
 * The in-process test tier: a real {@link Runtime} built in the test process, with the testkit's
 * scripted model server over real HTTP, and a client connected over an in-memory pair of streams
 * with the same Content-Length JSON-RPC framing the runtime serves on stdio and TCP. Tests drive
 * the real method table, sessions, agent loop and store without spawning the runtime binary.
 *
 * Waits are for events: {@link InProcessClient.waitForEvent} resolves when the event arrives and
 * fails (naming what did arrive) only after a generous safety timeout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node.js";
import type { z } from "zod";
import { SessionPermissionsHandlePendingPermissionRequest, type RequestToken, type ResultOf, type SessionEvent, type SessionEventOf, type SessionEventType } from "@tandem/protocol";
import { ModelServer, parseScript, type ModelSpec, type Script } from "@tandem/testkit";
import { parseArgs } from "../../src/args.js";
import { Logger, type LogLevel } from "../../src/log.js";
import { Runtime } from "../../src/runtime.js";
import { ClientConnection } from "../../src/server/connection.js";

type AnyToken = RequestToken<string, z.ZodType, z.ZodType>;

/** What a request token accepts as params (before defaults are applied). */
export type InputOf<T extends AnyToken> = z.input<T["params"]>;

/** One `session.event` notification as the client received it. */
export interface ReceivedEvent {
  sessionId: string;
  event: SessionEvent;
}

/** Which events {@link InProcessClient.waitForEvent} considers. */
export interface EventQuery<T extends SessionEventType> {
  /** Only events of this session. */
  sessionId?: string;
  /** Only events received at or after this index of {@link InProcessClient.events} (see {@link InProcessClient.mark}). */
  from?: number;
  /** Only events for which this holds. */
  where?: (event: SessionEventOf<T>) => boolean;
  /** Safety net for a run that never produces the event; not a timing assumption. */
  timeoutMs?: number;
}

/** Generous: the machine running the tests may be busy. */
const defaultEventTimeoutMs = 20_000;

/**
 * The application side of an in-memory connection to the runtime: typed requests, every session
 * event in arrival order, and waits that resolve on arrival.
 *
 * @example
 * const { sessionId } = await client.request(SessionCreate, {});
 * const mark = client.mark();
 * await client.request(SessionSend, { sessionId, prompt: "hi" });
 * await client.waitForEvent("session.idle", { sessionId, from: mark });
 */
export class InProcessClient {
  /** Every session event received, in arrival order. */
  readonly events: ReceivedEvent[] = [];
  private readonly arrivals = new Set<() => void>();

  constructor(private readonly connection: MessageConnection) {
    connection.onNotification("session.event", (params: ReceivedEvent) => {
      this.events.push(params);
      for (const notify of [...this.arrivals]) notify();
    });
    connection.listen();
  }

  /** Sends a request by its protocol token; resolves with the result or rejects with the JSON-RPC error. */
  request<T extends AnyToken>(token: T, params: InputOf<T>): Promise<ResultOf<T>> {
    return this.connection.sendRequest(token.method, params);
  }

  /** Sends a request by name, for params no schema would let through (hostile input). */
  requestRaw(method: string, params: unknown): Promise<unknown> {
    return this.connection.sendRequest(method, params);
  }

  /** Answers the runtime's requests of `method` (hooks, user input, protocol-2 tool calls). */
  onRequest(method: string, handle: (params: unknown) => unknown): void {
    this.connection.onRequest(method, handle);
  }

  /** The index the next event will have: pass it as `from` to wait only for what comes after. */
  mark(): number {
    return this.events.length;
  }

  /** The events of `type` received so far (of one session when given). */
  eventsOf<T extends SessionEventType>(type: T, sessionId?: string): Array<SessionEventOf<T>> {
    return this.events
      .filter((received) => received.event.type === type && (sessionId === undefined || received.sessionId === sessionId))
      .map((received) => received.event as SessionEventOf<T>);
  }

  /** The types of a session's events, in order, optionally only those in `types`. */
  eventTypes(sessionId: string, types?: readonly SessionEventType[]): string[] {
    return this.events
      .filter((received) => received.sessionId === sessionId && (types === undefined || types.includes(received.event.type)))
      .map((received) => received.event.type);
  }

  /**
   * Resolves with the first event of `type` matching `query`, already received or arriving later.
   * Rejects after `query.timeoutMs` with the types that did arrive, so a failure says where the run stopped.
   */
  waitForEvent<T extends SessionEventType>(type: T, query: EventQuery<T> = {}): Promise<SessionEventOf<T>> {
    const matches = (received: ReceivedEvent): boolean =>
      received.event.type === type &&
      (query.sessionId === undefined || received.sessionId === query.sessionId) &&
      (query.where === undefined || query.where(received.event as SessionEventOf<T>));
    let scanned = query.from ?? 0;
    const findNew = (): SessionEventOf<T> | undefined => {
      for (; scanned < this.events.length; scanned++) {
        const received = this.events[scanned];
        if (received && matches(received)) return received.event as SessionEventOf<T>;
      }
      return undefined;
    };
    const found = findNew();
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timeoutMs = query.timeoutMs ?? defaultEventTimeoutMs;
      const timer = setTimeout(() => {
        this.arrivals.delete(onArrival);
        const seen = this.events.slice(query.from ?? 0).map((received) => received.event.type);
        reject(new Error(`no ${type} event within ${timeoutMs} ms; received since the mark: ${seen.join(", ") || "nothing"}`));
      }, timeoutMs);
      const onArrival = (): void => {
        const event = findNew();
        if (!event) return;
        clearTimeout(timer);
        this.arrivals.delete(onArrival);
        resolve(event);
      };
      this.arrivals.add(onArrival);
    });
  }

  /**
   * Approves every permission request from now on (`approve-once`), as an application with an
   * approve-all handler does. Returns a function that stops approving.
   */
  approveAllPermissions(): () => void {
    const answered = new Set<string>();
    let scanned = this.events.length;
    const approve = (): void => {
      for (; scanned < this.events.length; scanned++) {
        const received = this.events[scanned];
        if (received?.event.type !== "permission.requested" || answered.has(received.event.data.requestId)) continue;
        answered.add(received.event.data.requestId);
        const params = { sessionId: received.sessionId, requestId: received.event.data.requestId, result: { kind: "approve-once" } };
        void this.request(SessionPermissionsHandlePendingPermissionRequest, params).catch(() => undefined);
      }
    };
    this.arrivals.add(approve);
    approve();
    return () => this.arrivals.delete(approve);
  }

  /** Closes the connection (the runtime sees the client leave). */
  close(): void {
    this.connection.dispose();
  }
}

/** What {@link startInProcess} builds the runtime with. */
export interface InProcessOptions {
  /** Model scripts: objects, or YAML text (one script per string). */
  scripts?: ReadonlyArray<Script | string>;
  /** The models `GET /models` lists (default: the testkit's). */
  models?: ModelSpec[];
  /** Extra environment for the runtime (on top of the scripted model's and the scratch home's). */
  env?: Record<string, string>;
  /** Command-line flags, as `tandem` would parse them. */
  argv?: string[];
  /** The runtime's log level (lines are kept in {@link InProcessWorld.logLines}). */
  logLevel?: LogLevel;
}

/** A runtime in the test process, its scripted model and a connected client. */
export interface InProcessWorld {
  runtime: Runtime;
  model: ModelServer;
  client: InProcessClient;
  /** The runtime's state folder (a fresh temporary folder). */
  home: string;
  /** Everything the runtime logged. */
  logLines: string[];
  /** Connects one more client to the same runtime. */
  connect(): InProcessClient;
  /** Closes the clients, shuts the runtime down, stops the model and removes the home folder. */
  dispose(): Promise<void>;
}

/**
 * Starts a scripted model server and a real runtime pointed at it (Copilot API mode, state in a
 * fresh folder), and connects a client over in-memory streams.
 *
 * @example
 * const world = await startInProcess({ scripts: ["name: hi\nsteps:\n  - reply: { content: hello }\n"] });
 * try { ... } finally { await world.dispose(); }
 */
export async function startInProcess(options: InProcessOptions = {}): Promise<InProcessWorld> {
  const model = new ModelServer(options.models ? { models: options.models } : {});
  for (const script of options.scripts ?? []) model.addScript(typeof script === "string" ? parseScript(script) : script);
  const { url } = await model.start();
  const home = mkdtempSync(join(tmpdir(), "tandem-in-process-"));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    COPILOT_HOME: home,
    COPILOT_API_URL: url,
    GH_TOKEN: "test-token",
    TANDEM_RETRY_BASE_MS: "10",
    ...options.env,
  };
  const logLines: string[] = [];
  const logger = new Logger(options.logLevel ?? "warning", (line) => logLines.push(line));
  const runtime = new Runtime({ args: parseArgs(["--stdio", ...(options.argv ?? [])]), env, logger });
  const clients: InProcessClient[] = [];
  const connect = (): InProcessClient => {
    const toRuntime = new PassThrough();
    const toClient = new PassThrough();
    const served = new ClientConnection(toRuntime, toClient, (method, params, from) => runtime.dispatch(method, params, from), logger);
    runtime.adopt(served);
    const client = new InProcessClient(createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toRuntime)));
    clients.push(client);
    return client;
  };
  const client = connect();
  return {
    runtime,
    model,
    client,
    home,
    logLines,
    connect,
    async dispose() {
      for (const connected of clients) connected.close();
      await runtime.shutdown();
      await model.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
