#!/usr/bin/env node
// A TCP runtime under a longer flood from another OS user (not part of `npm test` or `npm run bench`):
// starts the built runtime on a free port (with a connection token when TCP_FLOOD_TOKEN=1), runs the
// test flooder as `nobody` (needs root; `setpriv`; under SCHED_IDLE, as in the test) with TCP_FLOOD_CONNECTIONS connections (default 300)
// for TCP_FLOOD_SECONDS (default 60), and prints, every 10 s, the owner's ping p50/p99/max, the
// runtime's RSS and its CPU use, then the flooder's counts.
//
//   npm run build && sudo node bench/tcp-flood.mjs
//   TCP_FLOOD_TOKEN=1 TCP_FLOOD_SECONDS=120 node bench/tcp-flood.mjs
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const seconds = Number(process.env.TCP_FLOOD_SECONDS ?? 60);
const connections = Number(process.env.TCP_FLOOD_CONNECTIONS ?? 300);
const token = process.env.TCP_FLOOD_TOKEN === "1" ? randomBytes(32).toString("hex") : undefined;
if (process.getuid?.() !== 0) throw new Error("run as root: the flooder runs as nobody through setpriv");

const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...(token ? { COPILOT_CONNECTION_TOKEN: token } : {}) };
const runtime = spawn(process.execPath, [`${root}packages/runtime/bin/tandem.js`, "--port", "0", "--log-level", "error"], { env, stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((resolve) => {
  let text = "";
  runtime.stdout.on("data", (chunk) => {
    text += chunk;
    const match = /listening on port (\d+)/.exec(text);
    if (match) resolve(Number(match[1]));
  });
});

/** A framed JSON-RPC client on one socket: `request` resolves with the response's result. */
async function client() {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once("connect", resolve));
  const waiting = new Map();
  let buffered = "";
  let nextId = 1;
  socket.on("data", (chunk) => {
    buffered += chunk;
    for (;;) {
      const match = /^Content-Length: (\d+)\r\n\r\n/.exec(buffered);
      if (!match || buffered.length < match[0].length + Number(match[1])) return;
      const message = JSON.parse(buffered.slice(match[0].length, match[0].length + Number(match[1])));
      buffered = buffered.slice(match[0].length + Number(match[1]));
      waiting.get(message.id)?.(message);
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
      socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  if (token) await request("connect", { token });
  return { request, close: () => socket.destroy() };
}

/** CPU time of the runtime so far, in ms (utime + stime from /proc/<pid>/stat, 100 ticks a second). */
const cpuMs = () => {
  const fields = readFileSync(`/proc/${runtime.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${runtime.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const percentile = (values, fraction) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))];

const owner = await client();
const flooder = spawn(
  "chrt",
  ["--idle", "0", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", readFileSync(`${root}test/helpers/tcp-flooder.cjs`, "utf8"), JSON.stringify({ port, mode: "hold", connections, durationMs: seconds * 1000 })],
  { stdio: ["ignore", "pipe", "inherit"] },
);
let counts = "";
flooder.stdout.on("data", (chunk) => (counts += chunk));
const flooderDone = new Promise((resolve) => flooder.once("exit", resolve));

console.log(`flood: ${connections} connections from nobody for ${seconds} s, ${token ? "with" : "without"} a token`);
console.log("window   pings  p50 ms  p99 ms  max ms  RSS MiB  CPU %");
let finished = false;
void flooderDone.then(() => (finished = true));
for (let window = 0; !finished; window += 1) {
  const pingMs = [];
  const started = { wall: performance.now(), cpu: cpuMs() };
  const end = performance.now() + 10_000;
  let maxRss = rssMiB();
  while (!finished && performance.now() < end) {
    const started = performance.now();
    await owner.request("ping", { message: "owner" });
    pingMs.push(performance.now() - started);
    maxRss = Math.max(maxRss, rssMiB());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (pingMs.length === 0) break;
  const cells = [percentile(pingMs, 0.5), percentile(pingMs, 0.99), Math.max(...pingMs)].map((ms) => ms.toFixed(1).padStart(7));
  const cpuPercent = ((cpuMs() - started.cpu) / (performance.now() - started.wall)) * 100;
  console.log(`${String(window * 10).padStart(4)} s ${String(pingMs.length).padStart(7)} ${cells.join(" ")} ${maxRss.toFixed(0).padStart(8)} ${cpuPercent.toFixed(0).padStart(6)}`);
}
await flooderDone;
console.log(`flooder: ${counts.trim()}`);
owner.close();
runtime.kill("SIGKILL");
