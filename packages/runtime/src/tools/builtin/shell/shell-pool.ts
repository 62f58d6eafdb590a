import type { LaunchPlan } from "../../../sandbox/launcher.js";
import type { ShellProcess } from "./shell-process.js";

/** How long pooled shells stay ready without a call before they are stopped (the next call starts them again). */
export const DEFAULT_POOL_IDLE_MS = 5 * 60_000;

/** What a {@link ShellPool} is configured with. */
export interface ShellPoolOptions {
  /** How many started shells to keep ready (0 keeps none). */
  size: number;
  /** Idle shells are stopped after this long without a call. */
  idleMs?: number;
  /** Starts one shell as a one-off command's shell would start (same plan, same cwd, same environment, tied to the runtime). */
  start(plan: LaunchPlan, cwd: string): ShellProcess;
}

interface WarmShell {
  readonly shell: ShellProcess;
  /** The shell answered its first (empty) command: bubblewrap set up, bash reads its input. */
  ready: boolean;
  /** Resolves once the shell answered its first command or exited. */
  readonly settled: Promise<void>;
}

/**
 * Started shells kept ready for one-off sandboxed commands, so a call does not wait for
 * bubblewrap to create its namespaces. A pooled shell was started with the exact command line a
 * fresh shell would get now (the plan: policy, binds, network, cwd), is handed out once, and is
 * killed after its one command like any one-off shell: nothing of one command reaches the next
 * (each shell has its own process, environment and private `/tmp`).
 *
 * - {@link take} hands out a ready shell of the same plan, or nothing (the caller starts a fresh
 *   one, as without a pool). A different plan stops every pooled shell first: a shell started
 *   under another policy or in another folder is never used.
 * - {@link refill} starts shells up to `size` for the last plan taken; the owner calls it (through
 *   {@link refillSoon}) after a command ended, so the replacement competes neither with the
 *   command nor with the delivery of its result.
 * - A shell is ready once it answered an empty command; one that exits before (bubblewrap failed)
 *   is dropped and not replaced until the next call, so a failing sandbox costs one attempt per
 *   call, never a loop, and never a fallback: the call itself takes the path of a fresh shell.
 * - {@link drain} stops the pooled shells (policy change, working directory change, idle timeout);
 *   {@link dispose} also refuses new ones. Pooled shells are tied to the runtime like every shell
 *   (the lifeline watchdog, bubblewrap's `--die-with-parent`), so a killed runtime leaves none.
 *
 * @example
 * const pool = new ShellPool({ size: 1, start: (plan, cwd) => new ShellProcess({ shellPath: "bash", cwd, env, launch: plan }) });
 * const shell = pool.take(plan, cwd) ?? new ShellProcess({ shellPath: "bash", cwd, env, launch: plan });
 * await shell.run("make test", print, { closedStdin: true });
 * shell.kill();
 * pool.refillSoon();
 */
export class ShellPool {
  private readonly warm: WarmShell[] = [];
  private current: { key: string; plan: LaunchPlan; cwd: string } | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private pendingRefill: Promise<void> | undefined;
  private disposed = false;
  private readonly idleMs: number;

  constructor(private readonly options: ShellPoolOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_POOL_IDLE_MS;
  }

  /** How many shells the pool holds now (ready or starting). */
  get count(): number {
    return this.warm.length;
  }

  /**
   * A ready shell started with exactly `plan` in `cwd`, now the caller's (it runs one command and
   * is killed); undefined when none is ready. Remembers the plan for {@link refill}.
   */
  take(plan: LaunchPlan, cwd: string): ShellProcess | undefined {
    if (this.disposed || this.options.size <= 0 || !plan.sandboxed) return undefined;
    const key = JSON.stringify([plan.command, plan.args, cwd]);
    if (this.current?.key !== key) {
      this.drain();
      this.current = { key, plan, cwd };
      return undefined;
    }
    this.dropExited();
    const index = this.warm.findIndex((entry) => entry.ready);
    if (index === -1) return undefined;
    const [taken] = this.warm.splice(index, 1);
    return taken?.shell;
  }

  /**
   * {@link refill} on the next turn of the event loop: starting a process blocks the runtime's
   * thread until it runs, which the call that just ended should not wait for.
   */
  refillSoon(): void {
    if (this.disposed || this.pendingRefill) return;
    this.pendingRefill = new Promise((resolve) =>
      setImmediate(() => {
        this.pendingRefill = undefined;
        this.refill();
        resolve();
      }),
    );
  }

  /** Starts shells for the last plan taken until `size` are pooled, and restarts the idle timer. */
  refill(): void {
    const current = this.current;
    if (this.disposed || !current) return;
    this.dropExited();
    while (this.warm.length < this.options.size) this.warm.push(this.startOne(current.plan, current.cwd));
    this.restartIdleTimer();
  }

  /** Resolves once every shell the pool holds now has answered or exited. */
  async whenSettled(): Promise<void> {
    await this.pendingRefill;
    await Promise.all(this.warm.map((entry) => entry.settled));
  }

  /** Kills every pooled shell and forgets the plan (the next call starts afresh). */
  drain(): void {
    this.current = undefined;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    for (const entry of this.warm.splice(0)) entry.shell.kill();
  }

  /** Kills every pooled shell synchronously (the process is exiting). */
  killAll(): void {
    for (const entry of this.warm) entry.shell.kill();
  }

  /** Kills the pooled shells; the pool starts none after this. */
  dispose(): void {
    this.disposed = true;
    this.drain();
  }

  private startOne(plan: LaunchPlan, cwd: string): WarmShell {
    const shell = this.options.start(plan, cwd);
    const settled = shell.run(":", () => undefined, { closedStdin: true }).then((end) => {
      if (!end.shellExited && end.exitCode === 0) {
        entry.ready = true;
        return;
      }
      // It could not start (or was killed): dropped, and replaced only at the next call.
      const index = this.warm.indexOf(entry);
      if (index !== -1) this.warm.splice(index, 1);
      shell.kill();
    });
    const entry: WarmShell = { shell, ready: false, settled };
    return entry;
  }

  private dropExited(): void {
    for (let index = this.warm.length - 1; index >= 0; index--) {
      const entry = this.warm[index];
      if (entry && !entry.shell.alive) {
        this.warm.splice(index, 1);
        entry.shell.kill();
      }
    }
  }

  private restartIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.drain(), this.idleMs);
    this.idleTimer.unref();
  }
}
