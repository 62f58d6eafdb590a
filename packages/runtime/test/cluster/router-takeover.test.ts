import { describe, expect, it } from "vitest";
import type { NodeBus } from "../../src/cluster/node-bus.js";
import type { SessionLeases } from "../../src/cluster/leases.js";
import { clusterMethods } from "../../src/cluster/remote-client.js";
import { ClusterRouter } from "../../src/cluster/router.js";
import { profileFor } from "../../src/compat/profile.js";
import { Logger } from "../../src/log.js";
import type { RequestingClient } from "../../src/ports/clients.js";

const sessionId = "session-1";
const event = (id: string) => ({ id, type: "assistant.message", json: JSON.stringify({ id, type: "assistant.message", data: {} }) });

/** A client of this node that records the events it is sent and the requests put to it. */
function recordingClient(): RequestingClient & { received: string[]; asked: string[] } {
  const received: string[] = [];
  const asked: string[] = [];
  return {
    id: 7,
    isOpen: true,
    isCurrentClient: false,
    profile: profileFor("0.2"),
    received,
    asked,
    onClose: () => undefined,
    sendNotification: () => undefined,
    sendRequest: <R>(method: string) => {
      asked.push(method);
      return Promise.resolve(null as R);
    },
    deliverSessionEvent: (_sessionId: string, json: string) => received.push((JSON.parse(json) as { id: string }).id),
  };
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("a client whose session's owner died", () => {
  it("gets each stored event once: relayed events and requests of the dead owner that arrive after the session opened here are dropped", async () => {
    let ownerAlive = true;
    let live = false;
    const client = recordingClient();
    const stored = [event("e1"), event("e2"), event("e3")];
    // The node bus and leases as this node sees them: the session runs on node-0 until node-0 dies.
    const bus = {
      request: async (_target: string, method: string) => (method === clusterMethods.rpc ? { sessionId } : null),
      notify: async () => undefined,
    } as unknown as NodeBus;
    const leases = {
      holder: async () => (ownerAlive ? { nodeId: "node-0", expiresAt: new Date(Date.now() + 60_000) } : undefined),
    } as unknown as SessionLeases;
    const router = new ClusterRouter({
      nodeId: "node-1",
      bus,
      leases,
      isAlive: async (nodeId) => nodeId !== "node-0" || ownerAlive,
      logger: new Logger("none", () => undefined),
      ttlMs: 300,
      host: {
        isLive: () => live,
        findClient: (clientId) => (clientId === client.id ? client : undefined),
        runLocal: async (method) => {
          if (method === "session.resume") live = true;
          return { sessionId };
        },
        lostSession: async () => undefined,
      },
      storedEventsAfter: async (_sessionId, knownIds) => stored.slice(stored.findIndex((entry) => entry.id === knownIds.at(-1)) + 1),
    });
    router.start();
    try {
      await router.dispatch("session.resume", { sessionId }, client);
      await router.handleBus(clusterMethods.deliver, { clientId: client.id, items: [{ kind: "event", sessionId, json: stored[0]!.json, type: stored[0]!.type }] });
      expect(client.received).toEqual(["e1"]);

      // node-0 stored e2 and e3 and died before relaying them: the catch-up sends them from the log
      // and the session opens here.
      ownerAlive = false;
      await until(() => live, "the session to open on this node");
      expect(client.received).toEqual(["e1", "e2", "e3"]);

      // node-0's relay of e2 and e3 was still on its way (held on the bus) and arrives now.
      const late = stored.slice(1).map((entry) => ({ kind: "event" as const, sessionId, json: entry.json, type: entry.type }));
      await router.handleBus(clusterMethods.deliver, { clientId: client.id, items: late });
      expect(client.received).toEqual(["e1", "e2", "e3"]);

      // A request the dead owner sent the client before it died is not put to the client any more.
      await expect(router.handleBus(clusterMethods.clientRequest, { clientId: client.id, method: "permission.request", params: { sessionId }, items: late })).rejects.toThrow(/runs on node node-1/);
      expect(client.asked).toEqual([]);
      expect(client.received).toEqual(["e1", "e2", "e3"]);
    } finally {
      router.stop();
    }
  });
});
