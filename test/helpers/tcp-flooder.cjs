// A hostile local client for the TCP flood tests, run as another OS user (`node -e <this file>
// '<json options>'`): plain Node, no imports from the repository, so it runs as any user.
//
// mode "hold": keeps `connections` unauthenticated connections to 127.0.0.1:`port` open, opening a
//   new one whenever one closes, for `durationMs`. Reports how many it opened, how many the runtime
//   refused for a limit, and the most that stayed open for two seconds or more at any sample.
// mode "guess": `connections` loops, each sending `connect` with a random token, reading the answer
//   and reconnecting, for `durationMs`. Reports how many guesses were checked ("invalid connection
//   token") and how many were refused as throttled.
// Prints one JSON line with the counts when done.
"use strict";
const net = require("node:net");
const { randomBytes } = require("node:crypto");

const { port, mode, connections, durationMs } = JSON.parse(process.argv[1] ?? process.argv[2]);
const deadline = Date.now() + durationMs;
const counts = { opened: 0, errors: 0, refusedForLimit: 0, maxHeld: 0, checked: 0, throttled: 0, otherAnswers: 0 };
const open = new Set();

function frame(body) {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function openOne() {
  if (Date.now() >= deadline) return;
  const socket = net.connect(port, "127.0.0.1");
  const entry = { socket, connectedAt: undefined, text: "" };
  socket.on("connect", () => {
    counts.opened += 1;
    entry.connectedAt = Date.now();
    open.add(entry);
    if (mode === "guess") socket.write(frame(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "connect", params: { token: randomBytes(16).toString("hex") } })));
  });
  socket.on("data", (chunk) => {
    entry.text += chunk;
  });
  socket.on("error", () => {
    counts.errors += 1;
  });
  socket.on("close", () => {
    open.delete(entry);
    if (entry.text.includes("too many unauthenticated connections")) counts.refusedForLimit += 1;
    if (entry.text.includes("invalid connection token")) counts.checked += 1;
    else if (entry.text.includes("too many wrong connection tokens")) counts.throttled += 1;
    else if (entry.text.length > 0) counts.otherAnswers += 1;
    setImmediate(openOne);
  });
}

const sampler = setInterval(() => {
  const now = Date.now();
  let held = 0;
  // Held: open 5 s or more (a refused connection closes long before, even on a loaded machine).
  for (const entry of open) if (entry.connectedAt !== undefined && now - entry.connectedAt >= 5000) held += 1;
  counts.maxHeld = Math.max(counts.maxHeld, held);
}, 250);

for (let index = 0; index < connections; index += 1) openOne();
setTimeout(() => {
  clearInterval(sampler);
  for (const entry of open) entry.socket.destroy();
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(0);
}, durationMs);
