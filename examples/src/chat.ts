/**
 * The chat sample: a terminal REPL on top of Tandem through our SDK. Streams the answer as basic
 * markdown (headings, lists, code, emphasis); what is typed while the agent works stays out of the
 * answer and comes back as the next input; asks before side effects with one key (y / n / a =
 * always for this session); shows each tool's output collapsed; Ctrl-C stops the running turn and a
 * second Ctrl-C (or one at the prompt) exits. `--resume [id]` reprints the saved conversation and
 * goes on with it.
 * Without a configured provider it uses the testkit's scripted model, like the demo.
 *
 *   node examples/dist/chat.js [--resume [SESSION_ID]]
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { CopilotClient, type CopilotSession, type PermissionRequest, type PermissionRequestResult } from "@tandem/sdk";
import { ModelServer } from "@tandem/testkit";
import { BusyKeyboard } from "./busy-keyboard.js";
import { getWeather } from "./demo-tools.js";
import { TerminalMarkdown } from "./terminal-markdown.js";
import { historyText, shellRequestText, toolCallLine, toolResultText } from "./transcript.js";

const dim = (text: string) => `\x1b[2m${text}\x1b[0m`;

/** What a permission request is about, in one line, and the key "always" remembers. */
function describeRequest(request: PermissionRequest): { text: string; key: string } {
  switch (request.kind) {
    case "shell":
      // A bypass is never remembered: each one is asked.
      if (request.requestSandboxBypass) return { text: shellRequestText(request), key: `bypass:${request.toolCallId ?? Math.random()}` };
      return { text: shellRequestText(request), key: `shell:${request.commands.map((command) => command.identifier).join("\n")}` };
    case "write":
      return { text: `write ${request.fileName}`, key: "write" };
    case "read":
      return { text: `read ${request.path}`, key: "read" };
    case "url":
      return { text: `fetch ${request.url}`, key: `url:${request.url}` };
    case "mcp":
      return { text: `call ${request.toolName} on ${request.serverName}`, key: `mcp:${request.serverName}:${request.toolName}` };
    default:
      return { text: request.kind, key: request.kind };
  }
}

/**
 * The lines the user types. readline drops a line typed while no question waits (while the agent
 * works), so every line is kept here until a prompt takes it: what was typed ahead is not lost.
 */
class TypedLines {
  readonly #queued: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #closed = false;

  constructor(private readonly terminal: Interface) {
    terminal.on("line", (line: string) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting) waiting(line);
      else this.#queued.push(line);
    });
    terminal.on("close", () => {
      this.#closed = true;
      this.#waiting?.(undefined);
    });
  }

  /** Lines typed while readline did not have the keyboard (during a turn): the next prompts take them. */
  queue(lines: readonly string[]): void {
    this.#queued.push(...lines);
  }

  /**
   * Shows `prompt` and resolves with the next line (undefined once input is closed). With `fresh`,
   * lines typed before the prompt stay queued for later (a permission answer must be typed after
   * the question). `typed` is put on the prompt as if just typed (a line begun during the turn).
   */
  next(prompt: string, fresh = false, typed = ""): Promise<string | undefined> {
    const queued = fresh ? undefined : this.#queued.shift();
    if (queued !== undefined) {
      process.stdout.write(`${prompt}${queued}\n`);
      return Promise.resolve(queued);
    }
    if (this.#closed) return Promise.resolve(undefined);
    this.terminal.setPrompt(prompt);
    this.terminal.prompt();
    if (typed) this.terminal.write(typed);
    return new Promise((resolve) => (this.#waiting = resolve));
  }
}

/**
 * Asks y / n / a before a side effect; "a" approves the same request for the rest of the session.
 * On a terminal one key answers (the keyboard is the turn's); otherwise a line does.
 */
function permissionPrompt(lines: TypedLines, keyboard: BusyKeyboard, approvedForSession: Set<string>) {
  return async (request: PermissionRequest): Promise<PermissionRequestResult> => {
    const { text, key } = describeRequest(request);
    if (approvedForSession.has(key)) return { kind: "approved" };
    const question = `\n\x1b[33mAllow the agent to ${text}? [y]es / [n]o / [a]lways this session: \x1b[0m`;
    if (keyboard.active) {
      process.stdout.write(question);
      const answer = await keyboard.askKey(["y", "n", "a"]);
      process.stdout.write(`${answer ?? ""}\n`);
      if (answer === "a") approvedForSession.add(key);
      return answer === "y" || answer === "a" ? { kind: "approved" } : { kind: "denied-interactively-by-user" };
    }
    for (;;) {
      const line = await lines.next(question, true);
      if (line === undefined) return { kind: "denied-interactively-by-user" };
      const answer = line.trim().toLowerCase();
      if (answer === "y" || answer === "yes") return { kind: "approved" };
      if (answer === "a" || answer === "always") {
        approvedForSession.add(key);
        return { kind: "approved" };
      }
      if (answer === "n" || answer === "no") return { kind: "denied-interactively-by-user" };
    }
  };
}

function readArgs(argv: string[]): { resume: boolean; sessionId?: string } {
  const index = argv.indexOf("--resume");
  if (index < 0) return { resume: false };
  const next = argv[index + 1];
  return { resume: true, sessionId: next && !next.startsWith("-") ? next : undefined };
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  const realProvider = process.env.COPILOT_API_URL ?? process.env.OPENAI_BASE_URL ?? (process.env.OPENAI_API_KEY ? "https://api.openai.com/v1" : undefined);
  const env: Record<string, string | undefined> = { ...process.env };
  let model: ModelServer | undefined;
  if (!realProvider) {
    model = new ModelServer();
    model.loadScriptFile(fileURLToPath(new URL("../scripts/chat.yaml", import.meta.url)));
    const { url } = await model.start();
    // Scripted sessions live in their own folder, kept so that `--resume` finds them.
    const home = join(tmpdir(), "tandem-chat-scripted");
    mkdirSync(home, { recursive: true });
    Object.assign(env, { COPILOT_API_URL: url, GH_TOKEN: "chat-token", COPILOT_HOME: home });
    console.log(dim(`No model provider configured: using the testkit's scripted model at ${url}.`));
  }

  // Runtime logs stay out of the conversation (errors only, on the runtime's stderr).
  const client = new CopilotClient({ env, logLevel: "error" });
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  const approvedForSession = new Set<string>();
  const lines = new TypedLines(terminal);
  let turn: { done: Promise<void>; finish: () => void } | undefined;
  let interrupts = 0;
  let session: CopilotSession | undefined;
  const interrupt = () => {
    interrupts++;
    if (!turn || interrupts > 1) return void exit(0);
    console.log(dim("\n(stopping; Ctrl-C again to exit)"));
    void session?.abort().catch(() => undefined);
  };
  const keyboard = new BusyKeyboard(terminal, process.stdin, interrupt);
  const handlers = { onPermissionRequest: permissionPrompt(lines, keyboard, approvedForSession), tools: [getWeather], streaming: true };
  await client.start();
  const resumeId = args.resume ? (args.sessionId ?? (await client.getLastSessionId())) : undefined;
  if (args.resume && !resumeId) console.log(dim("No saved session to resume: starting a new one."));
  const opened = resumeId ? await client.resumeSession(resumeId, handlers) : await client.createSession(handlers);
  session = opened;
  if (resumeId) process.stdout.write(historyText(await opened.getMessages()));
  console.log(dim(`Session ${opened.sessionId}${resumeId ? " resumed" : ""}. Ctrl-C stops a turn, a second Ctrl-C exits; /exit leaves.`));

  const markdown = new TerminalMarkdown();
  const streamed = new Set<string>();
  opened.on("assistant.message_delta", (event) => {
    streamed.add(event.data.messageId);
    process.stdout.write(markdown.push(event.data.deltaContent));
  });
  opened.on("assistant.message", (event) => {
    const unstreamed = streamed.delete(event.data.messageId) ? "" : markdown.push(event.data.content);
    process.stdout.write(`${unstreamed}${markdown.end()}\n`);
  });
  opened.on("tool.execution_start", (event) => console.log(toolCallLine(event.data.toolName, event.data.arguments)));
  opened.on("tool.execution_complete", (event) => process.stdout.write(toolResultText(event)));
  opened.on("session.error", (event) => console.log(`\x1b[31m${event.data.errorType}: ${event.data.message}\x1b[0m`));
  opened.on("session.idle", () => turn?.finish());

  async function exit(code: number): Promise<void> {
    // Leaving must not wait on a runtime that does not stop.
    setTimeout(() => process.exit(code), 5_000).unref();
    terminal.close();
    await client.stop().catch(() => undefined);
    await model?.stop().catch(() => undefined);
    process.exit(code);
  }
  terminal.on("SIGINT", interrupt);

  let typedAhead = "";
  for (;;) {
    interrupts = 0;
    const input = (await lines.next("\x1b[1mYou:\x1b[0m ", false, typedAhead)) ?? "/exit";
    typedAhead = "";
    if (input.trim() === "/exit") break;
    if (!input.trim()) continue;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    turn = { done, finish };
    process.stdout.write("\x1b[1mAssistant:\x1b[0m ");
    // Keys typed from here on stay out of the streamed answer; they come back at the next prompt.
    keyboard.start();
    await opened.send({ prompt: input });
    await done;
    turn = undefined;
    const typed = keyboard.stop();
    lines.queue(typed.lines);
    typedAhead = typed.partial;
  }
  await exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
