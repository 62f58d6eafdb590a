/**
 * The cluster chaos run: three runtime nodes on a real PostgreSQL, sessions in permission-gated
 * tool loops driven by clients on the node that created them and on another node, while nodes are
 * killed (`kill -9`) and restarted every few seconds, PostgreSQL is stopped and started, and one
 * node is stopped (SIGSTOP) past its lease. Afterwards every session must accept a send and finish
 * its turn, and the database is checked: seq without gap, one result per tool call, every
 * acknowledged send stored, no turn aborted as if by a user, every event a client saw stored.
 * Used by `test/chaos/chaos.test.ts` (short, in `npm test`) and `npm run chaos` (about 3 minutes).
 */
import { ephemeralEventTypes, type SessionEventType } from "@tandem/protocol";
import { ModelServer, validateScript } from "@tandem/testkit";
import pg from "pg";
import { worldAround, type TestWorld } from "../helpers/harness.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";
import { ChaosClient, type SeenEvent } from "./chaos-client.js";

/** How long and how hard. */
export interface ChaosOptions {
  durationMs: number;
  sessions: number;
  leaseTtlMs: number;
  /** How long PostgreSQL stays stopped. */
  outageMs: number;
  /** Pause between two chaos actions. */
  gapMs: number;
  /** How long, after the chaos, every session gets to finish a last turn. */
  recoveryMs: number;
  seed: number;
  log(line: string): void;
}

/** What the run found; every list is empty when the invariants held. */
export interface ChaosReport {
  actions: string[];
  sends: number;
  /** Sessions that did not finish a turn sent after the chaos (stuck). */
  stuck: string[];
  /** Acknowledged sends with no `user.message` stored. */
  lostSends: string[];
  /** Sessions whose seq has a gap or a duplicate. */
  seqBroken: string[];
  /** Tool calls without exactly one result (or results without a call). */
  badToolResults: string[];
  /** `abort` events with a user's reason although nobody aborted. */
  userAborts: string[];
  /** Events a client was sent as stored (not marked `ephemeral`) that the database does not hold. */
  seenNotStored: string[];
  /** Milliseconds from a node's kill or stop to each `session.turn_interrupted` it caused. */
  takeoverMs: number[];
}

const roles = ["creator", "driver"] as const;
type Role = (typeof roles)[number];

/** The model's side of every session: tool steps (each asks permission to run bash), a final answer every fourth. */
function chaosScript(steps: number) {
  return validateScript({
    name: "chaos-loop",
    match: "chaos loop",
    steps: Array.from({ length: steps }, (_, index) =>
      index % 4 === 3
        ? { reply: { content: `Round done at step ${index}.` } }
        : { reply: { toolCalls: [{ id: `call_${index}`, name: "bash", arguments: { command: `sleep 0.2; echo step-${index}`, description: `Step ${index}` } }] } },
    ),
  });
}

/** A small deterministic random source (the seed is printed, so a run can be repeated). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One node: its process (while up) and this run's two connections to it. */
class NodeSlot {
  runtime: TcpRuntime | undefined;
  stopped = false;
  private readonly clients = new Map<Role, Promise<ChaosClient>>();

  constructor(
    readonly nodeId: string,
    private readonly seen: SeenEvent[],
  ) {}

  get usable(): boolean {
    return this.runtime !== undefined && !this.stopped;
  }

  /** The connection of `role` to this node (opened on first use; again after the node restarted). */
  async client(role: Role): Promise<ChaosClient | undefined> {
    const runtime = this.runtime;
    if (!runtime || this.stopped) return undefined;
    let opening = this.clients.get(role);
    if (!opening) {
      opening = ChaosClient.open(runtime.port, this.seen);
      this.clients.set(role, opening);
      opening.then(
        (client) => client.onClose(() => this.clients.get(role) === opening && this.clients.delete(role)),
        () => this.clients.delete(role),
      );
    }
    const client = await opening.catch(() => undefined);
    return client?.isClosed ? undefined : client;
  }

  allClients(): Array<Promise<ChaosClient>> {
    return [...this.clients.values()];
  }
}

/** Runs the chaos and checks the invariants. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = await startPostgres();
  if (!started.server) throw new Error(`the chaos run needs PostgreSQL: ${started.skipped}`);
  const server: PostgresServer = started.server;
  const seen: SeenEvent[] = [];
  const slots = ["node-0", "node-1", "node-2"].map((nodeId) => new NodeSlot(nodeId, seen));
  let world: TestWorld | undefined;
  try {
    const url = await server.createDatabase("chaos");
    const model = new ModelServer();
    model.addScript(chaosScript(2000));
    world = await worldAround(model, { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: String(options.leaseTtlMs), TANDEM_CLIENT_REASK_MS: "20000" });
    const env = world.env;
    const startNode = async (slot: NodeSlot): Promise<void> => {
      slot.runtime = await startTcpRuntime(env, { args: ["--node-id", slot.nodeId, "--sdk-protocol-version", "2", "--log-level", "error"], startTimeoutMs: 30_000 });
      slot.stopped = false;
    };
    for (const slot of slots) await startNode(slot);

    // Sessions: created on node i % 3, driven from node (i + 1) % 3; both clients answer permissions.
    const sessions: Array<{ sessionId: string; home: [number, number]; attachedOn: Map<Role, ChaosClient> }> = [];
    for (let index = 0; index < options.sessions; index++) {
      const creator = (await slots[index % 3]!.client("creator"))!;
      const { sessionId } = await creator.request<{ sessionId: string }>("session.create", { requestPermission: true });
      sessions.push({ sessionId, home: [index % 3, (index + 1) % 3], attachedOn: new Map([["creator", creator]]) });
    }
    const idleSeen = new Map<string, number>();
    const watchIdle = (client: ChaosClient) => client.onIdle((sessionId) => idleSeen.set(sessionId, (idleSeen.get(sessionId) ?? 0) + 1));
    const watched = new WeakSet<ChaosClient>();

    /** A client of `role` attached to the session (resumed on its node again after a restart); else another usable node's. */
    const attachedClient = async (session: (typeof sessions)[number], role: Role): Promise<ChaosClient | undefined> => {
      const preferred = session.home[role === "creator" ? 0 : 1];
      const order = [preferred, ...[0, 1, 2].filter((index) => index !== preferred)];
      for (const index of order) {
        const client = await slots[index]!.client(role);
        if (!client) continue;
        if (!watched.has(client)) {
          watched.add(client);
          watchIdle(client);
        }
        if (session.attachedOn.get(role) === client) return client;
        try {
          await client.request("session.resume", { sessionId: session.sessionId, requestPermission: true }, 20_000);
          session.attachedOn.set(role, client);
          return client;
        } catch {
          continue;
        }
      }
      return undefined;
    };

    const db = new pg.Pool({ connectionString: url, max: 3 });
    db.on("error", () => undefined);
    const lastTurnEvent = async (sessionId: string): Promise<{ type: string; tools: number } | undefined> => {
      const { rows } = await db.query<{ type: string; tools: number }>(
        `SELECT type, CASE WHEN json_typeof(body->'data'->'toolRequests') = 'array' THEN json_array_length(body->'data'->'toolRequests') ELSE 0 END AS tools
           FROM events WHERE session_id = $1 AND type IN ('user.message', 'assistant.message', 'tool.execution_start', 'tool.execution_complete', 'session.turn_interrupted', 'abort', 'session.error')
          ORDER BY seq DESC LIMIT 1`,
        [sessionId],
      );
      return rows[0];
    };
    const inFlight = async (sessionId: string): Promise<boolean> => {
      const last = await lastTurnEvent(sessionId);
      if (!last) return false;
      if (last.type === "abort" || last.type === "session.error") return false;
      return !(last.type === "assistant.message" && Number(last.tools) === 0);
    };
    const waitIdle = async (sessionId: string, before: number, timeoutMs: number): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while ((idleSeen.get(sessionId) ?? 0) === before && Date.now() < deadline) await sleep(100);
    };

    const acknowledged: Array<{ sessionId: string; prompt: string }> = [];
    let stopping = false;
    let sendCount = 0;
    const worker = async (session: (typeof sessions)[number], index: number): Promise<void> => {
      for (let round = 0; !stopping; ) {
        const busy = await inFlight(session.sessionId).catch(() => true);
        if (busy) {
          await waitIdle(session.sessionId, idleSeen.get(session.sessionId) ?? 0, 2000);
          continue;
        }
        for (const role of roles) await attachedClient(session, role);
        const client = await attachedClient(session, "driver");
        if (!client) {
          await sleep(500);
          continue;
        }
        const prompt = `chaos loop s${index} r${round}`;
        const idleBefore = idleSeen.get(session.sessionId) ?? 0;
        try {
          sendCount++;
          await client.request("session.send", { sessionId: session.sessionId, prompt }, 20_000);
          acknowledged.push({ sessionId: session.sessionId, prompt });
          round++;
        } catch {
          await sleep(300);
          continue;
        }
        await waitIdle(session.sessionId, idleBefore, 30_000);
      }
    };

    // The chaos itself, one action at a time, while the workers drive the sessions.
    const actions: string[] = [];
    const downAt = new Map<string, number[]>();
    const note = (slot: NodeSlot) => downAt.set(slot.nodeId, [...(downAt.get(slot.nodeId) ?? []), Date.now()]);
    const pick = random(options.seed);
    const workers = sessions.map((session, index) => worker(session, index));
    const begin = Date.now();
    let outageDone = false;
    let pauseDone = false;
    await sleep(options.gapMs);
    while (Date.now() - begin < options.durationMs) {
      const elapsed = (Date.now() - begin) / options.durationMs;
      const slot = slots[Math.floor(pick() * slots.length)]!;
      if (!outageDone && elapsed > 0.35) {
        outageDone = true;
        actions.push(`postgres stopped for ${options.outageMs} ms`);
        await server.halt();
        await sleep(options.outageMs);
        await server.restart();
      } else if (!pauseDone && elapsed > 0.6) {
        pauseDone = true;
        const pauseMs = Math.round(options.leaseTtlMs * 2.5);
        actions.push(`${slot.nodeId} SIGSTOP for ${pauseMs} ms`);
        slot.stopped = true;
        note(slot);
        slot.runtime!.child.kill("SIGSTOP");
        await sleep(pauseMs);
        slot.runtime!.child.kill("SIGCONT");
        slot.stopped = false;
      } else {
        actions.push(`${slot.nodeId} kill -9`);
        note(slot);
        await slot.runtime!.stop("SIGKILL");
        slot.runtime = undefined;
        await sleep(1000 + Math.floor(pick() * 1000));
        await startNode(slot);
      }
      options.log(`[chaos] ${((Date.now() - begin) / 1000).toFixed(1)} s: ${actions.at(-1)}`);
      await sleep(options.gapMs);
    }
    stopping = true;
    await Promise.all(workers);

    // Recovery: every session must take one more send and finish its turn.
    options.log(`[chaos] chaos over after ${actions.length} actions; every session gets a last turn`);
    const finalPrompts = new Map<string, string>();
    const recoveryDeadline = Date.now() + options.recoveryMs;
    await Promise.all(
      sessions.map(async (session, index) => {
        const prompt = `chaos loop s${index} final`;
        while (Date.now() < recoveryDeadline) {
          const client = await attachedClient(session, "driver");
          const sent = await client?.request("session.send", { sessionId: session.sessionId, prompt }, 20_000).then(
            () => true,
            () => false,
          );
          if (sent) {
            acknowledged.push({ sessionId: session.sessionId, prompt });
            finalPrompts.set(session.sessionId, prompt);
            return;
          }
          await sleep(500);
        }
      }),
    );
    const finished = async (sessionId: string): Promise<boolean> => {
      const prompt = finalPrompts.get(sessionId);
      if (!prompt) return false;
      const { rows } = await db.query(
        `SELECT 1 FROM events AS answer WHERE answer.session_id = $1 AND answer.type = 'assistant.message'
            AND (json_typeof(answer.body->'data'->'toolRequests') IS DISTINCT FROM 'array' OR json_array_length(answer.body->'data'->'toolRequests') = 0)
            AND answer.seq > (SELECT seq FROM events WHERE session_id = $1 AND type = 'user.message' AND body->'data'->>'content' = $2 LIMIT 1)
          LIMIT 1`,
        [sessionId, prompt],
      );
      return rows.length > 0;
    };
    let pending = sessions.map((session) => session.sessionId);
    while (pending.length > 0 && Date.now() < recoveryDeadline) {
      const done = await Promise.all(pending.map((sessionId) => finished(sessionId).catch(() => false)));
      pending = pending.filter((_, index) => !done[index]);
      if (pending.length > 0) await sleep(1000);
    }

    const report = await checkInvariants(db, sessions.map((session) => session.sessionId), acknowledged, seen, downAt);
    await db.end();
    return { ...report, actions, sends: sendCount, stuck: pending };
  } finally {
    for (const slot of slots) {
      for (const opening of slot.allClients()) (await opening.catch(() => undefined))?.close();
      slot.runtime?.child.kill("SIGCONT");
      await slot.runtime?.stop("SIGTERM");
    }
    await world?.dispose();
    await server.stop();
  }
}

type EventRow = { session_id: string; seq: string; type: string; event_id: string; body: { timestamp: string; data: Record<string, unknown> } };

async function checkInvariants(
  db: pg.Pool,
  sessionIds: string[],
  acknowledged: Array<{ sessionId: string; prompt: string }>,
  seen: SeenEvent[],
  downAt: Map<string, number[]>,
): Promise<Omit<ChaosReport, "actions" | "sends" | "stuck">> {
  const { rows } = await db.query<EventRow>("SELECT session_id, seq, type, event_id, body FROM events WHERE session_id = ANY($1) ORDER BY session_id, seq", [sessionIds]);
  const bySession = new Map<string, EventRow[]>(sessionIds.map((sessionId) => [sessionId, []]));
  for (const row of rows) bySession.get(row.session_id)!.push(row);
  const storedIds = new Set(rows.map((row) => row.event_id));
  const seqBroken: string[] = [];
  const badToolResults: string[] = [];
  const userAborts: string[] = [];
  const takeoverMs: number[] = [];
  const prompts = new Set<string>();
  for (const [sessionId, events] of bySession) {
    if (!events.every((row, index) => Number(row.seq) === index + 1)) seqBroken.push(sessionId);
    const results = new Map<string, number>();
    for (const row of events.filter((event) => event.type === "tool.execution_complete")) {
      const id = row.body.data.toolCallId as string;
      results.set(id, (results.get(id) ?? 0) + 1);
    }
    const calls = events.filter((row) => row.type === "assistant.message").flatMap((row) => ((row.body.data.toolRequests as Array<{ toolCallId: string }> | undefined) ?? []).map((request) => request.toolCallId));
    for (const call of calls) if (results.get(call) !== 1) badToolResults.push(`${sessionId} ${call}: ${results.get(call) ?? 0} results`);
    for (const id of results.keys()) if (!calls.includes(id)) badToolResults.push(`${sessionId} ${id}: a result without a call`);
    for (const row of events) {
      if (row.type === "user.message") prompts.add(`${sessionId}\u0000${String(row.body.data.content)}`);
      if (row.type === "abort" && row.body.data.reason === "user initiated") userAborts.push(`${sessionId} seq ${row.seq}`);
      if (row.type !== "session.turn_interrupted") continue;
      const at = Date.parse(row.body.timestamp);
      const down = (downAt.get(String(row.body.data.previousNodeId)) ?? []).filter((time) => time <= at).at(-1);
      if (down !== undefined) takeoverMs.push(at - down);
    }
  }
  const lostSends = acknowledged.filter(({ sessionId, prompt }) => !prompts.has(`${sessionId}\u0000${prompt}`)).map(({ sessionId, prompt }) => `${sessionId}: ${prompt}`);
  const seenNotStored = [...new Set(seen.filter((event) => sessionIds.includes(event.sessionId) && !event.ephemeral && !ephemeralEventTypes.has(event.type as SessionEventType) && !storedIds.has(event.id)).map((event) => `${event.sessionId} ${event.type} ${event.id}`))];
  return { lostSends, seqBroken, badToolResults, userAborts, seenNotStored, takeoverMs: takeoverMs.sort((a, b) => a - b) };
}

/** "min … median … p90 … max" of a sorted list of milliseconds. */
export function distribution(sorted: readonly number[]): string {
  if (sorted.length === 0) return "no takeover happened";
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
  return `${sorted.length} takeovers: min ${sorted[0]} ms, median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${sorted.at(-1)} ms`;
}
