import { errorMessage } from "../errors.js";
import type { Semaphore } from "./semaphore.js";

/** One background agent run. */
export interface BackgroundAgent {
  id: string;
  name: string;
  agentType: string;
  status: "queued" | "running" | "completed" | "failed";
  startedAt: number;
  finishedAt?: number;
  result?: string;
  error?: string;
  /** What it was asked (when started through `session.tasks.startAgent` or the `task` tool). */
  prompt?: string;
  description?: string;
  model?: string;
  /** The tool call that started it (`session.tasks.startAgent` makes one up). */
  toolCallId?: string;
  done: Promise<void>;
}

/** What a background agent was asked, for the task list. */
export type BackgroundAgentDetails = Pick<BackgroundAgent, "prompt" | "description" | "model" | "toolCallId">;

/**
 * Background sub-agents of one session. Concurrency is bounded by the semaphore shared with
 * synchronous sub-agents; agents beyond the limit wait (status `queued`).
 */
export class BackgroundAgents {
  private readonly agents = new Map<string, BackgroundAgent>();
  /** Each running or queued agent's own stop (see {@link cancel}). */
  private readonly stops = new Map<string, AbortController>();
  private controller = new AbortController();

  constructor(
    private readonly limit: Semaphore,
    private readonly onFinished: (agent: BackgroundAgent) => void,
  ) {}

  /** Starts `work` in the background; returns the agent's id at once. */
  start(name: string, agentType: string, work: (signal: AbortSignal) => Promise<string>, details: BackgroundAgentDetails = {}): BackgroundAgent {
    const id = this.uniqueId(name);
    const agent: BackgroundAgent = { id, name, agentType, status: "queued", startedAt: Date.now(), ...details, done: Promise.resolve() };
    agent.done = this.run(agent, work);
    this.agents.set(id, agent);
    return agent;
  }

  /** A readable id: the name itself, with a counter only when it is taken. */
  private uniqueId(name: string): string {
    const base = name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40) || "agent";
    if (!this.agents.has(base)) return base;
    for (let counter = 2; ; counter++) {
      if (!this.agents.has(`${base}-${counter}`)) return `${base}-${counter}`;
    }
  }

  get(id: string): BackgroundAgent | undefined {
    return this.agents.get(id);
  }

  list(includeCompleted: boolean): BackgroundAgent[] {
    return [...this.agents.values()].filter((agent) => includeCompleted || agent.status === "running" || agent.status === "queued");
  }

  /** Whether any agent is still queued or running. */
  get active(): boolean {
    return [...this.agents.values()].some((agent) => agent.status === "running" || agent.status === "queued");
  }

  /** Stops one running or queued agent; false when it is unknown or has finished. */
  cancel(id: string): boolean {
    const stop = this.stops.get(id);
    if (!stop) return false;
    stop.abort(new Error("cancelled"));
    return true;
  }

  /** Forgets a finished agent; false when it is unknown or still running or queued. */
  remove(id: string): boolean {
    const agent = this.agents.get(id);
    if (!agent || agent.status === "running" || agent.status === "queued") return false;
    return this.agents.delete(id);
  }

  /** Resolves when one of the agents still queued or running finishes (at once when none is). */
  nextFinished(): Promise<void> {
    const unfinished = [...this.agents.values()].filter((agent) => agent.status === "running" || agent.status === "queued");
    if (unfinished.length === 0) return Promise.resolve();
    return Promise.race(unfinished.map((agent) => agent.done));
  }

  /** Resolves once every agent started so far has finished. */
  async settled(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.done));
  }

  /** Stops every running or queued background agent (session shutdown, or its files cannot be written); later ones start afresh. */
  cancelAll(reason = "session ended"): void {
    const running = this.controller;
    this.controller = new AbortController();
    running.abort(new Error(reason));
  }

  private async run(agent: BackgroundAgent, work: (signal: AbortSignal) => Promise<string>): Promise<void> {
    // Taken now: an agent still queued when `cancelAll` runs must see that cancellation.
    const stop = new AbortController();
    this.stops.set(agent.id, stop);
    const signal = AbortSignal.any([this.controller.signal, stop.signal]);
    try {
      agent.result = await this.limit.run(() => {
        agent.status = "running";
        return work(signal);
      });
      agent.status = "completed";
    } catch (error) {
      agent.error = errorMessage(error);
      agent.status = "failed";
    } finally {
      this.stops.delete(agent.id);
      agent.finishedAt = Date.now();
      this.onFinished(agent);
    }
  }
}
