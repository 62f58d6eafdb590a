/**
 * `session.context_changed` (cwd, gitRoot, repository `owner/name` from the remote, branch): never at
 * session start for either client generation (`session.start` carries the context; no reference
 * runtime announces it again there), after a turn that changed them (a bash `git checkout -b`), and
 * not after a turn that changed nothing. A session resumed in another process after its branch
 * changed announces the new context; one whose context is unchanged does not.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approveAll, type CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { officialClient, tandemClient } from "../helpers/official-client.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.each([
  { sdk: "official SDK 0.2.0", make: officialClient },
  { sdk: "@tandem/sdk", make: tandemClient },
])("session.context_changed ($sdk)", ({ make }) => {
  it("not at start, after a branch switch, and not after a turn that changed nothing", async () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "tandem-ctx-")));
    dirs.push(repo);
    execFileSync("git", ["init", "-q", "-b", "main", repo]);
    execFileSync("git", ["-C", repo, "remote", "add", "origin", "git@github.com:acme/widgets.git"]);
    const sub = join(repo, "src");
    mkdirSync(sub);

    world = await startWorld(["context-branch"]);
    const client = make(world.env);
    clients.push(client);
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: sub });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const stored = await session.getMessages();
    const start = eventsOf(stored, "session.start")[0]!;
    const expected = { cwd: sub, gitRoot: repo, repository: "acme/widgets", branch: "main" };
    expect(start.data.context).toEqual(expected);
    const initial = stored.filter((event) => (event.type as string) === "session.context_changed");
    expect(initial).toEqual([]);

    // The session's opening events reach the handler too (after the create result): count from here.
    const contextEvents = () => events.filter((event) => (event.type as string) === "session.context_changed");
    const before = contextEvents().length;
    await session.sendAndWait({ prompt: "switch to a feature branch" }, 30_000);
    await waitFor(() => contextEvents().length > before, "the branch switch to be reported");
    expect(contextEvents().slice(before).map((event) => event.data)).toEqual([{ ...expected, branch: "feature/login" }]);

    await session.sendAndWait({ prompt: "anything new?" }, 30_000);
    // The checks run one after another once each turn is idle: a change made now is reported by a
    // later check, so when it is, the check after "anything new?" has run (and must have said nothing).
    execFileSync("git", ["-C", repo, "checkout", "-q", "-b", "marker"]);
    await session.sendAndWait({ prompt: "and now?" }, 30_000);
    await waitFor(() => contextEvents().length > before + 1, "the marker branch to be reported");
    expect(contextEvents().slice(before).map((event) => event.data)).toEqual([
      { ...expected, branch: "feature/login" },
      { ...expected, branch: "marker" },
    ]);
  });

  it("on resume: announces a branch switched while the session was closed, and nothing when the context is unchanged", async () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "tandem-ctx-")));
    dirs.push(repo);
    execFileSync("git", ["init", "-q", "-b", "main", repo]);
    execFileSync("git", ["-C", repo, "remote", "add", "origin", "https://github.com/acme/widgets.git"]);
    world = await startWorld(["context-branch"]);
    const first = make(world.env);
    clients.push(first);
    const session = await first.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    const { sessionId } = session;
    await first.stop();

    const contextEvents = (events: SessionEvent[]) => events.filter((event) => (event.type as string) === "session.context_changed").map((event) => event.data);
    // Unchanged: the resume announces nothing new.
    const again = make(world.env);
    clients.push(again);
    const unchanged = await again.resumeSession(sessionId, { onPermissionRequest: approveAll });
    const afterUnchanged = await unchanged.getMessages();
    expect(contextEvents(afterUnchanged)).toEqual([]);
    await again.stop();

    execFileSync("git", ["-C", repo, "checkout", "-q", "-b", "release/2.0"]);
    const third = make(world.env);
    clients.push(third);
    const resumed = await third.resumeSession(sessionId, { onPermissionRequest: approveAll });
    const stored = await resumed.getMessages();
    const types = stored.map((event) => event.type as string);
    expect(contextEvents(stored)).toEqual([{ cwd: repo, gitRoot: repo, repository: "acme/widgets", branch: "release/2.0" }]);
    // After the session.resume that reopened it.
    expect(types.lastIndexOf("session.context_changed")).toBeGreaterThan(types.lastIndexOf("session.resume"));
  });
});
