/**
 * What the durability contract costs per turn: one node, a one-line reply per turn, `send` →
 * `session.idle` (the client sees the idle only once every stored event before it is written, and
 * `send` is answered once its `user.message` is durable). Median and p90 of `TURNS` turns (40) on
 * the file store and, when PostgreSQL's server binaries are installed, on a throwaway PostgreSQL
 * (fsync and synchronous commit on). Run after `npm run build`: `node bench/turn-durability.mjs`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelServer } from "@tandem/testkit";
import { startPostgres } from "./lib/postgres.mjs";

const turns = Number(process.env.TURNS ?? 40);
const tandemBin = fileURLToPath(new URL("../packages/runtime/bin/tandem.js", import.meta.url));
const script = fileURLToPath(new URL("../test/scripts/many-replies.yaml", import.meta.url));

/** A minimal Content-Length framed JSON-RPC client. */
function rpcClient(port) {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  let nextId = 1;
  const waiting = new Map();
  const listeners = new Set();
  socket.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString());
      buffer = buffer.subarray(headerEnd + 4 + length);
      if (message.id !== undefined && message.method === undefined) waiting.get(message.id)?.(message);
      else for (const listener of listeners) listener(message);
    }
  });
  return {
    ready: new Promise((resolve) => socket.once("connect", resolve)),
    request(method, params) {
      const id = nextId++;
      const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
      socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    nextEvent(type) {
      return new Promise((resolve) => {
        const listener = (message) => {
          if (message.method !== "session.event" || message.params.event.type !== type) return;
          listeners.delete(listener);
          resolve(message.params.event);
        };
        listeners.add(listener);
      });
    },
    close: () => socket.destroy(),
  };
}

async function measure(label, extraEnv) {
  const model = new ModelServer();
  model.loadScriptFile(script);
  const { url } = await model.start();
  const home = mkdtempSync(join(tmpdir(), "tandem-bench-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: url, GH_TOKEN: "bench", ...extraEnv };
  const child = spawn(process.execPath, [tandemBin, "--port", "0", "--log-level", "error"], { env, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening on port (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
  });
  const client = rpcClient(port);
  await client.ready;
  const sendAcks = [];
  const turnTimes = [];
  // Each session answers up to 50 model calls (the script's steps): a fresh session every 20 turns.
  let sessionId;
  for (let index = 0; index < turns; index++) {
    if (index % 20 === 0) sessionId = (await client.request("session.create", {})).result.sessionId;
    const idle = client.nextEvent("session.idle");
    const sentAt = performance.now();
    await client.request("session.send", { sessionId, prompt: `turn ${index}` });
    sendAcks.push(performance.now() - sentAt);
    await idle;
    turnTimes.push(performance.now() - sentAt);
  }
  client.close();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  await model.stop();
  rmSync(home, { recursive: true, force: true });
  const stats = (values) => {
    const sorted = values.slice(5).sort((a, b) => a - b);
    return `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, p90 ${sorted[Math.floor(sorted.length * 0.9)].toFixed(1)} ms`;
  };
  console.log(`${label}: send answered ${stats(sendAcks)}; send → idle ${stats(turnTimes)}`);
}

await measure("file store", {});
const postgres = await startPostgres();
if ("skipped" in postgres) {
  console.log(`postgresql: skipped (${postgres.skipped})`);
} else {
  await measure("postgresql", { TANDEM_STORE_URL: await postgres.createDatabase("turn_durability") });
  await postgres.stop();
}
