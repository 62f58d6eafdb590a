/**
 * The fake model server: HTTP listener, routing, request recording and step dispatch.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicFormat } from "./formats/anthropic.js";
import { chatCompletionsFormat } from "./formats/chat-completions.js";
import { defaultModels, renderModelList, type ModelSpec } from "./formats/models.js";
import { responsesFormat } from "./formats/responses.js";
import { BadRequestError, type ConversationView, type WireFormat, type WireFormatName } from "./formats/types.js";
import { GITHUB_MCP_ROUTE, GitHubMcpEndpoint } from "./github-mcp.js";
import { COPILOT_USER_ROUTE, CopilotUsers } from "./github-users.js";
import { ResponseLifetime } from "./lifetime.js";
import { resolveReply } from "./reply.js";
import { loadScripts, validateScript, type ErrorSpec, type ReplySpec, type Script, type ScriptStep } from "./script.js";
import { SSE_HEADERS, writeSseEvents } from "./sse.js";
import { checkExpectation, decideOutcome, selectScript, type StepOutcome } from "./steps.js";
import { isPlainObject } from "./validate.js";

/** Options of {@link ModelServer}. */
export interface ModelServerOptions {
  /** Scripts to serve (validated like {@link ModelServer.addScript}). */
  scripts?: Script[];
  /** Models listed by `GET /models`; default: `gpt-4.1` and `claude-sonnet-4`. */
  models?: ModelSpec[];
  /** `false`: no `GET /models` route (it answers 404), like a provider that lists no models. */
  listsModels?: boolean;
}

/** One request the server received, recorded as soon as it arrived and completed as it was served. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** URL path without the query string. */
  path: string;
  /** Request headers (lower-case names; repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** Parsed JSON body; undefined when there was none or it was not valid JSON. */
  body: unknown;
  /** Wire format of the route, for model calls. */
  format?: WireFormatName;
  /** Name of the script that served the request. */
  scriptName?: string;
  /** Index of the step that served the request (= model turns in the request history). */
  stepIndex?: number;
  /** What the step did: replied, answered with an error, hung, or had nothing left. */
  outcome?: StepOutcome["kind"];
  /** Set when the step's `expect` did not hold; the server still answered. */
  expectationError?: string;
  /** HTTP status sent (undefined while pending or hanging). */
  status?: number;
  /** Message of the error response sent, if any. */
  error?: string;
  /** `Date.now()` when the request arrived. */
  receivedAt: number;
  /** Which TCP connection carried it: 1 for the first one the server accepted, and so on. */
  connection?: number;
}

const MODEL_CALL_ROUTES: ReadonlyMap<string, WireFormat> = new Map([
  ["/chat/completions", chatCompletionsFormat],
  ["/v1/chat/completions", chatCompletionsFormat],
  ["/responses", responsesFormat],
  ["/v1/responses", responsesFormat],
  ["/messages", anthropicFormat],
  ["/v1/messages", anthropicFormat],
]);
const MODEL_LIST_ROUTES: ReadonlySet<string> = new Set(["/models", "/v1/models"]);
const DEFAULT_MODEL_NAME = "testkit-model";

function normalizeHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const normalized: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    normalized[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return normalized;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `reply` with `{{hit}}` in its content replaced by the request's number for its step. */
function withHitNumber(reply: ReplySpec, hitNumber: number): ReplySpec {
  if (!reply.content?.includes("{{hit}}")) return reply;
  return { ...reply, content: reply.content.replaceAll("{{hit}}", String(hitNumber)) };
}

function sendJson(response: ServerResponse, record: RecordedRequest, status: number, body: unknown): void {
  record.status = status;
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/**
 * A scripted fake model server over real HTTP. Speaks OpenAI chat completions,
 * the OpenAI responses API, Anthropic messages (streaming and not) and the
 * Copilot API model list. Which step answers is derived from the request history
 * alone, so concurrent, resumed and retried sessions all work.
 */
export class ModelServer {
  /**
   * Every request received, in arrival order, except model-list reads (cleared in place by
   * {@link reset}): runtimes read the list on their own schedule, so model calls keep their indexes.
   */
  readonly requests: RecordedRequest[] = [];
  /** The `GET /models` requests, in arrival order (cleared by {@link reset}). */
  readonly modelListRequests: RecordedRequest[] = [];
  /**
   * The Copilot users of GitHub tokens, served at `GET /copilot_internal/user` (the GitHub API's
   * lookup; point the runtime's `COPILOT_DEBUG_GITHUB_API_URL` here). Lookups are not model calls:
   * they are recorded in `copilotUsers.lookups`, not in {@link requests}.
   */
  readonly copilotUsers = new CopilotUsers();
  /**
   * The Copilot API's GitHub MCP server, served at `/mcp` (a runtime in Copilot API mode connects to
   * it). Its requests are recorded in `githubMcp.requests`, not in {@link requests}.
   */
  readonly githubMcp = new GitHubMcpEndpoint();
  /** TCP connections accepted so far (a client that keeps connections alive opens few). */
  connectionsAccepted = 0;
  private readonly scripts: Script[] = [];
  private readonly models: ModelSpec[];
  private readonly servesModelList: boolean;
  private readonly stepHits = new Map<string, number>();
  /** Sequential scripts: the step serving next and how many replies it has served. */
  private readonly cursors = new Map<string, { step: number; served: number }>();
  private readonly sockets = new Set<Socket>();
  private readonly connectionNumbers = new WeakMap<Socket, number>();
  private server: Server | undefined;
  private baseUrl: string | undefined;

  constructor(options: ModelServerOptions = {}) {
    this.models = options.models ?? defaultModels();
    this.servesModelList = options.listsModels ?? true;
    for (const script of options.scripts ?? []) this.addScript(script);
  }

  /** Base URL (`http://host:port`, no trailing slash); throws if the server is not started. */
  get url(): string {
    if (!this.baseUrl) throw new Error("ModelServer is not started");
    return this.baseUrl;
  }

  /** Starts listening (port 0 = a free port) and resolves with the base URL and port. */
  async start(port = 0, host = "127.0.0.1"): Promise<{ url: string; port: number }> {
    if (this.server) throw new Error(`ModelServer is already listening on ${this.baseUrl}`);
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => this.failInternally(response, error));
    });
    server.on("connection", (socket) => {
      this.connectionsAccepted++;
      this.connectionNumbers.set(socket, this.connectionsAccepted);
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    this.server = server;
    this.baseUrl = `http://${urlHost}:${address.port}`;
    return { url: this.baseUrl, port: address.port };
  }

  /** Stops listening and destroys every open connection (keep-alive, streaming or hanging). Never hangs. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.baseUrl = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of this.sockets) socket.destroy();
    });
  }

  /**
   * Validates and adds a script. Throws on a duplicate name or a second default
   * script (one without `match`). Returns the normalized script.
   */
  addScript(script: Script): Script {
    const validated = validateScript(script, script.source);
    const sameName = this.scripts.find((existing) => existing.name === validated.name);
    if (sameName) {
      throw new Error(`${validated.source}: a script named "${validated.name}" is already loaded (from ${sameName.source})`);
    }
    const existingDefault = this.scripts.find((existing) => existing.match === undefined);
    if (validated.match === undefined && existingDefault) {
      throw new Error(
        `${validated.source}: script "${validated.name}" has no \`match\` but "${existingDefault.name}" is already the default script; give one of them a \`match\``,
      );
    }
    this.scripts.push(validated);
    return validated;
  }

  /**
   * Loads a YAML script file (synchronously) and adds its script; a file of several `---`
   * documents adds each of them and returns the first (see {@link ModelServer.loadScriptFiles}).
   */
  loadScriptFile(path: string): Script {
    return this.loadScriptFiles(path)[0]!;
  }

  /** Loads every script of a YAML file (one per `---` document, synchronously) and adds them in order. */
  loadScriptFiles(path: string): Script[] {
    return loadScripts(path).map((script) => this.addScript(script));
  }

  /** Removes all scripts (and their hit counters). */
  clearScripts(): void {
    this.scripts.length = 0;
    this.stepHits.clear();
    this.cursors.clear();
  }

  /** Forgets recorded requests and step hit counters (`error.times` / `hangTimes` start over). Scripts stay loaded. */
  reset(): void {
    this.requests.length = 0;
    this.modelListRequests.length = 0;
    this.githubMcp.requests.length = 0;
    this.stepHits.clear();
    this.cursors.clear();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    response.setHeader("x-request-id", requestId);
    response.setHeader("x-github-request-id", requestId);
    const method = request.method ?? "GET";
    const path = new URL(request.url ?? "/", "http://testkit.invalid").pathname;
    if (method === "GET" && path === COPILOT_USER_ROUTE) {
      request.resume();
      this.copilotUsers.serve(request.headers, response);
      return;
    }
    if (path === GITHUB_MCP_ROUTE) {
      this.githubMcp.serve(method, normalizeHeaders(request.headers), await readBody(request), response);
      return;
    }
    const connection = this.connectionNumbers.get(request.socket);
    const record: RecordedRequest = { method, path, headers: normalizeHeaders(request.headers), body: undefined, receivedAt: Date.now(), ...(connection !== undefined ? { connection } : {}) };
    const listsModels = method === "GET" && MODEL_LIST_ROUTES.has(path);
    (listsModels ? this.modelListRequests : this.requests).push(record);
    const lifetime = new ResponseLifetime(response);
    const rawBody = await readBody(request);
    if (listsModels && !this.servesModelList) {
      this.sendError(response, record, chatCompletionsFormat, { status: 404, message: `no route for ${method} ${path}` });
      return;
    }
    if (listsModels) {
      sendJson(response, record, 200, renderModelList(this.models));
      return;
    }
    const format = MODEL_CALL_ROUTES.get(path);
    if (!format || method !== "POST") {
      this.sendError(response, record, chatCompletionsFormat, { status: 404, message: `no route for ${method} ${path}` });
      return;
    }
    record.format = format.name;
    if (format === anthropicFormat) response.setHeader("request-id", requestId);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch (error) {
      this.sendError(response, record, format, { status: 400, message: `request body is not valid JSON: ${(error as Error).message}` });
      return;
    }
    record.body = body;
    if (!isPlainObject(body)) {
      this.sendError(response, record, format, { status: 400, message: "request body must be a JSON object" });
      return;
    }
    let view: ConversationView;
    try {
      view = format.inspect(body);
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      this.sendError(response, record, format, { status: 400, message: error.message });
      return;
    }
    await this.serveModelCall(response, lifetime, record, format, view, rawBody.length);
  }

  private async serveModelCall(
    response: ServerResponse,
    lifetime: ResponseLifetime,
    record: RecordedRequest,
    format: WireFormat,
    view: ConversationView,
    requestCharacters: number,
  ): Promise<void> {
    const script = selectScript(this.scripts, view.firstUserText);
    if (!script) {
      const loaded = this.scripts.map((candidate) => `"${candidate.name}" (match ${JSON.stringify(candidate.match)})`).join(", ") || "none";
      const message = `no script matches the first user message ${JSON.stringify(view.firstUserText ?? "")}; loaded scripts: ${loaded}`;
      this.sendError(response, record, format, { status: 500, message });
      return;
    }
    record.scriptName = script.name;
    const contentIndex = script.byContent?.findIndex((entry) => view.lastMessage?.text.includes(entry.contains) === true) ?? -1;
    const contentStep = contentIndex >= 0 ? script.byContent?.[contentIndex] : undefined;
    const stepIndex = contentStep ? -1 - contentIndex : script.sequential ? (this.cursors.get(script.name)?.step ?? 0) : view.modelTurns;
    record.stepIndex = stepIndex;
    const step = contentStep ?? script.steps[stepIndex];
    if (!step) {
      const message = script.sequential
        ? `sequential script "${script.name}" has served all of its ${script.steps.length} steps`
        : `script "${script.name}" has no step ${stepIndex} (it has ${script.steps.length} steps; the request history holds ${stepIndex} model turns)`;
      this.sendError(response, record, format, { status: 500, message });
      return;
    }
    record.expectationError = checkExpectation(step.expect, view.lastMessage);
    const hit = this.nextHit(script, stepIndex);
    const outcome = decideOutcome(step, hit);
    record.outcome = outcome.kind;
    if (outcome.kind === "reply" && script.sequential && !contentStep) this.advance(script.name, step);
    if (!(await lifetime.sleep(step.delayMs ?? 0))) return;
    if (outcome.kind === "hang") return;
    if (outcome.kind === "error") {
      this.sendError(response, record, format, outcome.error);
      return;
    }
    if (outcome.kind === "exhausted") {
      const message = `script "${script.name}" step ${stepIndex} has no reply to serve once its hang/error hits are used up`;
      this.sendError(response, record, format, { status: 500, message });
      return;
    }
    const reply = resolveReply(withHitNumber(outcome.reply, hit + 1), {
      model: script.model ?? view.model ?? DEFAULT_MODEL_NAME,
      requestCharacters,
      toolCallIdPrefix: format.toolCallIdPrefix,
    });
    if (!view.stream) {
      sendJson(response, record, 200, format.renderJson(reply, view));
      return;
    }
    await this.stream(response, lifetime, record, step, format.renderStream(reply, view));
  }

  private async stream(
    response: ServerResponse,
    lifetime: ResponseLifetime,
    record: RecordedRequest,
    step: ScriptStep,
    events: ReturnType<WireFormat["renderStream"]>,
  ): Promise<void> {
    record.status = 200;
    response.writeHead(200, SSE_HEADERS);
    response.flushHeaders();
    await writeSseEvents(response, lifetime, events, step.chunkDelayMs ?? 0);
  }

  /** A sequential script's step served one more reply: moves on once it served `times` of them. */
  private advance(scriptName: string, step: ScriptStep): void {
    const cursor = this.cursors.get(scriptName) ?? { step: 0, served: 0 };
    cursor.served++;
    if (cursor.served >= (step.times ?? 1)) {
      cursor.step++;
      cursor.served = 0;
    }
    this.cursors.set(scriptName, cursor);
  }

  /** Counts hits per script step; returns the 0-based index of this hit. */
  private nextHit(script: Script, stepIndex: number): number {
    const key = `${script.name}\u0000${stepIndex}`;
    const hit = this.stepHits.get(key) ?? 0;
    this.stepHits.set(key, hit + 1);
    return hit;
  }

  private sendError(response: ServerResponse, record: RecordedRequest, format: WireFormat, error: ErrorSpec): void {
    const message = error.message ?? `scripted error ${error.status}`;
    record.error = message;
    if (error.retryAfter !== undefined) response.setHeader("retry-after", String(error.retryAfter));
    sendJson(response, record, error.status, format.renderError(error.status, message, error.type, error.code));
  }

  private failInternally(response: ServerResponse, error: unknown): void {
    if (response.headersSent || response.destroyed) {
      response.destroy();
      return;
    }
    const message = `testkit internal error: ${error instanceof Error ? error.message : String(error)}`;
    response.writeHead(500, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message, type: "server_error", param: null, code: null } }));
  }
}
