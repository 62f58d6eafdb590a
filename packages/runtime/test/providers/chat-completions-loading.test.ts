/**
 * The chat-completions path stays lean: in a fresh Node process, a streamed call, a JSON call and
 * a model list through `createModelClient` never call `fetch`, never load undici, never resolve an
 * `@ai-sdk/*` package, and (for an http URL) never load `node:https`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { useModelServer } from "./helpers.js";

const startServer = useModelServer();
const resolveSource = fileURLToPath(new URL("../../src/providers/resolve.ts", import.meta.url));
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/** Records every specifier the process resolves (in a module-resolution hook) to the file `data.log`. */
const resolveHook = `
import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  appendFileSync(log, specifier + "\\n");
  return next(specifier, context);
}
`;

const registerHook = `
import { register } from "node:module";
register("./resolve-hook.mjs", import.meta.url, { data: { log: process.env.RESOLVE_LOG } });
`;

const main = `
let fetchCalls = 0;
Object.defineProperty(globalThis, "fetch", { value: async () => { fetchCalls += 1; throw new Error("fetch must not be used"); }, configurable: true, writable: true });
const { createModelClient } = await import("./resolve.mjs");
const client = createModelClient(undefined, { env: { OPENAI_BASE_URL: process.env.MODEL_URL } });
const request = (stream) => ({ model: "gpt-test", system: "Be brief.", messages: [{ role: "user", content: "hello" }], tools: [], stream, signal: new AbortController().signal });
const parts = [];
const streamed = await client.generate(request(true), (part) => parts.push(part.type));
const json = await client.generate(request(false), () => {});
const models = await client.listModels();
const loaded = (pattern) => process.moduleLoadList.some((name) => pattern.test(name));
const probe = await import("@ai-sdk/provider").then(() => "loaded", () => "not loaded");
console.log(JSON.stringify({ streamed: streamed.text, json: json.text, parts: [...new Set(parts)], models: models.length, fetchCalls, undici: loaded(/undici/), https: loaded(/NativeModule (https|tls)$/), probe }));
`;

function run(directory: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "./register-hook.mjs", "main.mjs"], { cwd: directory, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("chat-completions module loading", () => {
  it("calls through node:http only: no fetch, no undici, no @ai-sdk, no https", async () => {
    const { url } = await startServer(["streaming-reply"]);
    const directory = await mkdtemp(join(tmpdir(), "tandem-chat-loading-"));
    directories.push(directory);
    // The provider layer bundled as the runtime bundles it: @ai-sdk packages stay outside.
    await build({ entryPoints: [resolveSource], outfile: join(directory, "resolve.mjs"), bundle: true, platform: "node", format: "esm", target: "node20", external: ["@ai-sdk/*", "undici"], logLevel: "silent" });
    await writeFile(join(directory, "resolve-hook.mjs"), resolveHook);
    await writeFile(join(directory, "register-hook.mjs"), registerHook);
    await writeFile(join(directory, "main.mjs"), main);
    const log = join(directory, "resolved.log");
    await writeFile(log, "");

    const { code, stdout, stderr } = await run(directory, { MODEL_URL: url, RESOLVE_LOG: log });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ streamed: expect.stringMatching(/\S/), json: expect.stringMatching(/\S/), models: 2, fetchCalls: 0, undici: false, https: false, probe: "not loaded" });
    expect(result.parts).toEqual(expect.arrayContaining(["bytes", "text-delta"]));

    const resolved = (await readFile(log, "utf8")).split("\n").filter(Boolean);
    expect(resolved).toContain("./resolve.mjs");
    // The probe at the end shows the hook sees package imports; nothing before it asked for one.
    expect(resolved.filter((specifier) => /^@ai-sdk\/|^undici/.test(specifier))).toEqual(["@ai-sdk/provider"]);
  });
});
