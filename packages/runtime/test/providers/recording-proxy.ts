/**
 * A recording HTTP proxy for provider tests: shows the exact URL and headers a client sent (Azure
 * URL shapes included) and whether a request was cancelled.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the recording proxy forwarded. */
export interface ProxiedRequest {
  method: string;
  /** The path and query the client asked for (before rewriting). */
  url: string;
  headers: IncomingHttpHeaders;
  /** True when the client went away before the answer was complete. */
  clientClosedEarly: boolean;
}

/** A proxy in front of the fake model server, recording what clients asked for. */
export interface RecordingProxy {
  url: string;
  requests: ProxiedRequest[];
}

/**
 * Starts an HTTP proxy in front of `targetUrl` that records every request (as the client sent it)
 * and whether the client went away early. Azure paths are mapped to the fake model server's
 * routes: `/openai/deployments/<d>/chat/completions` → `/chat/completions`,
 * `/openai/v1/responses` → `/v1/responses`; everything else passes unchanged.
 *
 * @example
 * const { proxy, close } = await startRecordingProxy(modelServerUrl);
 */
export async function startRecordingProxy(targetUrl: string): Promise<{ proxy: RecordingProxy; close: () => Promise<void> }> {
  const target = new URL(targetUrl);
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const record: ProxiedRequest = { method: incoming.method ?? "GET", url: incoming.url ?? "/", headers: incoming.headers, clientClosedEarly: false };
    requests.push(record);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: rewriteAzurePath(incoming.url ?? "/"), headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    outgoing.on("close", () => {
      if (outgoing.writableFinished) return;
      record.clientClosedEarly = true;
      upstream.destroy();
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    proxy: { url: `http://127.0.0.1:${port}`, requests },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function rewriteAzurePath(url: string): string {
  const path = url.split("?")[0] ?? "/";
  return path.replace(/^\/openai\/deployments\/[^/]+\/chat\/completions$/, "/chat/completions").replace(/^\/openai\/v1\/responses$/, "/v1/responses");
}

