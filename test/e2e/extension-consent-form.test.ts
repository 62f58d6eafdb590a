/**
 * Consent to start a working-folder extension, asked as a form: when the application answers forms
 * (1.0.x `onElicitationRequest`), the user's choice on a form naming the extension decides, and the
 * permission handler is not asked. Approve: it starts. Deny: it is held back (listed `disabled`, a
 * warning says how to allow it).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CopilotClient as V1Client, ElicitationContext, SessionEvent as V1Event } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

const fixture = officialClientFixture(officialV1Client);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git repository whose `.github/extensions/greeter` extension writes `started` next to itself once it joined. */
function repoWithExtension(): { repo: string; started: string } {
  const repo = mkdtempSync(join(tmpdir(), "tandem-consent-form-"));
  dirs.push(repo);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  const dir = join(repo, ".github", "extensions", "greeter");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "extension.mjs"),
    `import { writeFileSync } from "node:fs";\nimport { joinSession } from "@tandem/sdk/extension";\nawait joinSession({});\nwriteFileSync(new URL("./started", import.meta.url), "yes");\n`,
  );
  return { repo, started: join(dir, "started") };
}

describe("working-folder extension consent as a form (official SDK 1.0.x)", () => {
  it("starts the extension when the user approves the form; the permission handler is not asked", async () => {
    await fixture.startWorld(["plain-reply"]);
    const { repo, started } = repoWithExtension();
    const forms: ElicitationContext[] = [];
    const permissionRequests: unknown[] = [];
    const client = fixture.client() as unknown as V1Client;
    await client.createSession({
      workingDirectory: repo,
      onPermissionRequest: (request) => {
        permissionRequests.push(request);
        return { kind: "reject" };
      },
      onElicitationRequest: (context) => {
        forms.push(context);
        return { action: "accept", content: { action: "approve" } };
      },
    });
    await waitFor(() => existsSync(started), "the approved extension to start", 20_000);
    expect(forms).toHaveLength(1);
    expect(forms[0]!.message).toContain('"greeter"');
    expect(forms[0]!.message).toContain(repo);
    expect(forms[0]!.requestedSchema?.properties).toMatchObject({ action: { enum: ["approve", "deny"] } });
    expect(permissionRequests).toEqual([]);
  });

  it("holds the extension back when the user denies the form", async () => {
    await fixture.startWorld(["plain-reply"]);
    const { repo, started } = repoWithExtension();
    const events: V1Event[] = [];
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({
      workingDirectory: repo,
      onPermissionRequest: () => ({ kind: "approve-once" }),
      onElicitationRequest: () => ({ action: "accept", content: { action: "deny" } }),
      onEvent: (event) => events.push(event),
    });
    await waitFor(() => events.some((event) => event.type === "session.warning" && event.data.message.includes("greeter")), "the held-back warning", 20_000);
    const warning = events.find((event) => event.type === "session.warning");
    expect(warning?.type === "session.warning" && warning.data.message).toContain("the user denied it");
    const { extensions } = await session.rpc.extensions.list();
    expect(extensions).toEqual([expect.objectContaining({ name: "greeter", status: "disabled" })]);
    expect(existsSync(started)).toBe(false);
  });
});
