/**
 * Which provider and model name a model call goes to, through the official SDK 1.0.x against the
 * real `tandem` and the fake model server: the multi-provider registry (`providers` + `models`,
 * selected as `<provider>/<id>`, with a bearer token asked per request and per provider), a custom
 * agent's model, a single provider's `wireModel` / `modelId`, the session's `clientName` in the
 * `User-Agent`, `modelCapabilities.supports.vision` switched through `setModel`, and attached PDFs
 * as documents (with citations when `enableCitations` is set) for an Anthropic provider.
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient as V1Client, RuntimeConnection, approveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

function v1Client(env: Record<string, string>): V1Client {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error" });
  cleanups.push(() => client.forceStop());
  return client;
}

/** The model calls the fake model server received, in order. */
function modelCalls(testWorld: TestWorld): Array<{ model: unknown; headers: Record<string, string>; messages: unknown[] }> {
  return testWorld.model.requests
    .filter((request) => request.path.endsWith("/chat/completions"))
    .map((request) => {
      const body = request.body as { model?: unknown; messages?: unknown[] };
      return { model: body.model, headers: request.headers, messages: body.messages ?? [] };
    });
}

describe("provider registry", () => {
  it("routes <provider>/<id> to its provider with its wire model and a token asked per request and per provider", async () => {
    world = await startWorld(["plain-reply"]);
    const asked: Array<{ providerName: string; sessionId: string }> = [];
    const session = await v1Client(world.env).createSession({
      onPermissionRequest: approveAll,
      model: "alpha/fast",
      providers: [
        {
          name: "alpha",
          type: "openai",
          baseUrl: `${world.modelUrl}/v1`,
          headers: { "X-Provider": "alpha" },
          bearerTokenProvider: async ({ providerName, sessionId }) => {
            asked.push({ providerName, sessionId });
            return `alpha-token-${asked.length}`;
          },
        },
        { name: "beta", type: "openai", baseUrl: `${world.modelUrl}/v1`, apiKey: "beta-key", headers: { "X-Provider": "beta" } },
      ],
      models: [
        { id: "fast", provider: "alpha", wireModel: "wire-fast" },
        { id: "slow", provider: "beta", wireModel: "wire-slow" },
      ],
    });
    await session.sendAndWait({ prompt: "hi" });
    await session.setModel("beta/slow");
    await session.sendAndWait({ prompt: "again" });

    const calls = modelCalls(world);
    expect(calls.map((call) => [call.model, call.headers["x-provider"], call.headers.authorization])).toEqual([
      ["wire-fast", "alpha", "Bearer alpha-token-1"],
      ["wire-slow", "beta", "Bearer beta-key"],
    ]);
    expect(asked).toEqual([{ providerName: "alpha", sessionId: session.sessionId }]);
    // A provider whose token comes per model call is never asked for its model list without one.
    expect(world.model.modelListRequests.filter((request) => !request.headers.authorization)).toEqual([]);
  });

  it("takes a registry model's prompt limit from its config (maxPromptTokens, else maxContextWindowTokens)", async () => {
    world = await startWorld(["plain-reply"]);
    const session = await v1Client(world.env).createSession({
      onPermissionRequest: approveAll,
      model: "alpha/fast",
      providers: [{ name: "alpha", type: "openai", baseUrl: `${world.modelUrl}/v1` }],
      models: [
        { id: "fast", provider: "alpha", maxPromptTokens: 111_111, maxContextWindowTokens: 200_000 },
        { id: "other", provider: "alpha", maxContextWindowTokens: 99_999 },
      ],
    });
    const limits: number[] = [];
    session.on("session.usage_info", (event) => limits.push(event.data.tokenLimit));
    await session.sendAndWait({ prompt: "hi" });
    await session.setModel("alpha/other");
    await session.sendAndWait({ prompt: "again" });
    expect(limits).toEqual([111_111, 99_999]);
  });

  it("reports each custom agent's model in agent.list", async () => {
    world = await startWorld([]);
    const session = await v1Client(world.env).createSession({
      onPermissionRequest: approveAll,
      providers: [{ name: "alpha", type: "openai", baseUrl: `${world.modelUrl}/v1` }],
      models: [{ id: "fast", provider: "alpha" }],
      customAgents: [
        { name: "helper", prompt: "Help.", model: "alpha/fast" },
        { name: "plain", prompt: "Plain." },
      ],
    });
    const { agents } = await session.rpc.agent.list();
    expect(agents.map((agent) => [agent.name, agent.model])).toEqual([
      ["helper", "alpha/fast"],
      ["plain", undefined],
    ]);
  });

  it("sends a single provider's wireModel, else its modelId, and the clientName in the User-Agent", async () => {
    world = await startWorld(["plain-reply"]);
    const client = v1Client(world.env);
    const provider = { type: "openai" as const, baseUrl: `${world.modelUrl}/v1`, apiKey: "key" };
    const wired = await client.createSession({ onPermissionRequest: approveAll, model: "claude-sonnet-4.5", clientName: "acme-desk", provider: { ...provider, wireModel: "deployment-7" } });
    await wired.sendAndWait({ prompt: "hi" });
    const byModelId = await client.createSession({ onPermissionRequest: approveAll, provider: { ...provider, modelId: "gpt-family-x" } });
    await byModelId.sendAndWait({ prompt: "hi" });

    const calls = modelCalls(world);
    expect(calls.map((call) => call.model)).toEqual(["deployment-7", "gpt-family-x"]);
    expect(calls[0]?.headers["user-agent"]).toMatch(/^tandem\/\S+ acme-desk$/);
    expect(calls[1]?.headers["user-agent"]).not.toContain("acme-desk");
    expect((await byModelId.rpc.model.getCurrent()).modelId).toBe("gpt-family-x");
  });
});

describe("vision through modelCapabilities", () => {
  it("leaves tool images out while vision is off and shows them again once setModel turns it on", async () => {
    world = await startWorld([]);
    const workDir = mkdtempSync(join(tmpdir(), "tandem-vision-"));
    cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
    writeFileSync(join(workDir, "pixel.png"), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"));
    const viewPixel = { toolCalls: [{ id: "call_view", name: "view", arguments: { path: "pixel.png" } }] };
    world.model.addScript({
      name: "view-pixel",
      steps: [{ reply: viewPixel }, { reply: { content: "Seen without vision." } }, { reply: { content: "Now with vision." } }],
    });
    const session = await v1Client(world.env).createSession({
      onPermissionRequest: approveAll,
      workingDirectory: workDir,
      modelCapabilities: { supports: { vision: false } },
    });
    await session.sendAndWait({ prompt: "look at the pixel" });
    await session.setModel("claude-sonnet-4.5", { modelCapabilities: { supports: { vision: true } } });
    await session.sendAndWait({ prompt: "and now?" });

    const imageTexts = modelCalls(world).map((call) =>
      call.messages.flatMap((message) => {
        const content = (message as { content?: unknown }).content;
        if (!Array.isArray(content)) return [];
        return content.some((part: { type?: string }) => part.type === "image_url") ? content.filter((part: { type?: string }) => part.type === "text").map((part: { text?: string }) => part.text) : [];
      }),
    );
    expect(imageTexts).toEqual([[], [], [`Image file at path ${join(workDir, "pixel.png")}`]]);
  });
});

describe("attached PDF documents", () => {
  const pdf = { type: "blob" as const, data: Buffer.from("%PDF-1.4\n%%EOF\n", "ascii").toString("base64"), mimeType: "application/pdf", displayName: "report.pdf" };

  it("go to an Anthropic provider as documents, with citations when enableCitations is set", async () => {
    world = await startWorld(["plain-reply"]);
    const client = v1Client(world.env);
    const provider = { type: "anthropic" as const, baseUrl: world.modelUrl, apiKey: "key" };
    const cited = await client.createSession({ onPermissionRequest: approveAll, model: "claude-sonnet-4-5", enableCitations: true, provider });
    await cited.sendAndWait({ prompt: "summarize", attachments: [pdf] });
    const plain = await client.createSession({ onPermissionRequest: approveAll, model: "claude-sonnet-4-5", provider });
    await plain.sendAndWait({ prompt: "summarize", attachments: [pdf] });

    const documents = world.model.requests
      .filter((request) => request.path.endsWith("/messages"))
      .map((request) =>
        ((request.body as { messages: Array<{ content: Array<Record<string, unknown>> }> }).messages ?? [])
          .flatMap((message) => message.content)
          .filter((block) => block.type === "document")
          .map((block) => ({ title: block.title, citations: block.citations, mediaType: (block.source as { media_type?: string }).media_type })),
      );
    expect(documents).toEqual([
      [{ title: "report.pdf", citations: { enabled: true }, mediaType: "application/pdf" }],
      [{ title: "report.pdf", citations: undefined, mediaType: "application/pdf" }],
    ]);
  });

  it("sent to a provider that reads documents become a note when the session moves to one that does not", async () => {
    world = await startWorld(["plain-reply"]);
    const session = await v1Client(world.env).createSession({
      onPermissionRequest: approveAll,
      model: "docs/reader",
      providers: [
        { name: "docs", type: "anthropic", baseUrl: world.modelUrl, apiKey: "key" },
        { name: "chat", type: "openai", baseUrl: `${world.modelUrl}/v1`, apiKey: "key" },
      ],
      models: [
        { id: "reader", provider: "docs", wireModel: "claude-sonnet-4-5" },
        { id: "talker", provider: "chat", wireModel: "gpt-test" },
      ],
    });
    await session.sendAndWait({ prompt: "summarize", attachments: [pdf] });
    await session.setModel("chat/talker");
    await session.sendAndWait({ prompt: "and briefly?" });
    const [call] = modelCalls(world);
    const text = JSON.stringify(call?.messages);
    expect(text).toContain("[report.pdf: an attachment of type application/pdf was not sent; this provider takes only images.]");
    expect(text).not.toContain("data:application/pdf");
  });
});
