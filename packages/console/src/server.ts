import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { checkAccess } from "./auth.js";
import { isConsoleDecision } from "./decisions.js";
import type { SessionHub } from "./hub.js";

/** What the page shows about the model provider. */
export interface ProviderInfo {
  scripted: boolean;
  description: string;
  /** The model configured for new sessions (`TANDEM_MODEL` / `COPILOT_MODEL`), if any. */
  model?: string;
}

/** Everything the HTTP server needs. */
export interface ConsoleServerOptions {
  hub: SessionHub;
  token: string;
  /** The folder with `index.html`, `app.js` and `app.css` (the browser build). */
  webDir: string;
  provider: ProviderInfo;
  defaultCwd: string;
  /** 0 picks a free port. */
  port: number;
}

const MAX_BODY_BYTES = 1_000_000;
const KEEPALIVE_MS = 15_000;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const staticFiles: Record<string, string> = {
  "/app.js": "text/javascript; charset=utf-8",
  "/highlighter.js": "text/javascript; charset=utf-8",
  "/app.css": "text/css; charset=utf-8",
};

/**
 * The console's HTTP server on 127.0.0.1: the page and its assets, a JSON API and one SSE stream
 * per open session. Every request needs the access token.
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<{ server: Server; url: string; port: number }> {
  let port = 0;
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!response.headersSent) sendJson(response, status, { error: message, type: error instanceof HttpError ? "console" : errorType(error) });
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const verdict = checkAccess(request, url, options.token, port);
    if (verdict === "missing") throw new HttpError(401, "access token required: open the URL the console printed");
    if (verdict !== "ok") throw new HttpError(403, verdict === "bad-host" ? "forbidden host" : "wrong access token");
    response.setHeader("cache-control", "no-store");
    response.setHeader("x-content-type-options", "nosniff");
    const path = url.pathname;
    const method = request.method ?? "GET";
    if (method === "GET" && path === "/") return sendPage(response);
    if (method === "GET" && staticFiles[path]) return sendStatic(response, path);
    if (!path.startsWith("/api/")) throw new HttpError(404, "not found");
    // A page from another origin cannot set this header without a preflight, which is never allowed.
    if (method !== "GET" && request.headers["x-tandem-token"] === undefined) throw new HttpError(403, "API writes need the x-tandem-token header");
    return routeApi(request, response, method, path.slice("/api/".length).split("/").map(decodeURIComponent), url);
  }

  async function routeApi(request: IncomingMessage, response: ServerResponse, method: string, parts: string[], url: URL): Promise<void> {
    const { hub } = options;
    const [head, id, action, extra] = parts;
    if (head === "info" && method === "GET") return sendJson(response, 200, { provider: options.provider, defaultCwd: options.defaultCwd });
    if (head === "models" && method === "GET") return sendJson(response, 200, await listModels());
    if (head !== "sessions") throw new HttpError(404, "not found");
    if (!id) {
      if (method === "GET") {
        const sessions = await hub.client.listSessions();
        const rows = await Promise.all(
          sessions.map(async (session) => ({
            sessionId: session.sessionId,
            title: (await hub.titleOf(session.sessionId)) ?? session.summary ?? "",
            cwd: session.context?.cwd ?? "",
            model: (await hub.modelOf(session.sessionId)) ?? "",
            modifiedTime: session.modifiedTime.toISOString(),
          })),
        );
        const listed = new Set(rows.map((row) => row.sessionId));
        for (const [sessionId, created] of hub.created()) {
          if (listed.has(sessionId)) continue;
          const [title, model] = await Promise.all([hub.titleOf(sessionId), hub.modelOf(sessionId)]);
          rows.push({ sessionId, title: title ?? "", cwd: created.cwd, model: model ?? created.model ?? "", modifiedTime: created.createdTime });
        }
        rows.sort((a, b) => b.modifiedTime.localeCompare(a.modifiedTime));
        return sendJson(response, 200, { sessions: rows });
      }
      if (method === "POST") {
        const body = await readJson(request);
        const sessionId = await hub.create({
          model: optionalString(body.model),
          mode: body.mode === "plan" || body.mode === "autopilot" ? body.mode : "interactive",
          workingDirectory: optionalString(body.workingDirectory),
          reasoningEffort: optionalString(body.reasoningEffort) as never,
          worktreeIsolation: body.worktreeIsolation === true,
        });
        return sendJson(response, 200, { sessionId });
      }
    }
    if (!id) throw new HttpError(405, "method not allowed");
    if (!action && method === "DELETE") {
      await hub.delete(id);
      return sendJson(response, 200, { ok: true });
    }
    if (action === "stream" && method === "GET") return stream(response, id);
    if (method === "GET" && action === "queue") return sendJson(response, 200, await hub.queue(id));
    if (method === "GET" && action === "rewind-points") return sendJson(response, 200, await hub.rewindPoints(id));
    if (method === "GET" && action === "commands") return sendJson(response, 200, await hub.commands(id));
    if (method === "GET" && action === "workspace") return sendJson(response, 200, await hub.workspace(id));
    if (method === "DELETE" && action === "queue" && extra) {
      await hub.removeQueued(id, extra);
      return sendJson(response, 200, { ok: true });
    }
    if (method !== "POST") throw new HttpError(405, "method not allowed");
    const body = await readJson(request);
    switch (action) {
      case "send": {
        const prompt = optionalString(body.prompt);
        if (!prompt) throw new HttpError(400, "prompt is required");
        const mode = body.mode === "immediate" || body.mode === "enqueue" ? body.mode : undefined;
        return sendJson(response, 200, { messageId: await hub.send(id, prompt, mode) });
      }
      case "abort":
        await hub.abort(id);
        return sendJson(response, 200, { ok: true });
      case "permission": {
        const requestId = optionalString(body.requestId);
        if (!requestId || !isConsoleDecision(body.decision)) throw new HttpError(400, "requestId and a decision (approve-once, approve-for-session, reject) are required");
        const outcome = await hub.answerPermission(id, requestId, body.decision);
        return sendJson(response, outcome === "answered" ? 200 : 409, { outcome });
      }
      case "ask": {
        const askId = optionalString(body.id);
        if (!askId || typeof body.answer !== "string") throw new HttpError(400, "id and answer are required");
        const outcome = await hub.answerAsk(id, askId, body.answer, body.wasFreeform === true);
        return sendJson(response, outcome === "answered" ? 200 : 409, { outcome });
      }
      case "elicitation": {
        const requestId = optionalString(body.requestId);
        const action = body.action;
        if (!requestId || (action !== "accept" && action !== "decline" && action !== "cancel")) throw new HttpError(400, "requestId and an action (accept, decline, cancel) are required");
        if (action === "accept" && !isFormContent(body.content)) throw new HttpError(400, "content must be an object of strings, numbers, booleans and string lists");
        const outcome = await hub.answerElicitation(id, requestId, action === "accept" ? { action, content: body.content as never } : { action });
        return sendJson(response, outcome === "answered" ? 200 : 409, { outcome });
      }
      case "plan-exit": {
        const requestId = optionalString(body.requestId);
        if (!requestId || typeof body.approved !== "boolean") throw new HttpError(400, "requestId and approved are required");
        const outcome = await hub.answerPlanExit(id, requestId, {
          approved: body.approved,
          ...(optionalString(body.selectedAction) ? { selectedAction: optionalString(body.selectedAction) } : {}),
          ...(optionalString(body.feedback) ? { feedback: optionalString(body.feedback) } : {}),
        });
        return sendJson(response, outcome === "answered" ? 200 : 409, { outcome });
      }
      case "fork":
        return sendJson(response, 200, { sessionId: await hub.fork(id, optionalString(body.eventId)) });
      case "rewind-preview": {
        const eventId = optionalString(body.eventId);
        if (!eventId) throw new HttpError(400, "eventId is required");
        return sendJson(response, 200, await hub.previewRewind(id, eventId));
      }
      case "rewind": {
        const eventId = optionalString(body.eventId);
        if (!eventId) throw new HttpError(400, "eventId is required");
        return sendJson(response, 200, await hub.rewind(id, eventId));
      }
    }
    void url;
    throw new HttpError(404, "not found");
  }

  /**
   * `models.list`, or, for a provider that lists no models (no `GET /models`), no models and why:
   * the page then offers the configured (or the runtime's default) model and sessions still start.
   */
  async function listModels(): Promise<{ models: unknown[]; unavailable?: string; configured?: string }> {
    try {
      return { models: await options.hub.client.listModels() };
    } catch (error) {
      return { models: [], unavailable: error instanceof Error ? error.message : String(error), ...(options.provider.model ? { configured: options.provider.model } : {}) };
    }
  }

  async function stream(response: ServerResponse, sessionId: string): Promise<void> {
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
    const write = (message: unknown) => response.write(`data: ${JSON.stringify(message)}\n\n`);
    let stop: (() => void) | undefined;
    const keepalive = setInterval(() => response.write(": keepalive\n\n"), KEEPALIVE_MS);
    response.on("close", () => {
      clearInterval(keepalive);
      stop?.();
    });
    try {
      stop = await options.hub.watch(sessionId, write);
      if (response.destroyed) stop();
    } catch (error) {
      write({ kind: "error", error: error instanceof Error ? error.message : String(error), type: errorType(error) });
      response.end();
    }
  }

  async function sendPage(response: ServerResponse): Promise<void> {
    const html = await readFile(join(options.webDir, "index.html"), "utf8");
    const token = encodeURIComponent(options.token);
    response.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
      "referrer-policy": "no-referrer",
    });
    response.end(html.replaceAll("__TOKEN__", token));
  }

  async function sendStatic(response: ServerResponse, path: string): Promise<void> {
    const body = await readFile(join(options.webDir, path.slice(1)));
    response.writeHead(200, { "content-type": staticFiles[path] ?? "application/octet-stream" });
    response.end(body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return { server, port, url: `http://127.0.0.1:${port}/?token=${encodeURIComponent(options.token)}` };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "request body too large");
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, "the body must be a JSON object");
}

/** An elicitation answer's content: field values as the MCP spec allows them. */
function isFormContent(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.values(value).every(
    (field) => ["string", "number", "boolean"].includes(typeof field) || (Array.isArray(field) && field.every((item) => typeof item === "string")),
  );
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The error's type as the page shows it: a JSON-RPC code, or the error's class name. */
function errorType(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof (error as { code: unknown }).code === "number") return `rpc ${(error as { code: number }).code}`;
  return error instanceof Error ? error.name : "Error";
}
