import { isIP } from "node:net";
import type { SandboxPolicy } from "./policy.js";

/** Whether `host` matches one entry of a host list: exact, or `*.example.com` for its subdomains. */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => (pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern));
}

/** Names that always mean this machine (RFC 6761): the proxy answers them with 127.0.0.1 itself. */
export function isLoopbackName(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost");
}

/**
 * Whether an address belongs to this machine or its local networks: loopback, private ranges,
 * link-local, unspecified, and their IPv6 (and IPv4-mapped) forms.
 *
 * @example
 * isLocalAddress("127.0.0.1"); // true
 * isLocalAddress("140.82.112.3"); // false
 */
export function isLocalAddress(address: string): boolean {
  const mapped = address.toLowerCase().startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(mapped) === 4) {
    const [a = 0, b = 0] = mapped.split(".").map(Number);
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  const lower = mapped.toLowerCase();
  return lower === "::1" || lower === "::" || lower.startsWith("fc") || lower.startsWith("fd") || lower.startsWith("fe8") || lower.startsWith("fe9") || lower.startsWith("fea") || lower.startsWith("feb");
}

/** Whether the proxy may connect to `host`, before and after name resolution. */
export interface HostDecision {
  allowed: boolean;
  reason: string;
}

/**
 * The proxy's rule for one host name (lower case) and the addresses it resolved to: blocked hosts
 * never; otherwise a host on `allowedHosts`, or any host with `allowOutbound`. Addresses of this
 * machine or its local networks need `allowLocalNetwork`, unless the allowed entry itself names
 * this machine (`localhost`, `*.localhost`, a literal local address), so a public name that
 * resolves to 127.0.0.1 does not reach the host's services.
 *
 * @example
 * decideHost("api.github.com", ["140.82.112.6"], policy.network); // { allowed: true, … } when listed
 */
export function decideHost(host: string, addresses: readonly string[], network: SandboxPolicy["network"]): HostDecision {
  if (hostMatches(host, network.blockedHosts)) return { allowed: false, reason: `${host} is on the sandbox's blockedHosts` };
  const listed = hostMatches(host, network.allowedHosts);
  if (!listed && !network.allowOutbound) return { allowed: false, reason: `${host} is not on the sandbox's allowedHosts` };
  const namesThisMachine = listed && (isLoopbackName(host) || isIP(host) !== 0);
  if (!network.allowLocalNetwork && !namesThisMachine && addresses.some(isLocalAddress)) {
    return { allowed: false, reason: `${host} resolves to a local address and the sandbox does not allow the local network` };
  }
  return { allowed: true, reason: "allowed" };
}
