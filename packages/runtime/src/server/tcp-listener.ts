import { createServer, type Socket } from "node:net";
import type { RuntimeArgs } from "../args.js";
import type { Logger } from "../log.js";
import { checkTcpStartup, TcpAccessGate, type TcpStartupCheck } from "./access.js";
import { admissionLimitsFromEnv } from "./admission/limits.js";
import { connectResult } from "./connect.js";

/** Idle time before a connection's first TCP keepalive probe (the SDK uses the same). */
export const tcpKeepAliveMs = 30_000;
import { shouldExitWithParent, watchParent } from "./parent-watch.js";

/**
 * The TCP side of the entry: the start-up check, the access gate, the parent watch and the
 * listening server. Loaded only when the runtime serves TCP, so a runtime started with `--stdio`
 * (what SDKs spawn by default) does not load or compile it.
 */
export { checkTcpStartup, type TcpStartupCheck };

/** What {@link listenTcp} needs from the entry. */
export interface TcpListenerOptions {
  args: RuntimeArgs;
  /** The connection token clients must present, if one was given. */
  token: string | undefined;
  runtimeVersion: string;
  logger: Logger;
  /** Serves one admitted socket (`openedWithConnect`: the client's first request was `connect`). */
  serve(socket: Socket, openedWithConnect: boolean): void;
  /** The process that started the runtime exited (with `--headless` or `--exit-with-parent`). */
  onParentGone(): void;
}

/**
 * Listens on `args.host:args.port`; prints `listening on port <N>` once it does. Clients pass a
 * {@link TcpAccessGate} first (a connection token, or same-OS-user loopback only).
 *
 * @example
 * listenTcp({ args, token, runtimeVersion, logger, serve: (socket) => loader.serve(socket, socket), onParentGone: exit });
 */
export function listenTcp(options: TcpListenerOptions): void {
  const { args, logger } = options;
  if (shouldExitWithParent(args)) {
    watchParent(() => {
      logger.info("the process that started this runtime exited; shutting down");
      options.onParentGone();
    });
  }
  const gate = new TcpAccessGate({
    token: options.token,
    connectResult: () => connectResult(args.sdkProtocolVersion, options.runtimeVersion),
    logger,
    uid: process.getuid?.(),
    limits: admissionLimitsFromEnv(process.env),
  });
  // Keepalive probes find a peer that vanished (a dead node, a load balancer that dropped the
  // flow) and keep idle connections alive through middleboxes with idle timeouts over ~30 s.
  const server = createServer({ keepAlive: true, keepAliveInitialDelay: tcpKeepAliveMs }, (socket: Socket) => {
    gate.admit(socket, (admitted, openedWithConnect) => {
      admitted.setNoDelay(true);
      options.serve(admitted, openedWithConnect);
    });
  });
  server.on("error", (error) => {
    logger.error("TCP server error", error);
    process.exitCode = 1;
  });
  server.listen(args.port, args.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : args.port;
    process.stdout.write(`listening on port ${port}\n`);
    logger.info(`listening on ${args.host}:${port}`);
  });
}
