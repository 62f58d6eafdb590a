import type { ClientNeed, ClientPort } from "./clients.js";

/** How long a request whose client went away waits for another able client by default (env `TANDEM_CLIENT_REASK_MS`). */
export const defaultReaskWaitMs = 60_000;

/** The wait from the environment (0 … 24 h), or {@link defaultReaskWaitMs}. */
export function reaskWaitFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_CLIENT_REASK_MS);
  return Number.isInteger(value) && value >= 0 && value <= 86_400_000 ? value : defaultReaskWaitMs;
}

/** The clients a request may go to (a session's `SessionClients`). */
export interface AbleClients {
  clientFor(need: ClientNeed): ClientPort | undefined;
  whenAble(need: ClientNeed, timeoutMs: number, signal?: AbortSignal): Promise<ClientPort | undefined>;
}

/** Thrown by {@link askAbleClient} when no client was there to answer: the caller applies its rule (deny, fail the tool…). */
export class NoClientToAsk extends Error {
  constructor(
    readonly need: ClientNeed,
    /** Whether a client was asked and went away before answering. */
    readonly afterLoss: boolean,
  ) {
    super(afterLoss ? `The client asked went away before it answered, and no other client able to answer attached in time` : `No connected client can answer`);
    this.name = "NoClientToAsk";
  }
}

/**
 * Sends a request to the client able to answer `need` (the most recent one). When that client goes
 * away before answering (its connection closed, or — in a cluster — the node it is connected to
 * died), the request is asked again of the next able client attached now, else of the first one
 * that attaches within `waitMs`; after that, {@link NoClientToAsk} lets the caller decide by the
 * session's rules. A client that answered with an error is not asked again (the error is thrown).
 * With no able client at the start, {@link NoClientToAsk} is thrown at once.
 *
 * @example
 * const response = await askAbleClient(session.clients, { kind: "permission" }, (port) => port.sendRequest("permission.request", params, signal), { signal, waitMs });
 */
export async function askAbleClient<R>(clients: AbleClients, need: ClientNeed, send: (port: ClientPort) => Promise<R>, options: { signal: AbortSignal; waitMs: number }): Promise<R> {
  let port = clients.clientFor(need);
  if (!port) throw new NoClientToAsk(need, false);
  for (;;) {
    try {
      return await send(port);
    } catch (error) {
      if (options.signal.aborted || port.isOpen) throw error;
    }
    port = await clients.whenAble(need, options.waitMs, options.signal);
    if (options.signal.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error("aborted");
    if (!port) throw new NoClientToAsk(need, true);
  }
}
