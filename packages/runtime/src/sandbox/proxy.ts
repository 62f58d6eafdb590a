import { mkdtempSync, rmSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { connect, createServer, isIP, type Server, type Socket } from "node:net";
import { tmpdir } from "../node-os.js";
import { join } from "node:path";
import { decideHost, isLoopbackName } from "./host-rules.js";
import type { SandboxPolicy } from "./policy.js";

/** The most a request head may take before the proxy gives up on it. */
const MAX_HEAD_BYTES = 16 * 1024;

/**
 * The HTTP(S) proxy of one session's sandbox, on a unix socket in a private folder that the
 * sandbox binds in (the sandbox has no network of its own). It speaks `CONNECT host:port` (HTTPS
 * and any TLS) and absolute-form requests (`GET http://host/…`), and connects only where
 * {@link decideHost} allows, to the address it resolved itself (no second lookup to rebind).
 * Refusals are `403` with the reason in the body.
 *
 * @example
 * const proxy = new SandboxProxy(policy.network);
 * const socketPath = await proxy.start();
 * await proxy.close();
 */
export class SandboxProxy {
  private server: Server | undefined;
  private folder: string | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly network: SandboxPolicy["network"]) {}

  /** Listens (once) and answers the socket's path. */
  async start(): Promise<string> {
    if (this.server && this.folder) return join(this.folder, "proxy.sock");
    const folder = mkdtempSync(join(tmpdir(), "tandem-sandbox-"));
    const path = join(folder, "proxy.sock");
    const server = createServer((client) => this.serve(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    this.server = server;
    this.folder = folder;
    return path;
  }

  /** Stops listening, cuts open tunnels and removes the socket's folder. */
  async close(): Promise<void> {
    const { server, folder } = this;
    this.server = undefined;
    this.folder = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (folder) rmSync(folder, { recursive: true, force: true });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  private serve(client: Socket): void {
    this.track(client);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) refuse(client, 431, "request head too large");
        return;
      }
      client.off("data", onData);
      client.pause();
      void this.forward(client, head.subarray(0, end + 4), head.subarray(end + 4));
    };
    client.on("data", onData);
  }

  private async forward(client: Socket, head: Buffer, rest: Buffer): Promise<void> {
    const text = head.toString("latin1");
    const [requestLine = "", ...headerLines] = text.split("\r\n");
    const [method = "", target = "", version = "HTTP/1.1"] = requestLine.split(" ");
    const destination = destinationOf(method, target);
    if (!destination) return refuse(client, 400, "the sandbox's proxy takes CONNECT host:port or absolute http:// URLs");
    const addresses = await resolveHost(destination.host);
    if (addresses.length === 0) return refuse(client, 502, `${destination.host} could not be resolved`);
    const decision = decideHost(destination.host, addresses, this.network);
    if (!decision.allowed) return refuse(client, 403, decision.reason);
    const upstream = connect({ host: addresses[0], port: destination.port });
    this.track(upstream);
    upstream.once("error", () => refuse(client, 502, `${destination.host}:${destination.port} is unreachable`));
    upstream.once("connect", () => {
      if (method === "CONNECT") {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      } else {
        upstream.write(`${method} ${destination.path} ${version}\r\n${headerLines.join("\r\n")}`);
      }
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }
}

interface Destination {
  host: string;
  port: number;
  /** The origin-form target of a forwarded request. */
  path: string;
}

function destinationOf(method: string, target: string): Destination | undefined {
  if (method === "CONNECT") {
    const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target);
    if (!match?.[1] || !match[2]) return undefined;
    return { host: match[1].toLowerCase(), port: Number(match[2]), path: "" };
  }
  if (!target.startsWith("http://")) return undefined;
  try {
    const url = new URL(target);
    return { host: url.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port: Number(url.port || 80), path: `${url.pathname}${url.search}` };
  } catch {
    return undefined;
  }
}

async function resolveHost(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  if (isLoopbackName(host)) return ["127.0.0.1"];
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}

function refuse(client: Socket, status: number, reason: string): void {
  const body = `Blocked by the Tandem sandbox: ${reason}\n`;
  const statusText = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : status === 431 ? "Request Header Fields Too Large" : "Bad Gateway";
  client.end(`HTTP/1.1 ${status} ${statusText}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * The program (run by the sandbox's own Node) that listens on 127.0.0.1:`port` inside the
 * sandbox's network namespace and passes each connection to the proxy's unix socket; it prints a
 * line once it listens.
 */
export function forwarderSource(socketInside: string, port: number): string {
  return [
    `const net = require("node:net");`,
    `const server = net.createServer((inside) => {`,
    `  const proxy = net.connect(${JSON.stringify(socketInside)});`,
    `  inside.pipe(proxy); proxy.pipe(inside);`,
    `  inside.on("error", () => proxy.destroy()); proxy.on("error", () => inside.destroy());`,
    `});`,
    `server.listen(${port}, "127.0.0.1", () => process.stdout.write("ready\\n"));`,
  ].join("\n");
}
