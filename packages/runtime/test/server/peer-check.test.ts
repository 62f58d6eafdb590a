/**
 * The peer-uid check behind TCP access without a token: over real loopback sockets, the owner of
 * the client's socket is found in /proc/net/tcp(6), and the gate admits only this process's uid.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { checkTcpStartup, TcpAccessGate } from "../../src/server/access.js";
import { readFile } from "node:fs/promises";
import { canFindPeerUid, isLoopbackAddress, loopbackPeerUid, PeerUidFinder } from "../../src/server/peer-check.js";

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
  // A refused client is reset (ECONNRESET), which is what some tests expect.
  client.on("error", () => undefined);
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

/** Reads the real socket tables, passing each text through `rewrite`; counts the reads. */
function countingReader(rewrite: (text: string, read: number) => Promise<string> | string = (text) => text) {
  const reads: string[] = [];
  const read = async (path: string): Promise<string> => {
    reads.push(path);
    const text = await readFile(path, "latin1").catch(() => "");
    return rewrite(text, reads.length);
  };
  return { reads, read };
}

/** The table with every row's uid (column 8) replaced by `uid`, or its inode (column 10) by 0. */
function rewriteRows(text: string, change: { uid?: number; inode?: 0 }): string {
  return text
    .split("\n")
    .map((line, index) => {
      if (index === 0 || !line.trim()) return line;
      const fields = line.trim().split(/\s+/);
      if (change.uid !== undefined) fields[7] = String(change.uid);
      if (change.inode !== undefined) fields[9] = "0";
      return fields.join(" ");
    })
    .join("\n");
}

describe("PeerUidFinder", () => {
  it("serves every connection that asked while a read ran with one more read, not one each", async () => {
    const pairs = await Promise.all(Array.from({ length: 20 }, () => socketPair("127.0.0.1", "127.0.0.1")));
    const reader = countingReader();
    const finder = new PeerUidFinder(reader.read);
    const uids = await Promise.all(pairs.map(({ accepted }) => finder.peerUid(accepted)));
    expect(uids).toEqual(pairs.map(() => process.getuid?.()));
    // The first lookup starts a read; the other 19 share the next one.
    expect(reader.reads.filter((path) => path === "/proc/net/tcp").length).toBeLessThanOrEqual(2);
  });

  it("never answers a connection from a read that started before it asked (a stale owner of its port)", async () => {
    let releaseFirstRead: () => void = () => undefined;
    const firstReadHeld = new Promise<void>((resolve) => (releaseFirstRead = resolve));
    // The first read stands for an old table: every row says uid 4242.
    const reader = countingReader(async (text, read) => {
      if (read !== 1) return text;
      await firstReadHeld;
      return rewriteRows(text, { uid: 4242 });
    });
    const finder = new PeerUidFinder(reader.read, 0);
    const early = await socketPair("127.0.0.1", "127.0.0.1");
    const earlyUid = finder.peerUid(early.accepted);
    await waitUntil(() => reader.reads.length === 1);
    const late = await socketPair("127.0.0.1", "127.0.0.1");
    const lateUid = finder.peerUid(late.accepted);
    releaseFirstRead();
    expect(await earlyUid).toBe(4242);
    expect(await lateUid).toBe(process.getuid?.());
  });

  it("skips rows no process owns (TIME_WAIT, closed) and looks once more before giving up", async () => {
    const { accepted } = await socketPair("127.0.0.1", "127.0.0.1");
    const reader = countingReader((text) => rewriteRows(text, { inode: 0 }));
    expect(await new PeerUidFinder(reader.read, 0).peerUid(accepted)).toBeUndefined();
    // Both tables (an IPv4 client may sit in either), twice.
    expect(reader.reads).toEqual(["/proc/net/tcp", "/proc/net/tcp6", "/proc/net/tcp", "/proc/net/tcp6"]);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

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
