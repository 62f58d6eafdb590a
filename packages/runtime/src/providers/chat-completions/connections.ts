import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";

/** `http.request` or `https.request`. */
export type RequestFunction = (options: RequestOptions, onResponse: (response: IncomingMessage) => void) => ClientRequest;

/** How to reach servers of one protocol: its request function and its keep-alive agent. */
export interface Transport {
  request: RequestFunction;
  agent: Agent;
}

const agentOptions = { keepAlive: true, scheduling: "lifo" } as const;

/**
 * Keep-alive connections to model servers: one `http.Agent` and one `https.Agent`, each created
 * on first use. `node:https` (and with it TLS) is loaded only when an https URL is first called.
 * Idle sockets do not keep the process alive, and are closed before the server's announced
 * keep-alive timeout.
 *
 * @example
 * const connections = new ConnectionPool();
 * const { request, agent } = await connections.transportFor(new URL("https://api.githubcopilot.com"));
 */
export class ConnectionPool {
  private plain: Transport | undefined;
  private secure: Promise<Transport> | undefined;

  /** The transport for a URL's protocol (`http:` or `https:`). */
  transportFor(url: URL): Transport | Promise<Transport> {
    if (url.protocol === "http:") return (this.plain ??= { request: httpRequest, agent: new Agent(agentOptions) });
    if (url.protocol === "https:") {
      this.secure ??= import("node:https").then((https) => ({ request: https.request, agent: new https.Agent(agentOptions) }));
      return this.secure;
    }
    throw new TypeError(`Unsupported protocol in model provider URL: ${url.protocol}`);
  }

  /** Closes the idle connections (requests in flight are not affected). */
  close(): void {
    this.plain?.agent.destroy();
    void this.secure?.then((transport) => transport.agent.destroy());
  }
}

let sharedPool: ConnectionPool | undefined;

/**
 * The connections shared by the model clients of one process, so that sessions talking to the
 * same server reuse each other's idle connections (and TLS sessions). Created on first use.
 *
 * @example
 * new ChatCompletionsClient(settings, timeouts, sharedConnectionPool());
 */
export function sharedConnectionPool(): ConnectionPool {
  sharedPool ??= new ConnectionPool();
  return sharedPool;
}
