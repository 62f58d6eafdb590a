/**
 * The peer-uid check behind TCP access without a token: over real loopback sockets, the owner of
 * the client's socket is found in /proc/net/tcp(6), and the gate admits only this process's uid.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { checkTcpStartup, TcpAccessGate } from "../../src/server/access.js";
import { canFindPeerUid, isLoopbackAddress, loopbackPeerUid } from "../../src/server/peer-check.js";

const opened: Array<{ close(): unknown }> = [];
afterEach(() => {
  for (const each of opened.splice(0)) each.close();
});

/** A listener on `host` and one client connected to it from `clientHost`; resolves with both ends. */
async function socketPair(host: string, clientHost: string): Promise<{ accepted: Socket; client: Socket }> {
  const server: Server = createServer();
  opened.push(server);
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  const client = connect(port, clientHost);
  opened.push({ close: () => client.destroy() });
  await new Promise<void>((resolve) => client.once("connect", resolve));
  const socket = await accepted;
  opened.push({ close: () => socket.destroy() });
  return { accepted: socket, client };
}

const ipv6Loopback = await new Promise<boolean>((resolve) => {
  const probe = createServer();
  probe.once("error", () => resolve(false));
  probe.listen(0, "::1", () => probe.close(() => resolve(true)));
});

describe("loopbackPeerUid", () => {
  it("is available here (Linux /proc/net/tcp)", () => {
    expect(canFindPeerUid()).toBe(true);
  });

  it("finds the uid of an IPv4 loopback client", async () => {
    const { accepted } = await socketPair("127.0.0.1", "127.0.0.1");
    expect(await loopbackPeerUid(accepted)).toBe(process.getuid?.());
  });

  it.runIf(ipv6Loopback)("finds the uid of an IPv6 loopback client (::1), and of an IPv4 client of a dual-stack listener", async () => {
    const v6 = await socketPair("::1", "::1");
    expect(await loopbackPeerUid(v6.accepted)).toBe(process.getuid?.());
    const mapped = await socketPair("::", "127.0.0.1");
    expect(mapped.accepted.remoteAddress).toBe("::ffff:127.0.0.1");
    expect(await loopbackPeerUid(mapped.accepted)).toBe(process.getuid?.());
  });

  it("finds nothing for a row that is not there", async () => {
    const { accepted } = await socketPair("127.0.0.1", "127.0.0.1");
    expect(await loopbackPeerUid(accepted, async () => "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n")).toBeUndefined();
  });
});

describe("TcpAccessGate without a token", () => {
  const logger = new Logger("none", () => undefined);

  it("admits a client of this uid and refuses (closes) one of another uid", async () => {
    const own = await socketPair("127.0.0.1", "127.0.0.1");
    const ownGate = new TcpAccessGate({ token: undefined, connectResult: () => ({}), logger, uid: process.getuid?.() });
    const admitted = await new Promise<Socket>((resolve) => ownGate.admit(own.accepted, resolve));
    expect(admitted).toBe(own.accepted);

    // The same socket seen by a runtime of another uid.
    const other = await socketPair("127.0.0.1", "127.0.0.1");
    const otherGate = new TcpAccessGate({ token: undefined, connectResult: () => ({}), logger, uid: 4242 });
    let wasAdmitted = false;
    otherGate.admit(other.accepted, () => (wasAdmitted = true));
    await new Promise((resolve) => other.client.once("close", resolve));
    expect(wasAdmitted).toBe(false);
  });
});

describe("isLoopbackAddress and the start-up check", () => {
  it("knows loopback addresses", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1", "localhost"]) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ["0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "192.168.1.1", "fe80::1", "example.com", undefined]) expect(isLoopbackAddress(address), String(address)).toBe(false);
  });

  it("needs a token for a non-loopback host, or where the peer's uid cannot be read", () => {
    expect(checkTcpStartup("127.0.0.1", undefined, true)).toEqual({ warnings: [] });
    expect(checkTcpStartup("0.0.0.0", undefined, true).refusal).toMatch(/not a loopback address/);
    expect(checkTcpStartup("0.0.0.0", "t", true).warnings[0]).toMatch(/not a loopback address/);
    expect(checkTcpStartup("127.0.0.1", undefined, false).refusal).toMatch(/needs \/proc\/net\/tcp/);
    expect(checkTcpStartup("127.0.0.1", "t", false)).toEqual({ warnings: [] });
  });
});
