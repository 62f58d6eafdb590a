/**
 * `web_fetch` follows redirects by hand through the real runtime, against two real HTTP servers
 * on different ports of 127.0.0.1: a redirect to another origin asks a new `url` permission for
 * the full target URL, a denied one sends nothing to the target, and an approve-for-session
 * remembers one origin (scheme, host and port), never a bare host name.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient } from "@tandem/sdk";
import { parseScript } from "@tandem/testkit";
import { afterEach, expect, it } from "vitest";
import { scriptsDir, startWorld, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;
let tandem: CopilotClient | undefined;
const servers: Server[] = [];

afterEach(async () => {
  await client?.close(true);
  client = undefined;
  await tandem?.forceStop();
  tandem = undefined;
  await world?.dispose();
  world = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP server on 127.0.0.1 that records every path it is asked for. */
async function origin(handle: (path: string, response: ServerResponse) => void): Promise<{ base: string; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.url ?? "");
    handle(request.url ?? "", response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, port, seen };
}

type EventMessage = { event: { type: string; data: Record<string, unknown> } };
const eventData = (message: WireMessage) => (message.params as EventMessage).event.data;
const isEvent = (type: string, where: (data: Record<string, unknown>) => boolean = () => true) => (message: WireMessage) =>
  message.method === "session.event" && (message.params as EventMessage).event.type === type && where(eventData(message));
const requestedUrl = (data: Record<string, unknown>) => (data.permissionRequest as { url?: string }).url;

async function startModel(first: string, second: string): Promise<TestWorld> {
  world = await startWorld([]);
  const path = join(scriptsDir, "web-fetch-redirects.yaml");
  world.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__FIRST__", first).replaceAll("__SECOND__", second), path));
  return world;
}

async function startSession(first: string, second: string): Promise<{ sessionId: string; client: RawClient }> {
  const world = await startModel(first, second);
  client = new RawClient(world.env);
  const { sessionId } = (await client.request("session.create", { requestPermission: true })).result as { sessionId: string };
  await client.request("session.send", { sessionId, prompt: "Please follow the links" });
  return { sessionId, client };
}

/** Waits for the permission request for `url` and answers it. */
async function answer(sessionId: string, url: string, result: unknown): Promise<void> {
  const requested = eventData(await client!.waitFor(isEvent("permission.requested", (data) => requestedUrl(data) === url)));
  const reply = await client!.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId: requested.requestId, result });
  expect(reply.result).toEqual({ success: true });
}

/** The tool results the model saw, from its last request (which carries the whole conversation). */
const toolResults = () =>
  (world!.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages.filter((message) => message.role === "tool");

it("a redirect to another port asks for the full target URL; denied, the target sees no request and the model reads the refusal", async () => {
  const target = await origin((_path, response) => void response.end("secret of B"));
  const start = await origin((path, response) => {
    if (path === "/hop") return void response.writeHead(302, { location: `${target.base}/private?token=1` }).end();
    response.end("plain page of A");
  });
  const { sessionId } = await startSession(`${start.base}/hop`, `${start.base}/again`);

  // The application approves 127.0.0.1 for the session while asked about A …
  await answer(sessionId, `${start.base}/hop`, { kind: "approve-for-session", domain: "127.0.0.1" });
  // … which does not cover 127.0.0.1 on B's port: the redirect target is a new request, with its full URL.
  await answer(sessionId, `${target.base}/private?token=1`, { kind: "reject", feedback: "not that one" });
  await client!.waitFor(isEvent("session.idle"));

  expect(target.seen).toEqual([]);
  expect(start.seen).toEqual(["/hop", "/again"]);
  const [first, second] = toolResults().map((message) => message.content);
  expect(first).toContain(`The redirect target ${target.base}/private?token=1 (redirected from ${start.base}/hop) was not approved`);
  expect(first).not.toContain("secret of B");
  // The second fetch of A was covered by the session approval of A's origin: no new request for it.
  expect(second).toContain("plain page of A");
  const asked = client!.received.filter(isEvent("permission.requested")).map((message) => requestedUrl(eventData(message)));
  expect(asked).toEqual([`${start.base}/hop`, `${target.base}/private?token=1`]);
});

it("an approved redirect target is fetched; its origin approved for the session covers that origin only", async () => {
  const target = await origin((path, response) => void response.end(`B says ${path}`));
  const start = await origin((path, response) => {
    if (path === "/to-b") return void response.writeHead(307, { location: `${target.base}/page` }).end();
    if (path === "/to-localhost-b") return void response.writeHead(302, { location: `http://localhost:${target.port}/other` }).end();
    response.end("A");
  });
  const { sessionId } = await startSession(`${start.base}/to-b`, `${start.base}/to-localhost-b`);

  await answer(sessionId, `${start.base}/to-b`, { kind: "approve-once" });
  await answer(sessionId, `${target.base}/page`, { kind: "approve-for-session", domain: "127.0.0.1" });
  // The second fetch goes to A again (approve-once: asked again) and is redirected to localhost on B's port: another host, asked again.
  await answer(sessionId, `${start.base}/to-localhost-b`, { kind: "approve-once" });
  await answer(sessionId, `http://localhost:${target.port}/other`, { kind: "reject" });
  await client!.waitFor(isEvent("session.idle"));

  expect(target.seen).toEqual(["/page"]);
  const [first] = toolResults().map((message) => message.content);
  expect(first).toContain("B says /page");
});

it("a preToolUse hook that allows the call does not approve where it is redirected: the target is still asked for", async () => {
  const target = await origin((_path, response) => void response.end("secret of B"));
  const start = await origin((path, response) => {
    if (path === "/hop") return void response.writeHead(301, { location: `${target.base}/private` }).end();
    response.end("plain page of A");
  });
  const world = await startModel(`${start.base}/hop`, `${start.base}/again`);
  tandem = new CopilotClient({ env: world.env, logLevel: "error" });
  const asked: string[] = [];
  const session = await tandem.createSession({
    onPermissionRequest: (request) => {
      asked.push(String((request as { url?: unknown }).url));
      return { kind: "denied-interactively-by-user", feedback: "not approved" };
    },
    hooks: { onPreToolUse: () => ({ permissionDecision: "allow" }) },
  });
  const reply = await session.sendAndWait({ prompt: "Please follow the links" });
  expect(reply?.data.content).toBe("Fetched both.");
  expect(asked).toEqual([`${target.base}/private`]);
  expect(target.seen).toEqual([]);
  expect(toolResults()[0]?.content).toContain(`The redirect target ${target.base}/private (redirected from ${start.base}/hop) was not approved`);
});
