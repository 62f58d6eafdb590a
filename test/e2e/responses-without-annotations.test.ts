/**
 * A BYOK responses-API server that leaves `annotations` out of its `output_text` parts (OpenAI
 * always sends the list; some compatible servers do not when there is nothing to annotate): the
 * complete answer is still read, through the official 1.0.x SDK against the real `tandem`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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

/** A responses endpoint answering every call with one complete message whose text part has no `annotations`. */
async function terseResponsesServer(text: string): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // Only model calls are answered (the runtime may also ask for a model list).
      if (request.method !== "POST" || !request.url?.endsWith("/responses")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "resp_terse_1",
          object: "response",
          status: "completed",
          output: [{ id: "msg_1", type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
          usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

describe("BYOK responses API", () => {
  it("reads a complete answer whose output_text parts carry no annotations", async () => {
    world = await startWorld([]);
    const { url, bodies } = await terseResponsesServer("Answered without annotations.");
    const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
    cleanups.push(() => client.forceStop());
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      model: "terse-model",
      provider: { type: "openai", wireApi: "responses", baseUrl: url, apiKey: "byok-key" },
    });
    const reply = await session.sendAndWait({ prompt: "Say OK." });
    expect(reply?.data.content).toBe("Answered without annotations.");
    expect(bodies).toEqual([expect.objectContaining({ model: "terse-model" })]);
  });
});
