/// <reference lib="dom" />
/**
 * Tandem Console under a real browser, for the console's browser tests: a scripted model, a git
 * folder to work in, the real `tandem-console` (a child process driving the runtime through
 * @tandem/sdk), and the system's headless Chromium through playwright-core (one per test file).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelServer, parseScripts, type ModelSpec } from "@tandem/testkit";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { scriptsDir, worldAround, type TestWorld } from "./harness.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const consoleBin = fileURLToPath(new URL("../../packages/console/bin/tandem-console.js", import.meta.url));
/** Git without the machine's configuration, with an author. */
export const gitEnv = { GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "User", GIT_AUTHOR_EMAIL: "user@example.com", GIT_COMMITTER_NAME: "User", GIT_COMMITTER_EMAIL: "user@example.com" };

/** A running console: its URL (with the token) and its process. */
export interface RunningConsole {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** What a test file's console needs. */
export interface ConsoleSetup {
  /** Script files under test/scripts (without `.yaml`); `__WORKDIR__` becomes the git folder. */
  scripts: string[];
  /** The models the scripted model lists (default: the testkit's). */
  models?: ModelSpec[];
  /** `false`: the scripted provider has no `GET /models` (it answers 404). */
  listsModels?: boolean;
  /** Extra `tandem-console` arguments, given the git folder. */
  consoleArgs?: (workdir: string) => string[];
  /** More environment for the runtime the console starts (e.g. `TANDEM_SANDBOX`). */
  runtimeEnv?: Record<string, string>;
}

function makeGitRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), "tandem-console-work-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: { ...process.env, ...gitEnv }, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "tracked.txt"), "alpha\n");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  return dir;
}

/** The scripted model and a scratch home, like `startWorld`, with the models the test lists. */
async function startModelWorld(setup: ConsoleSetup, workdir: string): Promise<TestWorld> {
  const model = new ModelServer({ ...(setup.models ? { models: setup.models } : {}), ...(setup.listsModels === false ? { listsModels: false } : {}) });
  for (const name of setup.scripts) {
    const path = join(scriptsDir, `${name}.yaml`);
    for (const script of parseScripts(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir), path)) model.addScript(script);
  }
  return worldAround(model, setup.runtimeEnv ?? {});
}

/** The console, its world and the browser of one test file. */
export class ConsoleHarness {
  readonly #pages: Page[] = [];

  private constructor(
    readonly setup: ConsoleSetup,
    readonly workdir: string,
    readonly world: TestWorld,
    readonly profileDir: string,
    readonly browser: BrowserContext,
    public running: RunningConsole,
  ) {}

  /** Starts everything; fails (never skips) without Chromium. */
  static async start(setup: ConsoleSetup): Promise<ConsoleHarness> {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is not installed at ${CHROMIUM}: the console's browser tests need it (apt-get install -y chromium; .ci/run installs it).`);
    }
    const workdir = makeGitRepository();
    const world = await startModelWorld(setup, workdir);
    const running = await startConsole(world, workdir, setup.consoleArgs?.(workdir) ?? []);
    const profileDir = mkdtempSync(join(tmpdir(), "tandem-console-chromium-"));
    const browser = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
    return new ConsoleHarness(setup, workdir, world, profileDir, browser, running);
  }

  /** Stops the console (and its runtime) and starts a new one on the same session folder. */
  async restartConsole(): Promise<void> {
    await this.running.stop();
    this.running = await startConsole(this.world, this.workdir, this.setup.consoleArgs?.(this.workdir) ?? []);
  }

  /** Opens the console in a new tab and waits until the app has loaded. */
  async openConsole(hash = ""): Promise<Page> {
    const page = await this.browser.newPage();
    this.#pages.push(page);
    await page.goto(this.running.url + hash);
    await page.waitForSelector("body[data-ready=true]");
    return page;
  }

  /** Closes the tabs a test left open (each holds an event stream; Chromium allows 6 per host). */
  async closePages(): Promise<void> {
    for (const page of this.#pages.splice(0)) await page.close().catch(() => undefined);
  }

  inWorkdir(name: string): string {
    return join(this.workdir, name);
  }

  async dispose(): Promise<void> {
    await this.browser.close();
    await this.running.stop();
    await this.world.dispose();
    rmSync(this.workdir, { recursive: true, force: true });
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}

/** Starts `tandem-console` and reads the URL it prints. */
async function startConsole(world: TestWorld, workdir: string, extraArgs: string[]): Promise<RunningConsole> {
  const child = spawn(process.execPath, [consoleBin, "--cwd", workdir, ...extraArgs], { env: { ...world.env, ...gitEnv }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the console printed no URL: ${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Tandem Console: (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`the console exited (${code}): ${output}`)));
  });
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Creates a session from the form and waits until its stream is open. */
export async function newSession(page: Page): Promise<string> {
  const before = await page.evaluate(() => location.hash);
  await page.click("[data-testid=create-session]");
  // A session already open satisfies "ready" at once: wait for the new one.
  await page.waitForFunction((previous) => /^#\/s\/./.test(location.hash) && location.hash !== previous && document.body.dataset.sessionReady === location.hash.slice(4), before);
  return page.evaluate(() => location.hash.slice(4));
}

export async function sendPrompt(page: Page, text: string): Promise<void> {
  await page.fill("[data-testid=prompt]", text);
  await page.press("[data-testid=prompt]", "Enter");
}

/** Waits for a finished assistant message with `text`. */
export const assistantText = (page: Page, text: string) => page.waitForSelector(`.message.assistant[data-complete=true]:has-text(${JSON.stringify(text)})`);
/** Waits until the session is idle. */
export const idle = (page: Page) => page.waitForSelector("body[data-busy=false]");

/** With TANDEM_CONSOLE_SCREENSHOTS=1 the tests also take the README's screenshots (docs/console/). */
const screenshotDir = fileURLToPath(new URL("../../docs/console/", import.meta.url));
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.TANDEM_CONSOLE_SCREENSHOTS !== "1") return;
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}
