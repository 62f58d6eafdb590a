/**
 * The official Python SDK as a driver of the scenarios. A client is one bridge process
 * (`conformance/python/bridge.py`) that runs the Python SDK's `CopilotClient`; this module gives it
 * the shape the scenarios use with the JavaScript SDKs (`start`, `createSession({ onEvent, ... })`,
 * `session.on/send/abort`, `session.rpc.mode.set`) and answers its callbacks (permission decisions,
 * custom tools, the user's answers) with the scenario's handlers.
 *
 * The Python side runs in a virtualenv in `.bench-cache/python-venv/`, made by `preparePython` on
 * the first run: it takes the interpreter's own packages (`--system-site-packages`: pydantic >= 2
 * and python-dateutil must be there, the package index is not reachable here) and finds the SDK
 * source through a `.pth` file (`CONFORMANCE_PYTHON_SDK`, default the shared copy of the official
 * SDK suite).
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDir } from "../../bench/lib/paths.mjs";

const bridgeScript = fileURLToPath(new URL("../python/bridge.py", import.meta.url));
const venvDir = join(cacheDir, "python-venv");
const venvPython = join(venvDir, "bin", "python");
const sdkSource = process.env.CONFORMANCE_PYTHON_SDK ?? "/work/shared/official-sdk-suite/src/python";

/**
 * Makes the virtualenv (once) and checks that the SDK imports with pydantic >= 2.
 * @param {(line: string) => void} log
 * @returns {Promise<{ available: boolean, reason?: string, version?: string }>}
 * @example
 * const python = await preparePython(console.error);
 * if (!python.available) console.error(python.reason);
 */
export async function preparePython(log) {
  if (!existsSync(join(sdkSource, "copilot", "__init__.py"))) return { available: false, reason: `no Python SDK source at ${sdkSource} (set CONFORMANCE_PYTHON_SDK)` };
  const interpreter = process.env.CONFORMANCE_PYTHON ?? "python3";
  if (!existsSync(venvPython)) {
    log(`making a Python virtualenv in .bench-cache/python-venv (once, with ${interpreter}'s packages) ...`);
    mkdirSync(cacheDir, { recursive: true });
    const made = spawnSync(interpreter, ["-m", "venv", "--system-site-packages", venvDir], { encoding: "utf8", timeout: 120_000 });
    if (made.status !== 0) return { available: false, reason: `${interpreter} -m venv failed: ${(made.stderr || made.error?.message || "").trim().split("\n").slice(-2).join(" ")}` };
  }
  const sitePackages = spawnSync(venvPython, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: "utf8", timeout: 30_000 }).stdout?.trim();
  if (!sitePackages) return { available: false, reason: `${venvPython} does not run` };
  writeFileSync(join(sitePackages, "copilot-sdk-source.pth"), `${sdkSource}\n`);
  const probe = spawnSync(
    venvPython,
    ["-c", "import sys, pydantic, dateutil; major = int(pydantic.VERSION.split('.')[0]); print(pydantic.VERSION); sys.exit(0 if major >= 2 else 3)"],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (probe.status === 3) return { available: false, reason: `the SDK needs pydantic >= 2; ${interpreter} has pydantic ${probe.stdout.trim()}` };
  if (probe.status !== 0) return { available: false, reason: `the SDK's dependencies are missing (pydantic >= 2, python-dateutil): ${(probe.stderr || "").trim().split("\n").slice(-1)[0]}` };
  const sdk = spawnSync(venvPython, ["-c", "import copilot"], { encoding: "utf8", timeout: 60_000 });
  if (sdk.status !== 0) return { available: false, reason: `the Python SDK does not import: ${(sdk.stderr || "").trim().split("\n").slice(-1)[0]}` };
  return { available: true, version: `source (pydantic ${probe.stdout.trim()})` };
}

/**
 * A Python SDK client with the JavaScript SDKs' shape, for the scenarios.
 * @example
 * const client = new PythonClient(cliPath, env, workdir, token);
 * await client.start();
 * const session = await client.createSession({ model, onPermissionRequest: () => ({ kind: "approve-once" }), onEvent: console.log });
 */
export class PythonClient {
  /**
   * @param {string} cliPath
   * @param {Record<string, string>} env
   * @param {string} workdir
   * @param {string} token
   */
  constructor(cliPath, env, workdir, token) {
    this.cliPath = cliPath;
    this.env = env;
    this.workdir = workdir;
    this.token = token;
    /** @type {import("node:child_process").ChildProcess | null} the bridge (the runtime is its child) */
    this.cliProcess = null;
    /** @type {Map<number, { resolve: (value: any) => void, reject: (error: Error) => void }>} */
    this.pending = new Map();
    /** @type {Map<string, PythonSession>} */
    this.sessions = new Map();
    this.nextId = 0;
    this.nextSession = 0;
  }

  async start() {
    // The SDK source is read-only here: its bytecode is cached apart, or every start compiles it again.
    const env = { ...process.env, PYTHONPYCACHEPREFIX: join(cacheDir, "python-pycache") };
    const bridge = spawn(venvPython, [bridgeScript], { stdio: ["pipe", "pipe", "pipe"], cwd: this.workdir, env });
    this.cliProcess = bridge;
    bridge.stderr?.on("data", (chunk) => {
      if (process.env.CONFORMANCE_PYTHON_LOG) process.stderr.write(`[python] ${chunk}`);
    });
    bridge.on("exit", (code) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`the Python bridge exited (${code})`));
      this.pending.clear();
    });
    createInterface({ input: /** @type {import("node:stream").Readable} */ (bridge.stdout) }).on("line", (line) => this.receive(JSON.parse(line)));
    await this.call({ op: "start", cliPath: this.cliPath, env: this.env, cwd: this.workdir, token: this.token });
  }

  async stop() {
    await this.call({ op: "stop" });
    await this.close();
  }

  async forceStop() {
    await this.close();
  }

  /**
   * @param {Record<string, any>} config the scenario's session config (JavaScript SDK spelling)
   */
  async createSession(config) {
    const session = this.register(config);
    const result = await this.call({ op: "create_session", session: session.label, config: wireConfig(config) });
    session.sessionId = result.sessionId;
    return session;
  }

  /**
   * @param {string} sessionId
   * @param {Record<string, any>} config
   */
  async resumeSession(sessionId, config) {
    const session = this.register(config);
    await this.call({ op: "resume_session", session: session.label, sessionId, config: wireConfig(config) });
    session.sessionId = sessionId;
    return session;
  }

  /** @param {Record<string, any>} config */
  register(config) {
    const session = new PythonSession(this, `s${this.nextSession++}`, config);
    this.sessions.set(session.label, session);
    return session;
  }

  /**
   * Sends a command and waits for its reply.
   * @param {Record<string, unknown>} command
   * @returns {Promise<any>}
   */
  call(command) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.cliProcess?.stdin?.writable) {
        reject(new Error(`${String(command.op)}: the Python bridge is not running`));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.cliProcess.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
    });
  }

  /** @param {any} message */
  receive(message) {
    if ("event" in message) {
      this.sessions.get(message.session)?.dispatch(message.event);
      return;
    }
    if ("callback" in message) {
      void this.answerCallback(message);
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if ("error" in message) waiter.reject(new Error(message.error));
    else waiter.resolve(message.result);
  }

  /** @param {{ callback: number, kind: string, session: string, payload: any }} message */
  async answerCallback(message) {
    const reply = { callbackReply: message.callback };
    try {
      const config = this.sessions.get(message.session)?.config ?? {};
      if (message.kind === "permission") Object.assign(reply, { result: await config.onPermissionRequest(message.payload) });
      else if (message.kind === "user_input") Object.assign(reply, { result: await config.onUserInputRequest(message.payload) });
      else if (message.kind === "tool") {
        const tool = (config.tools ?? []).find((candidate) => candidate.name === message.payload.name);
        if (!tool) throw new Error(`no tool ${message.payload.name}`);
        Object.assign(reply, { result: await tool.handler(message.payload.arguments, { toolCallId: message.payload.toolCallId }) });
      } else throw new Error(`unknown callback ${message.kind}`);
    } catch (error) {
      Object.assign(reply, { error: error instanceof Error ? error.message : String(error) });
    }
    this.cliProcess?.stdin?.write(`${JSON.stringify(reply)}\n`);
  }

  async close() {
    const bridge = this.cliProcess;
    if (!bridge || bridge.exitCode !== null) return;
    const exited = new Promise((resolve) => bridge.once("exit", resolve));
    bridge.stdin?.end();
    const timer = setTimeout(() => bridge.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** A session driven through the bridge. */
class PythonSession {
  /**
   * @param {PythonClient} client
   * @param {string} label
   * @param {Record<string, any>} config
   */
  constructor(client, label, config) {
    this.client = client;
    this.label = label;
    this.config = config;
    this.sessionId = "";
    /** @type {Set<(event: any) => void>} */
    this.handlers = new Set(config.onEvent ? [config.onEvent] : []);
    this.rpc = { mode: { set: (/** @type {{ mode: string }} */ params) => this.client.call({ op: "set_mode", session: this.label, mode: params.mode }) } };
  }

  /** @param {(event: any) => void} handler @returns {() => void} */
  on(handler) {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** @param {any} event */
  dispatch(event) {
    for (const handler of this.handlers) handler(event);
  }

  /** @param {{ prompt: string, attachments?: unknown[] }} options */
  send(options) {
    return this.client.call({ op: "send", session: this.label, options });
  }

  abort() {
    return this.client.call({ op: "abort", session: this.label });
  }
}

/**
 * What of a session config crosses to Python: plain data; the handlers stay here.
 * @param {Record<string, any>} config
 */
function wireConfig(config) {
  return {
    model: config.model,
    workingDirectory: config.workingDirectory,
    streaming: config.streaming,
    userInput: Boolean(config.onUserInputRequest),
    tools: (config.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
  };
}
