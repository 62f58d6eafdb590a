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
 * cannot be found (not Linux, not loopback, or the peer already closed its socket).
 *
 * Method: both ends of a loopback connection are sockets of this host, and Linux lists every TCP
 * socket of the network namespace in /proc/net/tcp (IPv4) and /proc/net/tcp6 (IPv6), one row each,
 * with the uid that created it (column 8, `uid`). The peer's row is the mirror image of ours: its
 * local address:port is our remote address:port, and its remote address:port is our local one.
 * In those tables an address is hex in host byte order (IPv6 as four 32-bit words, each in host
 * order) and a port is hex in network order. An IPv4 client of an IPv6 listener appears to us as
 * `::ffff:a.b.c.d` but sits in the IPv4 table, so addresses are compared in their IPv4 form.
 *
 * @example
 * const uid = await loopbackPeerUid(socket);
 * if (uid !== process.getuid?.()) socket.destroy();
 */
export async function loopbackPeerUid(socket: SocketEnds, readTable: SocketTableReader = readSocketTable): Promise<number | undefined> {
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  if (!localAddress || !remoteAddress || localPort === undefined || remotePort === undefined) return undefined;
  if (!isLoopbackAddress(remoteAddress)) return undefined;
  const peerLocal = endpointKey(remoteAddress, remotePort);
  const peerRemote = endpointKey(localAddress, localPort);
  if (!peerLocal || !peerRemote) return undefined;
  for (const table of socketTables) {
    const text = await readTable(table);
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 8) continue;
      if (tableEndpointKey(fields[1]) !== peerLocal || tableEndpointKey(fields[2]) !== peerRemote) continue;
      const uid = Number(fields[7]);
      return Number.isInteger(uid) ? uid : undefined;
    }
  }
  return undefined;
}

async function readSocketTable(path: string): Promise<string> {
  try {
    return await fsPromises.readFile(path, "utf8");
  } catch {
    return "";
  }
}

/** `address:port` with the address in canonical hex (IPv4-mapped IPv6 reduced to IPv4). */
function endpointKey(address: string, port: number): string | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  return `${canonicalHex(bytes)}:${port}`;
}

/** The same key for a `/proc/net/tcp*` column such as `0100007F:1F90`. */
function tableEndpointKey(column: string | undefined): string | undefined {
  if (!column) return undefined;
  const [hexAddress, hexPort] = column.split(":");
  if (!hexAddress || !hexPort || (hexAddress.length !== 8 && hexAddress.length !== 32)) return undefined;
  const raw = Buffer.from(hexAddress, "hex");
  // Each 32-bit word is printed in host byte order.
  if (littleEndian) for (let word = 0; word < raw.length; word += 4) raw.subarray(word, word + 4).reverse();
  return `${canonicalHex(raw)}:${Number.parseInt(hexPort, 16)}`;
}

function canonicalHex(bytes: Buffer): string {
  return (ipv4Mapped(bytes) ?? bytes).toString("hex");
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
