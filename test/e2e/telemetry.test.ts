/**
 * OpenTelemetry: the SDKs' `telemetry` option makes the runtime export GenAI traces and metrics
 * over OTLP/HTTP (JSON) to a real receiver in the test.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ModelServer } from "@tandem/testkit";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

interface Received {
  path: string;
  contentType: string;
  body: OtlpBody;
}
interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; arrayValue?: { values: Array<{ stringValue?: string }> } };
}
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: OtlpAttribute[];
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status?: { code?: number; message?: string };
}
interface OtlpMetric {
  name: string;
  unit: string;
  histogram?: { dataPoints: Array<{ attributes: OtlpAttribute[]; count: string | number }> };
}
interface OtlpBody {
  resourceSpans?: Array<{ scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
  resourceMetrics?: Array<{ scopeMetrics: Array<{ scope: { name: string }; metrics: OtlpMetric[] }> }>;
}

/** A minimal OTLP/HTTP receiver: accepts `/v1/traces` and `/v1/metrics` and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const contentType = request.headers["content-type"] ?? "";
      const text = Buffer.concat(chunks).toString("utf8");
      received.push({ path: request.url ?? "", contentType, body: contentType.includes("json") ? (JSON.parse(text) as OtlpBody) : {} });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((candidate) => candidate.key === key)?.value;
  if (!value) return undefined;
  if (value.arrayValue) return value.arrayValue.values.map((item) => item.stringValue);
  return value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
};

/** Every span the receiver got. */
const spansOf = (received: Received[]): OtlpSpan[] =>
  received
    .filter((item) => item.path === "/v1/traces")
    .flatMap((item) => item.body.resourceSpans ?? [])
    .flatMap((resource) => resource.scopeSpans)
    .flatMap((scope) => scope.spans);

let world: TestWorld | undefined;
let stopClient: (() => Promise<unknown>) | undefined;
let receiver: Server | undefined;
let failingModel: ModelServer | undefined;

afterEach(async () => {
  await stopClient?.();
  stopClient = undefined;
  receiver?.close();
  await failingModel?.stop();
  failingModel = undefined;
  await world?.dispose();
});

const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  handler: () => "72 degrees",
};

const clients = [
  {
    sdk: "official SDK 0.2.0",
    async converse(env: Record<string, string>, otlpEndpoint: string): Promise<string> {
      const client = new CopilotClient({ cliPath: tandemBin, env, logLevel: "error", telemetry: { otlpEndpoint, sourceName: "tandem-test" } });
      stopClient = () => client.stop();
      const session = await client.createSession({ onPermissionRequest: approveAll, model: "gpt-test", tools: [weatherTool] });
      await session.sendAndWait({ prompt: "weather in Paris?" });
      return session.sessionId;
    },
  },
  {
    sdk: "official SDK 1.0.x",
    async converse(env: Record<string, string>, otlpEndpoint: string): Promise<string> {
      const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error", telemetry: { otlpEndpoint, sourceName: "tandem-test" } });
      stopClient = () => client.stop();
      const session = await client.createSession({ onPermissionRequest: v1ApproveAll, model: "gpt-test", tools: [weatherTool] });
      await session.sendAndWait({ prompt: "weather in Paris?" });
      return session.sessionId;
    },
  },
];

describe.each(clients)("telemetry through $sdk", ({ converse }) => {
  it("exports GenAI spans (turns, tool calls, model calls) and the duration and token metrics over OTLP/HTTP JSON", async () => {
    world = await startWorld(["custom-tool"], { OTEL_METRIC_EXPORT_INTERVAL: "200" });
    const otlp = await startReceiver();
    receiver = otlp.server;
    const sessionId = await converse(world.env, otlp.url);

    const spans = () => otlp.received.filter((item) => item.path === "/v1/traces").flatMap((item) => item.body.resourceSpans ?? []).flatMap((resource) => resource.scopeSpans);
    const metrics = () => otlp.received.filter((item) => item.path === "/v1/metrics").flatMap((item) => item.body.resourceMetrics ?? []).flatMap((resource) => resource.scopeMetrics);
    const metricNames = () => new Set(metrics().flatMap((scope) => scope.metrics.map((metric) => metric.name)));
    const allSpans = () => spans().flatMap((scope) => scope.spans);
    await waitFor(() => allSpans().filter((span) => span.name === "invoke_agent tandem").length >= 1 && allSpans().some((span) => span.name.startsWith("execute_tool")), "the run and tool spans");
    await waitFor(() => metricNames().has("gen_ai.client.token.usage"), "a metrics export with token usage");

    expect(otlp.received.every((item) => item.contentType.startsWith("application/json"))).toBe(true);
    const [scope] = spans();
    expect(scope?.scope.name).toBe("tandem-test");
    const chats = allSpans().filter((span) => span.name === "chat gpt-test");
    expect(chats).toHaveLength(2);
    const chat = chats.find((span) => attribute(span, "gen_ai.response.finish_reasons")?.toString() === "stop")!;
    expect(chat.kind).toBe(3); // CLIENT
    expect(attribute(chat, "gen_ai.operation.name")).toBe("chat");
    expect(attribute(chat, "gen_ai.provider.name")).toBe("copilot");
    expect(attribute(chat, "gen_ai.request.model")).toBe("gpt-test");
    expect(typeof attribute(chat, "gen_ai.usage.input_tokens")).toBe("number");
    expect(BigInt(chat.endTimeUnixNano) >= BigInt(chat.startTimeUnixNano)).toBe(true);
    // One message, one run: its model calls and tool calls sit inside it, in one trace.
    const turns = allSpans().filter((span) => span.name === "invoke_agent tandem");
    expect(turns).toHaveLength(1);
    expect(turns[0]?.parentSpanId ?? "").toBe("");
    expect(new Set(allSpans().map((span) => (span as OtlpSpan & { traceId?: string }).traceId)).size).toBe(1);
    for (const turn of turns) expect(attribute(turn, "gen_ai.conversation.id")).toBe(sessionId);
    const tool = allSpans().find((span) => span.name === "execute_tool get_weather")!;
    expect(attribute(tool, "gen_ai.tool.name")).toBe("get_weather");
    expect(attribute(tool, "gen_ai.tool.call.id")).toBe("call_weather_1");
    expect(turns.map((turn) => turn.spanId)).toContain(tool.parentSpanId);
    for (const call of chats) expect(turns.map((turn) => turn.spanId)).toContain(call.parentSpanId);
    expect(metricNames()).toEqual(new Set(["gen_ai.client.operation.duration", "gen_ai.client.token.usage"]));
  });
});

describe("telemetry of failures", () => {
  it("marks a failed tool call and a failed model call (and its turn) as errors, with error.type on the spans and the duration metric", async () => {
    world = await startWorld(["tool-throws"], { OTEL_METRIC_EXPORT_INTERVAL: "200", TANDEM_MAX_RETRIES: "0" });
    failingModel = new ModelServer();
    failingModel.loadScriptFile(join(scriptsDir, "server-error.yaml"));
    const failing = await failingModel.start();
    const otlp = await startReceiver();
    receiver = otlp.server;
    const client = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error", telemetry: { otlpEndpoint: otlp.url } });
    stopClient = () => client.stop();
    const flaky = {
      name: "flaky",
      description: "Fails",
      parameters: { type: "object", properties: {} },
      handler: () => {
        throw new Error("flaky broke");
      },
    };
    const session = await client.createSession({ onPermissionRequest: approveAll, model: "gpt-test", tools: [flaky] });
    await session.sendAndWait({ prompt: "call the flaky tool" });
    const byok = await client.createSession({ onPermissionRequest: approveAll, model: "byok-model", provider: { type: "openai", baseUrl: failing.url, apiKey: "sk-test" } });
    await expect(byok.sendAndWait({ prompt: "fail please" })).rejects.toThrow(/upstream exploded/);

    const allSpans = () => spansOf(otlp.received);
    const durationPoints = () =>
      otlp.received
        .filter((item) => item.path === "/v1/metrics")
        .flatMap((item) => item.body.resourceMetrics ?? [])
        .flatMap((resource) => resource.scopeMetrics)
        .flatMap((scope) => scope.metrics)
        .filter((metric) => metric.name === "gen_ai.client.operation.duration")
        .flatMap((metric) => metric.histogram?.dataPoints ?? []);
    const conversation = (span: OtlpSpan) => attribute(span, "gen_ai.conversation.id");
    await waitFor(() => allSpans().some((span) => span.name === "chat byok-model"), "the failed model call's span");
    await waitFor(() => allSpans().some((span) => span.name === "invoke_agent tandem" && conversation(span) === byok.sessionId), "the failed turn's span", 15_000);
    await waitFor(() => durationPoints().some((point) => point.attributes.some((item) => item.key === "error.type")), "a duration point with error.type");

    const tool = allSpans().find((span) => span.name === "execute_tool flaky")!;
    expect(tool.status?.code).toBe(2); // ERROR
    expect(attribute(tool, "error.type")).toBeTruthy();
    const chat = allSpans().find((span) => span.name === "chat byok-model")!;
    expect(chat.status?.code).toBe(2);
    expect(attribute(chat, "error.type")).toBe("provider");
    expect(attribute(chat, "http.response.status_code")).toBe(500);
    expect(attribute(chat, "gen_ai.provider.name")).toBe("openai");
    const failedTurn = allSpans().find((span) => span.name === "invoke_agent tandem" && conversation(span) === byok.sessionId)!;
    expect(failedTurn.status?.code).toBe(2);
    expect(attribute(failedTurn, "error.type")).toBeTruthy();
    expect(chat.parentSpanId).toBe(failedTurn.spanId);
    // The turn that went well is not an error.
    const goodTurns = allSpans().filter((span) => span.name === "invoke_agent tandem" && conversation(span) === session.sessionId);
    expect(goodTurns.length).toBeGreaterThan(0);
    for (const turn of goodTurns) expect(turn.status?.code ?? 0).not.toBe(2);
    const errored = durationPoints().find((point) => point.attributes.some((item) => item.key === "error.type"))!;
    expect(errored.attributes).toEqual(expect.arrayContaining([{ key: "error.type", value: { stringValue: "provider" } }, { key: "gen_ai.request.model", value: { stringValue: "byok-model" } }]));
  });
});

describe("telemetry of a sub-agent", () => {
  it("puts the sub-agent's run inside its task call, and the parent run around both", async () => {
    world = await startWorld(["agents-main", "agents-sub"], { OTEL_METRIC_EXPORT_INTERVAL: "200" });
    const otlp = await startReceiver();
    receiver = otlp.server;
    const client = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error", telemetry: { otlpEndpoint: otlp.url } });
    stopClient = () => client.stop();
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      tools: [{ name: "get_secret", description: "Reads the secret", parameters: { type: "object", properties: {} }, handler: () => "denied" }],
    });
    await session.sendAndWait({ prompt: "Please delegate finding the config" });
    const allSpans = () => spansOf(otlp.received);
    await waitFor(() => allSpans().filter((span) => span.name === "invoke_agent tandem").length >= 2 && allSpans().some((span) => span.name === "execute_tool task"), "the run and task spans");
    const task = allSpans().find((span) => span.name === "execute_tool task")!;
    const turns = allSpans().filter((span) => span.name === "invoke_agent tandem");
    const subTurns = turns.filter((turn) => turn.parentSpanId === task.spanId);
    expect(subTurns).toHaveLength(1);
    const mainTurn = turns.find((turn) => turn.spanId === task.parentSpanId)!;
    expect(mainTurn).toBeDefined();
    // The parent turn lasted until its tool calls were done: the sub-agent's run included.
    expect(BigInt(mainTurn.endTimeUnixNano) >= BigInt(task.endTimeUnixNano)).toBe(true);
    for (const turn of subTurns) expect(BigInt(turn.endTimeUnixNano) <= BigInt(task.endTimeUnixNano)).toBe(true);
    const secret = allSpans().find((span) => span.name === "execute_tool get_secret")!;
    expect(subTurns.map((turn) => turn.spanId)).toContain(secret.parentSpanId);
  });
});

describe("telemetry off", () => {
  it("sends nothing when the SDK has no telemetry option", async () => {
    world = await startWorld(["plain-reply"], { OTEL_METRIC_EXPORT_INTERVAL: "100", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" });
    const otlp = await startReceiver();
    receiver = otlp.server;
    const client = new CopilotClient({ cliPath: tandemBin, env: { ...world.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url }, logLevel: "error" });
    stopClient = () => client.stop();
    const session = await client.createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "hello" });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(otlp.received).toEqual([]);
  });
});

describe("telemetry to a file", () => {
  it("writes one message's spans as JSON lines in one trace, with content when asked (official SDK 1.0.x file exporter)", async () => {
    world = await startWorld(["custom-tool"]);
    const client = new V1Client({
      connection: RuntimeConnection.forStdio({ path: tandemBin }),
      env: world.env,
      workingDirectory: world.home,
      logLevel: "error",
      telemetry: { exporterType: "file", filePath: "spans.jsonl", sourceName: "tandem-file-test", captureContent: true },
    });
    stopClient = () => client.stop();
    const session = await client.createSession({ onPermissionRequest: v1ApproveAll, model: "gpt-test", tools: [weatherTool] });
    await session.sendAndWait({ prompt: "weather in Paris?" });
    await client.stop();
    stopClient = undefined;

    // Relative to the runtime's working directory; written at the latest when the runtime stops.
    const lines = readFileSync(join(world.home, "spans.jsonl"), "utf8").trim().split("\n");
    type FileSpan = { type: string; traceId: string; spanId: string; parentSpanId: string; name: string; attributes: Record<string, unknown>; status: { code: number }; instrumentationScope: { name: string } };
    const spans = lines.map((line) => JSON.parse(line) as FileSpan);
    expect(spans.every((span) => span.type === "span" && span.instrumentationScope.name === "tandem-file-test")).toBe(true);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const run = spans.find((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent")!;
    expect(run.parentSpanId).toBe("");
    expect(run.attributes["gen_ai.conversation.id"]).toBe(session.sessionId);
    const chats = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(chat.parentSpanId).toBe(run.spanId);
    expect(String(chats[0]?.attributes["gen_ai.input.messages"])).toContain("weather in Paris?");
    expect(chats.some((chat) => String(chat.attributes["gen_ai.output.messages"]).includes("It is 72 degrees in Paris."))).toBe(true);
    const tool = spans.find((span) => span.name === "execute_tool get_weather")!;
    expect(tool.parentSpanId).toBe(run.spanId);
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Paris"}');
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe("72 degrees");
    expect(spans.every((span) => span.status.code !== 2)).toBe(true);
  });

  it("spans carry no content unless content capture is on", async () => {
    world = await startWorld(["custom-tool"]);
    const client = new V1Client({
      connection: RuntimeConnection.forStdio({ path: tandemBin }),
      env: world.env,
      workingDirectory: world.home,
      logLevel: "error",
      telemetry: { exporterType: "file", filePath: join(world.home, "plain.jsonl") },
    });
    stopClient = () => client.stop();
    const session = await client.createSession({ onPermissionRequest: v1ApproveAll, model: "gpt-test", tools: [weatherTool] });
    await session.sendAndWait({ prompt: "weather in Paris?" });
    await client.stop();
    stopClient = undefined;
    const text = readFileSync(join(world.home, "plain.jsonl"), "utf8");
    expect(text).toContain("execute_tool get_weather");
    expect(text).not.toContain("weather in Paris?");
    expect(text).not.toContain("gen_ai.tool.call.arguments");
  });
});
