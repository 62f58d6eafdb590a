/**
 * `session.factory.*` through the official SDK 1.0.x against the built `tandem`: an extension in the
 * working folder declares agent factories with the SDK's `defineFactory` (its SDK resolved from the
 * application's `extensionSdkPath`); the runtime runs them in that extension and keeps each run —
 * status, result, progress, phases, journal, sub-agents — announcing every change with
 * `factory.run_updated`. Switched on by `AGENT_FACTORIES` in `COPILOT_CLI_ENABLED_FEATURE_FLAGS`.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { approveAll, FactoryResumeError } from "copilot-sdk-v1";
import type { CopilotClient as V1Client, CopilotSession as V1Session, SessionEvent as V1Event } from "copilot-sdk-v1";
import { ErrorCodes } from "@tandem/protocol/errors";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

const fixture = officialClientFixture(officialV1Client);
const v1SdkFolder = fileURLToPath(new URL("../../node_modules/copilot-sdk-v1/dist/", import.meta.url));
const factoryKit = fileURLToPath(new URL("../fixtures/factory-kit.mjs", import.meta.url));
const featureOn = { COPILOT_CLI_ENABLED_FEATURE_FLAGS: "EXTENSIONS,AGENT_FACTORIES" };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git repository holding the factory-kit extension; `marker(name)` is a file the extension writes. */
function repoWithFactoryKit(): { repo: string; marker: (name: string) => string } {
  const repo = mkdtempSync(join(tmpdir(), "tandem-factory-"));
  dirs.push(repo);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  const extensionDir = join(repo, ".github", "extensions", "factory-kit");
  mkdirSync(extensionDir, { recursive: true });
  copyFileSync(factoryKit, join(extensionDir, "extension.mjs"));
  return { repo, marker: (name) => join(extensionDir, name) };
}

/** A session whose working folder has the factory-kit extension, once the extension joined. */
async function sessionWithFactories(scripts: string[] = ["plain-reply"]): Promise<{ session: V1Session; events: V1Event[]; marker: (name: string) => string }> {
  await fixture.startWorld(scripts, featureOn);
  const { repo, marker } = repoWithFactoryKit();
  const client = fixture.client() as unknown as V1Client;
  const events: V1Event[] = [];
  const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo, requestExtensions: true, extensionSdkPath: v1SdkFolder, onEvent: (event) => events.push(event) });
  await waitFor(() => existsSync(marker("ready")), "the factory-kit extension to join", 30_000);
  return { session, events, marker };
}

describe("session.factory.* (official SDK 1.0.x, factories declared by an extension)", () => {
  it("runs a factory in its extension; getRun, listRuns, getRunDetail and getRunProgress report the run; every change is announced", async () => {
    const { session, events } = await sessionWithFactories();
    const started = await session.rpc.factory.run({ name: "word-count", args: { text: "one two  three" } });
    expect(started.status).toBe("running");

    const settled = await session.factory.waitForRun(started.runId);
    expect(settled).toEqual({ runId: started.runId, status: "completed", result: { words: 3 } });
    expect(await session.rpc.factory.getRun({ runId: started.runId })).toEqual(settled);

    const updates = events.filter((event) => event.type === "factory.run_updated").map((event) => event.data as { runId: string; revision: number });
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.every((update) => update.runId === started.runId)).toBe(true);
    const revisions = updates.map((update) => update.revision);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));

    const { runs } = await session.rpc.factory.listRuns({});
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runId: started.runId, factoryName: "word-count", description: "Counts the words of a text.", status: "completed", declaredPhaseCount: 2, totalSpawnedAgentCount: 0 });
    expect(runs[0]!.terminal?.resultPreview).toBe('{"words":3}');

    const detail = await session.rpc.factory.getRunDetail({ runId: started.runId });
    expect(detail.phases.map((phase) => ({ title: phase.title, status: phase.status, entryCount: phase.entryCount }))).toEqual([
      { title: "Count", status: "completed", entryCount: 1 },
      { title: "Never reached", status: "skipped", entryCount: 0 },
    ]);
    expect(detail.phases[0]!.detail).toBe("splits on white space");
    expect(detail.progress.records.map((record) => ({ kind: record.kind, text: record.text, phaseId: record.phaseId }))).toEqual([
      { kind: "phase", text: "Count", phaseId: detail.phases[0]!.id },
      { kind: "log", text: "counting 14 characters", phaseId: detail.phases[0]!.id },
    ]);

    const [first, second] = detail.progress.records;
    const after = await session.rpc.factory.getRunProgress({ runId: started.runId, afterSeq: first!.seq });
    expect(after.records.map((record) => record.seq)).toEqual([second!.seq]);
    expect(after).toMatchObject({ hasMoreOlder: true, hasMoreNewer: false });
    const latestOne = await session.rpc.factory.getRunProgress({ runId: started.runId, limit: 1 });
    expect(latestOne.records.map((record) => record.text)).toEqual(["counting 14 characters"]);
  });

  it("resumes a failed run with its arguments and journal; resume refuses unknown and completed runs with their codes", async () => {
    const { session, marker } = await sessionWithFactories();
    const failed = await session.factory.run("fails-after-step");
    expect(failed).toMatchObject({ status: "error", error: expect.stringContaining("the first attempt breaks on purpose") });

    const resumed = await session.factory.resume(failed.runId);
    // The journaled step is not produced again on resume.
    expect(resumed).toEqual({ runId: failed.runId, status: "completed", result: { value: 42, producerCalls: 1 } });
    expect(readFileSync(marker("producer-calls"), "utf8")).toBe("1");

    const completedAgain = await session.factory.resume(failed.runId).catch((error: unknown) => error);
    expect(completedAgain).toBeInstanceOf(FactoryResumeError);
    expect((completedAgain as FactoryResumeError).code).toBe("non_resumable");
    const unknown = await session.factory.resume("no-such-run").catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(FactoryResumeError);
    expect((unknown as FactoryResumeError).code).toBe("not_found");
    await expect(session.rpc.factory.getRun({ runId: "no-such-run" })).rejects.toMatchObject({ code: ErrorCodes.InvalidParams });
  });

  it("starts the sub-agents a body asks for (plain text and schema-shaped JSON) and lists them in the run's detail", async () => {
    const { session, events } = await sessionWithFactories(["factory-agent-sub", "factory-agent-json"]);
    const run = await session.factory.run("asks-agents");
    expect(run).toEqual({ runId: run.runId, status: "completed", result: { text: "The factory's sub-agent answered.", structured: { answer: "forty-two", sure: true } } });

    const detail = await session.rpc.factory.getRunDetail({ runId: run.runId });
    expect(detail.agents.map((agent) => ({ label: agent.label, status: agent.status, phaseId: agent.phaseId }))).toEqual([
      { label: "plain", status: "completed", phaseId: detail.phases[0]!.id },
      { label: "structured", status: "completed", phaseId: detail.phases[0]!.id },
    ]);
    expect(detail.totalSpawnedAgentCount).toBe(2);
    expect(detail.phases[0]).toMatchObject({ title: "Ask", totalAgentCount: 2, liveAgentCount: 0 });
    // The sub-agents run like the task tool's: announced as sub-agents of the session.
    expect(events.filter((event) => event.type === "subagent.completed")).toHaveLength(2);
  });

  it("enforces a run's maxTotalSubagents: the sub-agent past it is refused and the body fails with the limit named", async () => {
    const { session, events } = await sessionWithFactories(["factory-agent-sub", "factory-agent-json"]);
    const started = await session.rpc.factory.run({ name: "asks-agents", args: null, options: { limits: { maxTotalSubagents: 1 } } });
    const settled = await session.factory.waitForRun(started.runId);
    expect(settled).toMatchObject({ status: "error", error: expect.stringContaining("maxTotalSubagents") });
    const detail = await session.rpc.factory.getRunDetail({ runId: started.runId });
    expect(detail.approved).toMatchObject({ maxTotalSubagents: 1 });
    expect(detail.agents.map((agent) => agent.label)).toEqual(["plain"]);
    expect(events.filter((event) => event.type === "subagent.started")).toHaveLength(1);
  });

  it("enforces a run's maxConcurrentSubagents: parallel sub-agents run one after the other", async () => {
    const { session, events } = await sessionWithFactories(["factory-agent-sub"]);
    const started = await session.rpc.factory.run({ name: "two-at-once", args: null, options: { limits: { maxConcurrentSubagents: 1 } } });
    const settled = await session.factory.waitForRun(started.runId);
    expect(settled).toMatchObject({ status: "completed", result: ["The factory's sub-agent answered.", "The factory's sub-agent answered."] });
    const lifecycle = events.filter((event) => event.type === "subagent.started" || event.type === "subagent.completed").map((event) => event.type);
    expect(lifecycle).toEqual(["subagent.started", "subagent.completed", "subagent.started", "subagent.completed"]);
  });

  it("enforces a run's timeoutSeconds: the run settles as error with the limit as its failure, and the body is aborted", async () => {
    const { session, marker } = await sessionWithFactories();
    const started = await session.rpc.factory.run({ name: "waits-for-cancel", args: null, options: { limits: { timeoutSeconds: 0.5 } } });
    const settled = await session.factory.waitForRun(started.runId);
    expect(settled).toMatchObject({
      status: "error",
      error: expect.stringContaining("timeoutSeconds"),
      failure: { type: "factory_limit_reached", kind: "timeoutSeconds", value: 0.5, runId: started.runId },
    });
    await waitFor(() => existsSync(marker("aborted")), "the body's abort signal");
  });

  it("cancels a running factory: the run is cancelled and the body's abort signal fires in the extension", async () => {
    const { session, marker } = await sessionWithFactories();
    const started = await session.rpc.factory.run({ name: "waits-for-cancel", args: null });
    await waitFor(() => existsSync(marker("waiting")), "the body to start");
    const cancelled = await session.rpc.factory.cancel({ runId: started.runId });
    expect(cancelled).toMatchObject({ runId: started.runId, status: "cancelled", reason: expect.stringContaining("session.factory.cancel") });
    await waitFor(() => existsSync(marker("aborted")), "the body's abort signal");
    // The body's late answer does not change a cancelled run.
    expect(await session.factory.waitForRun(started.runId)).toMatchObject({ status: "cancelled" });
    expect(await session.rpc.factory.cancel({ runId: started.runId })).toMatchObject({ status: "cancelled" });
  });

  it("settles a run as error when its extension dies mid-body; the run can be looked at afterwards", async () => {
    const { session, marker } = await sessionWithFactories();
    const started = await session.rpc.factory.run({ name: "waits-for-cancel", args: null });
    await waitFor(() => existsSync(marker("waiting")), "the body to start");
    process.kill(Number(readFileSync(marker("waiting"), "utf8")), "SIGKILL");
    const settled = await session.factory.waitForRun(started.runId);
    expect(settled).toMatchObject({ status: "error", error: expect.stringContaining('The extension that declares factory "waits-for-cancel" disconnected') });
    const { runs } = await session.rpc.factory.listRuns({});
    expect(runs.map((run) => run.status)).toEqual(["error"]);
    // Nobody declares the factory any more: resuming is refused before a new attempt starts.
    await expect(session.rpc.factory.resume({ runId: started.runId })).rejects.toMatchObject({ code: ErrorCodes.InvalidParams, data: expect.objectContaining({ code: "factory_not_found" }) });
  });

  it("refuses an undeclared factory with InvalidParams (factory_not_found) and a stale execution token", async () => {
    const { session } = await sessionWithFactories();
    await expect(session.rpc.factory.run({ name: "no-such-factory", args: {} })).rejects.toMatchObject({
      code: ErrorCodes.InvalidParams,
      message: expect.stringContaining('No factory named "no-such-factory"'),
      data: expect.objectContaining({ code: "factory_not_found" }),
    });
    const done = await session.factory.run("word-count", { args: { text: "a" } });
    await expect(session.rpc.factory.log({ runId: done.runId, executionToken: "not-the-attempt", lines: [{ seq: 1, kind: "log", text: "late" }] })).rejects.toMatchObject({
      code: ErrorCodes.InvalidParams,
      data: expect.objectContaining({ code: "stale_execution_token" }),
    });
    await expect(session.rpc.factory.journal.get({ runId: done.runId, executionToken: "not-the-attempt", key: "count" })).rejects.toMatchObject({ code: ErrorCodes.InvalidParams });
  });

  it("answers NotAvailable, naming the feature flag, when AGENT_FACTORIES is not switched on", async () => {
    await fixture.startWorld(["plain-reply"]);
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({ onPermissionRequest: approveAll });
    await expect(session.rpc.factory.listRuns({})).rejects.toMatchObject({ code: ErrorCodes.NotAvailable, message: expect.stringContaining("COPILOT_CLI_ENABLED_FEATURE_FLAGS") });
    await expect(session.rpc.factory.run({ name: "word-count", args: {} })).rejects.toMatchObject({ code: ErrorCodes.NotAvailable });
  });
});
