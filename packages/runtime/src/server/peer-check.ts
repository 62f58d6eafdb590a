import { existsSync, promises as fsPromises } from "node:fs";
import { isIPv4, isIPv6 } from "node:net";

/** The addresses of one end of an accepted TCP connection (as `net.Socket` reports them). */
export interface SocketEnds {
  readonly localAddress?: string | undefined;
  readonly localPort?: number | undefined;
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
}

/** Reads one of the kernel's socket tables (`/proc/net/tcp` or `/proc/net/tcp6`); "" when absent. */
export type SocketTableReader = (path: string) => Promise<string>;

const socketTables = ["/proc/net/tcp", "/proc/net/tcp6"] as const;

/** This machine's byte order (what `os.endianness()` says, without loading `node:os` at start-up). */
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Whether this system lists its TCP sockets with their owners (Linux's /proc/net/tcp). */
export function canFindPeerUid(): boolean {
  return existsSync(socketTables[0]);
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  if (address === "localhost") return true;
  const bytes = addressBytes(address);
  if (!bytes) return false;
  const ipv4 = bytes.length === 4 ? bytes : ipv4Mapped(bytes);
  if (ipv4) return ipv4[0] === 127;
  return bytes.every((byte, index) => (index === 15 ? byte === 1 : byte === 0));
}

/**
 * The uid of the process that owns the other end of a loopback TCP connection, or undefined when it
 * cannot be found (not Linux, not loopback, or the peer already closed its socket). One lookup with
 * its own {@link PeerUidFinder}; a server shares one finder between its connections.
 *
 * @example
 * const uid = await loopbackPeerUid(socket);
 * if (uid !== process.getuid?.()) socket.destroy();
 */
export async function loopbackPeerUid(socket: SocketEnds, readTable: SocketTableReader = readSocketTable): Promise<number | undefined> {
  return new PeerUidFinder(readTable).peerUid(socket);
}

/** One socket waiting for a table read: the rows that would be its peer, and who to tell. */
interface Lookup {
  readonly rows: PeerRows;
  readonly resolve: (uid: number | undefined) => void;
}

/** The `local remote` text of the peer's row, as each table would print it. */
interface PeerRows {
  readonly ipv4: string | undefined;
  readonly ipv6: string;
}

/**
 * Finds the OS user behind loopback TCP connections, reading the kernel's socket tables once for
 * every connection that asked while the previous read ran (not once per connection: a flood of
 * connections costs one read at a time, each serving all of them).
 *
 * Method: both ends of a loopback connection are sockets of this host, and Linux lists every TCP
 * socket of the network namespace in /proc/net/tcp (IPv4) and /proc/net/tcp6 (IPv6), one row each,
 * with the uid that created it (column 8, `uid`). The peer's row is the mirror image of ours: its
 * local address:port is our remote address:port, and its remote address:port is our local one.
 * In those tables an address is hex in host byte order (IPv6 as four 32-bit words, each in host
 * order) and a port is hex in network order. An IPv4 client of an IPv6 listener appears to us as
 * `::ffff:a.b.c.d` and may sit in either table, so both forms are looked for.
 *
 * Correctness: a lookup is answered only by a read that started after it was asked, so after the
 * connection was accepted. While our end is open no other connection can hold the same four
 * addresses and ports, so the row found is our peer's, never an earlier owner of a reused port.
 * Rows without an owning process (inode 0: TIME_WAIT, or closed by their process) are skipped. A
 * connection not found is looked for once more in the next read (`retries`), then given up.
 *
 * @example
 * const finder = new PeerUidFinder();
 * const uid = await finder.peerUid(socket);
 */
export class PeerUidFinder {
  private waiting: Lookup[] = [];
  private reading = false;
  private lastReadAt = Number.NEGATIVE_INFINITY;

  /**
   * @param readTable reads one table (replaceable in tests)
   * @param minIntervalMs the least time between the starts of two reads: a read costs the kernel a
   *   walk of its whole connection hash (measured: ~5 ms of CPU on a host with 262,144 buckets,
   *   however few sockets are open), so a flood of connections gets at most one read per interval
   * @param retries how many later reads look again for a connection not found
   */
  constructor(
    private readonly readTable: SocketTableReader = readSocketTable,
    private readonly minIntervalMs = 100,
    private readonly retries = 1,
  ) {}

  /** The uid owning the other end of `socket` (a loopback connection), or undefined. */
  async peerUid(socket: SocketEnds): Promise<number | undefined> {
    const rows = peerRows(socket);
    if (!rows) return undefined;
    for (let attempt = 0; attempt <= this.retries; attempt += 1) {
      const uid = await new Promise<number | undefined>((resolve) => {
        this.waiting.push({ rows, resolve });
        void this.readWhileWaiting();
      });
      if (uid !== undefined) return uid;
    }
    return undefined;
  }

  private async readWhileWaiting(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.waiting.length > 0) {
        const wait = this.lastReadAt + this.minIntervalMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const batch = this.waiting;
        this.waiting = [];
        this.lastReadAt = performance.now();
        await this.answer(batch);
      }
    } finally {
      this.reading = false;
    }
  }

  /** One read of the tables for `batch`: the IPv4 table first, the IPv6 one only if still needed. */
  private async answer(batch: Lookup[]): Promise<void> {
    let open = batch;
    for (const table of socketTables) {
      const byRow = new Map<string, Lookup[]>();
      for (const lookup of open) {
        const row = table === "/proc/net/tcp" ? lookup.rows.ipv4 : lookup.rows.ipv6;
        if (row === undefined) continue;
        byRow.set(row, [...(byRow.get(row) ?? []), lookup]);
      }
      if (byRow.size === 0) continue;
      const found = findOwners(await this.readTable(table), byRow);
      await resolveInSlices([...found].map(([lookup, uid]) => () => lookup.resolve(uid)));
      open = open.filter((lookup) => !found.has(lookup));
      if (open.length === 0) return;
    }
    await resolveInSlices(open.map((lookup) => () => lookup.resolve(undefined)));
  }
}

/** Lookups answered per event-loop turn: what a flood's answers set off never holds up other I/O for long. */
const ANSWERS_PER_TURN = 8;

/** Runs `answers`, {@link ANSWERS_PER_TURN} at a time, letting pending I/O in between. */
async function resolveInSlices(answers: Array<() => void>): Promise<void> {
  for (let start = 0; start < answers.length; start += ANSWERS_PER_TURN) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const answer of answers.slice(start, start + ANSWERS_PER_TURN)) answer();
  }
}

/** The uid of each lookup whose row is in `text` (one socket table), owned by a live process. */
function findOwners(text: string, byRow: Map<string, Lookup[]>): Map<Lookup, number> {
  const found = new Map<Lookup, number>();
  let lineStart = text.indexOf("\n") + 1;
  while (lineStart > 0 && lineStart < text.length) {
    const lineEnd = text.indexOf("\n", lineStart);
    const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
    lineStart = lineEnd + 1;
    // `   N: LOCAL REMOTE st …`: both addresses have a fixed width, so one slice is the row's key.
    const addressesStart = line.indexOf(":") + 2;
    const addressWidth = line.indexOf(" ", addressesStart) - addressesStart;
    if (addressesStart < 2 || addressWidth <= 0) continue;
    const lookups = byRow.get(line.slice(addressesStart, addressesStart + 2 * addressWidth + 1));
    if (!lookups) continue;
    const fields = line.trim().split(/\s+/);
    const uid = Number(fields[7]);
    if (fields[9] === "0" || !Number.isInteger(uid)) continue;
    for (const lookup of lookups) found.set(lookup, uid);
  }
  return found;
}

async function readSocketTable(path: string): Promise<string> {
  try {
    return await fsPromises.readFile(path, "latin1");
  } catch {
    return "";
  }
}

/** The peer's row key (`LOCAL REMOTE` as the tables print them) for a loopback `socket`. */
function peerRows(socket: SocketEnds): PeerRows | undefined {
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  if (!localAddress || !remoteAddress || localPort === undefined || remotePort === undefined) return undefined;
  if (!isLoopbackAddress(remoteAddress)) return undefined;
  const peerLocal = addressBytes(remoteAddress);
  const peerRemote = addressBytes(localAddress);
  if (!peerLocal || !peerRemote) return undefined;
  const peerLocalV4 = peerLocal.length === 4 ? peerLocal : ipv4Mapped(peerLocal);
  const peerRemoteV4 = peerRemote.length === 4 ? peerRemote : ipv4Mapped(peerRemote);
  const ipv4 = peerLocalV4 && peerRemoteV4 ? `${tableEndpoint(peerLocalV4, remotePort)} ${tableEndpoint(peerRemoteV4, localPort)}` : undefined;
  const ipv6 = `${tableEndpoint(asIpv6(peerLocal), remotePort)} ${tableEndpoint(asIpv6(peerRemote), localPort)}`;
  return { ipv4, ipv6 };
}

/** An endpoint as /proc/net/tcp* prints it: `0100007F:1F90` (each 32-bit word of the address in host order). */
function tableEndpoint(address: Buffer, port: number): string {
  const raw = Buffer.from(address);
  if (littleEndian) for (let word = 0; word < raw.length; word += 4) raw.subarray(word, word + 4).reverse();
  return `${raw.toString("hex").toUpperCase()}:${port.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** 16 bytes: an IPv6 address as is, an IPv4 one mapped (`::ffff:a.b.c.d`). */
function asIpv6(address: Buffer): Buffer {
  if (address.length === 16) return address;
  return Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]), address]);
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), or undefined. */
function ipv4Mapped(bytes: Buffer): Buffer | undefined {
  const mapped = bytes.length === 16 && bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.subarray(12) : undefined;
}

/** The bytes of an IPv4 or IPv6 address in network order (4 or 16), or undefined. */
function addressBytes(address: string): Buffer | undefined {
  const unscoped = address.split("%")[0] ?? address;
  if (isIPv4(unscoped)) return Buffer.from(unscoped.split(".").map(Number));
  if (!isIPv6(unscoped)) return undefined;
  let text = unscoped;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  const groups = [...headGroups, ...zeros, ...tailGroups];
  if (groups.length !== 8) return undefined;
  const bytes = Buffer.alloc(16);
  groups.forEach((group, index) => bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2));
  return bytes;
}
