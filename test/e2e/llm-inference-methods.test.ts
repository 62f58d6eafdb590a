/**
 * Model requests the application performs (`llmInference.setProvider`, `httpResponseStart`,
 * `httpResponseChunk`), through the official SDK 1.0.x's `requestHandler` against the real
 * `tandem` and the fake model server: the runtime hands each model HTTP request to the client
 * (with the session id, agent id and interaction type) and reads the answer from the client's
 * frames; a handler that throws fails the turn with its message; an abort reaches the handler's
 * signal; a response frame for an unknown request is refused; one client per runtime performs the
 * requests, and another may once it has gone.
 */
import { CopilotClient as V1Client, CopilotRequestHandler, RuntimeConnection, approveAll, type CopilotRequestContext } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime } from "../helpers/tcp.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

/** A model URL no request can reach directly: only a handler that rewrites it gets an answer. */
const unreachableModelUrl = "http://model-behind-the-app.invalid";

/** What the handler saw of one request. */
interface Seen {
  url: string;
  method: string;
  sessionId?: string;
  agentId?: string;
  interactionType?: string;
}

/** Performs each model request against the real fake model server (the runtime's own URL cannot be reached). */
class ForwardingHandler extends CopilotRequestHandler {
  readonly seen: Seen[] = [];

  constructor(private readonly modelUrl: string) {
    super();
  }

  protected override async sendRequest(request: Request, ctx: CopilotRequestContext): Promise<Response> {
    this.seen.push({ url: request.url, method: request.method, sessionId: ctx.sessionId, agentId: ctx.agentId, interactionType: ctx.interactionType });
    const target = request.url.replace(unreachableModelUrl, this.modelUrl);
    return fetch(new Request(target, request), { signal: ctx.signal });
  }
}

/** Fails every model request the way an application's transport might. */
class ThrowingHandler extends CopilotRequestHandler {
  attempts = 0;

  protected override async sendRequest(): Promise<Response> {
    this.attempts++;
    throw new Error("gateway-refused-the-call");
  }
}

/** Holds every model call (other requests, such as the model list, are performed) until the runtime cancels it. */
class HoldingHandler extends ForwardingHandler {
  entered = false;
  sawAbort = false;

  protected override async sendRequest(request: Request, ctx: CopilotRequestContext): Promise<Response> {
    if (!request.url.endsWith("/chat/completions")) return super.sendRequest(request, ctx);
    this.entered = true;
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    this.sawAbort = true;
    throw new Error("cancelled");
  }
}

function v1Client(env: Record<string, string>, requestHandler: CopilotRequestHandler): V1Client {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error", requestHandler });
  cleanups.push(() => client.forceStop());
  return client;
}

describe("llmInference: the application performs the model requests", () => {
  it("hands each model request to the client with the session's identity and reads the answer from its frames", async () => {
    world = await startWorld(["plain-reply"]);
    const handler = new ForwardingHandler(world.modelUrl);
    const client = v1Client({ ...world.env, COPILOT_API_URL: unreachableModelUrl }, handler);
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const reply = await session.sendAndWait({ prompt: "hi" });
    expect(reply?.data.content).toBe("Hello from the scripted model.");

    const inference = handler.seen.filter((seen) => seen.url.endsWith("/chat/completions"));
    expect(inference).toEqual([
      { url: `${unreachableModelUrl}/chat/completions`, method: "POST", sessionId: session.sessionId, agentId: session.sessionId, interactionType: "conversation-agent" },
    ]);
    // The model server got exactly the request the handler performed.
    expect(world.model.requests.filter((request) => request.path.endsWith("/chat/completions"))).toHaveLength(1);
  });

  it("fails the turn with the handler's error instead of hanging", async () => {
    world = await startWorld(["plain-reply"], { TANDEM_MAX_RETRIES: "0" });
    const handler = new ThrowingHandler();
    const session = await v1Client(world.env, handler).createSession({ onPermissionRequest: approveAll });
    const errors: string[] = [];
    session.on("session.error", (event) => errors.push(event.data.message));
    await session.sendAndWait({ prompt: "hi" }, 60_000).catch(() => undefined);
    await waitFor(() => errors.length > 0, "session.error", 30_000);
    expect(errors.join("\n")).toContain("gateway-refused-the-call");
    expect(handler.attempts).toBeGreaterThan(0);
    expect(world.model.requests.filter((request) => request.path.endsWith("/chat/completions"))).toHaveLength(0);
  });

  it("cancels the handler's request when the turn is aborted", async () => {
    world = await startWorld(["plain-reply"]);
    const handler = new HoldingHandler(world.modelUrl);
    const session = await v1Client({ ...world.env, COPILOT_API_URL: unreachableModelUrl }, handler).createSession({ onPermissionRequest: approveAll });
    await session.send({ prompt: "hi" });
    await waitFor(() => handler.entered, "the handler to get the model request", 30_000);
    await session.abort();
    await waitFor(() => handler.sawAbort, "the handler's signal to fire", 30_000);
  }, 90_000);

  it("refuses response frames for a request it never handed over", async () => {
    world = await startWorld([]);
    const client = v1Client(world.env, new ForwardingHandler(world.modelUrl));
    await client.start();
    await expect(client.rpc.llmInference.httpResponseStart({ requestId: "no-such-request", status: 200, headers: {} })).resolves.toEqual({ accepted: false });
    await expect(client.rpc.llmInference.httpResponseChunk({ requestId: "no-such-request", data: "x", end: true })).resolves.toEqual({ accepted: false });
    // Registering again from the same client is accepted.
    await expect(client.rpc.llmInference.setProvider()).resolves.toEqual({ success: true });
  });

  it("lets one client per runtime perform the requests, and another once it has gone", async () => {
    world = await startWorld(["plain-reply"]);
    const token = "llm-inference-token-0123456789";
    const runtime = await startTcpRuntime({ ...world.env, COPILOT_API_URL: unreachableModelUrl, COPILOT_CONNECTION_TOKEN: token });
    cleanups.push(() => runtime.stop());
    const overTcp = (handler: CopilotRequestHandler): V1Client => {
      const client = new V1Client({ connection: RuntimeConnection.forUri(`127.0.0.1:${runtime.port}`, { connectionToken: token }), logLevel: "error", requestHandler: handler });
      cleanups.push(() => client.forceStop());
      return client;
    };
    const first = overTcp(new ForwardingHandler(world.modelUrl));
    await first.start();
    await expect(overTcp(new ForwardingHandler(world.modelUrl)).start()).rejects.toThrow(/Another client is already the LLM inference provider/);

    await first.forceStop();
    const secondHandler = new ForwardingHandler(world.modelUrl);
    const second = overTcp(secondHandler);
    const session = await second.createSession({ onPermissionRequest: approveAll });
    const reply = await session.sendAndWait({ prompt: "hi" });
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    expect(secondHandler.seen.some((seen) => seen.url.endsWith("/chat/completions"))).toBe(true);
  });
});
