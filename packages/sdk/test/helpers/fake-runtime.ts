import { randomUUID } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import {
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node.js";

/** A request the fake runtime received. */
export interface ReceivedRequest {
  method: string;
  params: any;
}

type Handler = (params: any, connection: MessageConnection) => unknown;

/**
 * A tiny in-process runtime over TCP (127.0.0.1, random port) that speaks vscode-jsonrpc. It records
 * every request, answers with overridable defaults, and can push notifications and requests to the
 * connected client. Connect with `new CopilotClient({ cliUrl: fake.url })`.
 */
export interface FakeRuntime {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Replaces the handler of one method (throw to answer with an error). */
  handle(method: string, handler: Handler): void;
  /** Requests received for `method`, in order. */
  requestsFor(method: string): any[];
  /** Resolves with the params of the `index`-th request for `method` (0 = first), now or when it arrives. */
  waitForRequest(method: string, index?: number): Promise<any>;
  /** Sends a `session.event` notification with a full envelope. */
  emitEvent(sessionId: string, type: string, data: Record<string, unknown>, ephemeral?: boolean): void;
  /** Sends any notification to the client. */
  notify(method: string, params: unknown): void;
  /** Sends a request to the client and returns its answer. */
  request(method: string, params: unknown): Promise<any>;
  /** Closes the current client connection (the server keeps listening). */
  dropConnection(): void;
  /** Number of client connections accepted so far. */
  connectionCount(): number;
  close(): Promise<void>;
}

/** Builds a session event envelope. */
export function makeEvent(type: string, data: Record<string, unknown>, ephemeral?: boolean) {
  return { id: randomUUID(), timestamp: new Date().toISOString(), parentId: null, ...(ephemeral ? { ephemeral } : {}), type, data };
}

export async function startFakeRuntime(options: { protocolVersion?: number | undefined } = {}): Promise<FakeRuntime> {
  const protocolVersion = "protocolVersion" in options ? options.protocolVersion : 3;
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ method: string; index: number; resolve: (params: any) => void }> = [];
  const sockets = new Set<Socket>();
  let current: MessageConnection | undefined;
  let connections = 0;

  const handlers = new Map<string, Handler>([
    ["ping", (params) => ({ message: params?.message ? `pong: ${params.message}` : "pong", timestamp: Date.now(), protocolVersion })],
    ["status.get", () => ({ version: "0.0.0-fake", protocolVersion })],
    ["auth.getStatus", () => ({ isAuthenticated: true, authType: "token", statusMessage: "ok" })],
    ["models.list", () => ({ models: [{ id: "fake-model", name: "Fake", capabilities: { supports: { vision: false }, limits: { max_context_window_tokens: 1000 } } }] })],
    ["session.create", (params) => ({ sessionId: params.sessionId, workspacePath: `/tmp/fake/${params.sessionId}` })],
    ["session.resume", (params) => ({ sessionId: params.sessionId, workspacePath: `/tmp/fake/${params.sessionId}` })],
    ["session.send", () => ({ messageId: randomUUID() })],
    ["session.destroy", () => ({ success: true })],
    ["session.delete", () => ({ success: true })],
    ["session.abort", () => ({ success: true })],
    ["session.getMessages", () => ({ events: [] })],
    ["session.list", () => ({ sessions: [] })],
    ["session.getLastId", () => ({})],
    ["session.log", () => ({ eventId: randomUUID() })],
    ["session.model.switchTo", (params) => ({ modelId: params.modelId })],
    ["session.tools.handlePendingToolCall", () => ({ success: true })],
    ["session.permissions.handlePendingPermissionRequest", () => ({ success: true })],
  ]);

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.setNoDelay(true);
    connections++;
    const connection = createMessageConnection(new StreamMessageReader(socket), new StreamMessageWriter(socket));
    current = connection;
    connection.onRequest(async (method: string, params: unknown) => {
      requests.push({ method, params });
      const received = requests.filter((request) => request.method === method);
      for (const waiter of [...waiters]) {
        if (waiter.method !== method || received.length <= waiter.index) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(received[waiter.index]?.params);
      }
      const handler = handlers.get(method);
      if (!handler) throw new ResponseError(-32601, `Unhandled method ${method}`);
      return handler(params, connection);
    });
    connection.listen();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");

  const requireConnection = () => {
    if (!current) throw new Error("no client connected");
    return current;
  };

  return {
    url: `127.0.0.1:${address.port}`,
    requests,
    handle: (method, handler) => handlers.set(method, handler),
    requestsFor: (method) => requests.filter((r) => r.method === method).map((r) => r.params),
    waitForRequest: (method, index = 0) => {
      const received = requests.filter((r) => r.method === method);
      if (received.length > index) return Promise.resolve(received[index]?.params);
      return new Promise((resolve) => waiters.push({ method, index, resolve }));
    },
    emitEvent: (sessionId, type, data, ephemeral) => {
      void requireConnection().sendNotification("session.event", { sessionId, event: makeEvent(type, data, ephemeral) });
    },
    notify: (method, params) => void requireConnection().sendNotification(method, params),
    request: (method, params) => requireConnection().sendRequest(method, params),
    dropConnection: () => {
      for (const socket of sockets) socket.destroy();
    },
    connectionCount: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
