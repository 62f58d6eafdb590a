import { sendRequest, type HttpRequest, type HttpResponse, type HttpSender, type Transport, type TransportSource } from "./http.js";

export type { RequestFunction, Transport } from "./http.js";

const agentOptions = { keepAlive: true, scheduling: "lifo" } as const;

/**
 * Keep-alive connections to model servers: one `http.Agent` and one `https.Agent`, each created
 * on first use. The runtime keeps one pool for all its sessions, so sessions talking to the same
 * server reuse each other's idle connections (and TLS sessions). `node:http` and `node:https` (with TLS) are loaded only when a URL of their
 * protocol is first called. Idle sockets do not keep the process alive, and are closed before
 * the server's announced keep-alive timeout.
 *
 * @example
 * const connections = new ConnectionPool();
 * const { request, agent } = await connections.transportFor(new URL("https://api.githubcopilot.com"));
 */
export class ConnectionPool implements HttpSender, TransportSource {
  private plain: Transport | undefined;
  private secure: Transport | undefined;
  private loadingPlain: Promise<Transport> | undefined;
  private loadingSecure: Promise<Transport> | undefined;

  /** The transport for a URL's protocol (`http:` or `https:`); a promise only while its module loads. */
  transportFor(url: URL): Transport | Promise<Transport> {
    if (url.protocol === "http:") {
      return this.plain ?? (this.loadingPlain ??= import("node:http").then((http) => (this.plain = { request: http.request, agent: new http.Agent(agentOptions) })));
    }
    if (url.protocol === "https:") {
      return this.secure ?? (this.loadingSecure ??= import("node:https").then((https) => (this.secure = { request: https.request, agent: new https.Agent(agentOptions) })));
    }
    throw new TypeError(`Unsupported protocol in model provider URL: ${url.protocol}`);
  }

  /** Sends a request over these connections (see {@link sendRequest}). */
  send(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
    return sendRequest(this, request, signal);
  }

  /** Closes the idle connections (requests in flight are not affected). */
  close(): void {
    void this.loadingPlain?.then((transport) => transport.agent.destroy());
    void this.loadingSecure?.then((transport) => transport.agent.destroy());
  }
}
