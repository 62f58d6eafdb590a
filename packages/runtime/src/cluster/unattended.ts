import { profileFor } from "../compat/profile.js";
import { ErrorCodes, TandemError } from "../errors.js";
import { ClientBase, type RequestingClient } from "../server/requesting-client.js";
import { registrationOf, type ClientRegistration } from "../session/clients.js";

/**
 * Stands in for "no client" while a node continues a dead node's turn that nobody watches: the
 * session needs an attached client to stay open, but this one asks nothing (permissions fall to
 * the session's rules: a pending one a person had to answer is refused as "could not ask"), and
 * it leaves when the session goes idle (`onIdle`), which closes the session and frees its lease.
 */
export class UnattendedClient extends ClientBase implements RequestingClient {
  readonly extensionId = undefined;
  readonly isCurrentClient = true;
  /** It answers nothing; its results are never read. */
  readonly profile = profileFor("1.0");

  constructor(private readonly onIdle: () => void) {
    super();
  }

  close(): void {
    this.lifetime.close();
  }

  deliverSessionEvent(_sessionId: string, _eventJson: string, eventType?: string): void {
    if (eventType === "session.idle") this.onIdle();
  }

  sendNotification(): void {}

  sendRequest<R>(method: string): Promise<R> {
    return Promise.reject(new TandemError(ErrorCodes.NotAvailable, `No client is attached to answer ${method}: the session was taken over unattended`));
  }
}

/** What {@link resumeUnattended} needs from this node's runtime. */
export interface UnattendedHost {
  /** Runs `session.resume` here for `client`. */
  resume(params: Record<string, unknown>, client: RequestingClient): Promise<unknown>;
  /** Whether the session runs a turn here now. */
  isBusy(sessionId: string): boolean;
  /** Detaches `client` (the last one leaving closes the session and releases its lease). */
  detach(sessionId: string, client: RequestingClient): Promise<void>;
}

/**
 * Opens a session nobody is attached to so that its interrupted turn continues here (opening it
 * takes the lease and continues the turn, see `takeover.ts`); the session closes again once the
 * turn ended (at once when there was no turn to continue). Clients that attach meanwhile keep it.
 */
export async function resumeUnattended(sessionId: string, host: UnattendedHost): Promise<void> {
  let left = false;
  let opened = false;
  let idleEarly = false;
  const leave = async (): Promise<void> => {
    if (left) return;
    left = true;
    try {
      await host.detach(sessionId, client);
    } finally {
      client.close();
    }
  };
  const client: UnattendedClient = new UnattendedClient(() => {
    if (!opened) {
      idleEarly = true;
      return;
    }
    void leave().catch(() => undefined);
  });
  try {
    await host.resume({ sessionId, disableResume: true, requestPermission: false }, client);
  } catch (error) {
    client.close();
    throw error;
  }
  opened = true;
  if (idleEarly || !host.isBusy(sessionId)) await leave();
}

/** What {@link keepTurnRunning} needs of a session running here. */
export interface UnattendedSession {
  readonly sessionId: string;
  readonly turns: { readonly busy: boolean };
  attach(port: UnattendedClient, registration: ClientRegistration): void;
}

/**
 * The node every client of a busy session was connected to died: instead of closing the session
 * (which would abort its turn as if a user had), an {@link UnattendedClient} stays attached so the
 * turn goes on as a dead node's unattended turn does; it leaves when the session goes idle
 * (`detach`, which closes the session and frees its lease unless a client attached meanwhile).
 * Requests to clients wait for one to attach (see `ports/client-asks.ts`), then follow the
 * session's rules.
 */
export function keepTurnRunning(session: UnattendedSession, detach: (client: UnattendedClient) => Promise<void>): UnattendedClient {
  let left = false;
  const client: UnattendedClient = new UnattendedClient(() => {
    if (left) return;
    left = true;
    void detach(client)
      .catch(() => undefined)
      .finally(() => client.close());
  });
  session.attach(client, registrationOf({ requestPermission: false }));
  return client;
}
