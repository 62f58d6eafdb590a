/**
 * The terminal's keyboard while the agent works. readline echoes every key where the cursor is,
 * which is inside the streamed answer; while a turn runs, this takes the keys instead: nothing is
 * echoed, the lines typed are kept for the prompts that follow, the unfinished one is put back on
 * the next prompt, Ctrl-C interrupts, and a question can be answered with a single key.
 */
import type { Interface } from "node:readline/promises";

/** A key as `readline.emitKeypressEvents` describes it. */
interface Keypress {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

type KeypressListener = (text: string | undefined, key: Keypress | undefined) => void;

/** What was typed during a turn: whole lines, and the line still being typed. */
export interface TypedDuringTurn {
  lines: string[];
  partial: string;
}

/**
 * Takes the keyboard from a terminal readline interface between {@link start} and {@link stop}.
 *
 * @example
 * const keyboard = new BusyKeyboard(terminal, process.stdin, () => void session.abort());
 * keyboard.start();
 * await turnDone;
 * const { lines, partial } = keyboard.stop();
 */
export class BusyKeyboard {
  readonly #input: NodeJS.ReadStream;
  readonly #interrupt: () => void;
  readonly #enabled: boolean;
  #readlineListeners: KeypressListener[] = [];
  #taken = false;
  #lines: string[] = [];
  #partial = "";
  #question: { keys: readonly string[]; resolve: (key: string | undefined) => void } | undefined;
  readonly #onKeypress: KeypressListener = (text, key) => this.#key(text, key);

  /** `interrupt` runs on Ctrl-C while the keyboard is taken. Only a terminal interface is taken over. */
  constructor(terminal: Interface, input: NodeJS.ReadStream, interrupt: () => void) {
    this.#input = input;
    this.#interrupt = interrupt;
    this.#enabled = terminal.terminal;
  }

  /** Whether the keyboard is taken (a turn runs). */
  get active(): boolean {
    return this.#taken;
  }

  /** Takes the keys from readline (which keeps the terminal in raw mode meanwhile). */
  start(): void {
    if (!this.#enabled || this.#taken) return;
    this.#taken = true;
    this.#readlineListeners = this.#input.listeners("keypress") as KeypressListener[];
    for (const listener of this.#readlineListeners) this.#input.off("keypress", listener);
    this.#input.on("keypress", this.#onKeypress);
  }

  /** Gives the keys back to readline; returns what was typed meanwhile. */
  stop(): TypedDuringTurn {
    if (!this.#taken) return { lines: [], partial: "" };
    this.#taken = false;
    this.#input.off("keypress", this.#onKeypress);
    for (const listener of this.#readlineListeners) this.#input.on("keypress", listener);
    this.#readlineListeners = [];
    this.#question?.resolve(undefined);
    this.#question = undefined;
    const typed = { lines: this.#lines, partial: this.#partial };
    this.#lines = [];
    this.#partial = "";
    return typed;
  }

  /**
   * Waits for one of `keys` (lower case) and resolves with it; undefined on Ctrl-C or when the
   * turn ends first. Keys typed before the question are not answers: they stay typed text.
   */
  askKey(keys: readonly string[]): Promise<string | undefined> {
    if (!this.active) return Promise.resolve(undefined);
    this.#question?.resolve(undefined);
    return new Promise((resolve) => (this.#question = { keys, resolve }));
  }

  #key(text: string | undefined, key: Keypress | undefined): void {
    if (key?.ctrl && key.name === "c") {
      this.#answer(undefined);
      this.#interrupt();
      return;
    }
    if (this.#question) {
      const pressed = (text ?? "").toLowerCase();
      if (this.#question.keys.includes(pressed)) this.#answer(pressed);
      return;
    }
    if (key?.name === "return" || key?.name === "enter") {
      this.#lines.push(this.#partial);
      this.#partial = "";
      return;
    }
    if (key?.name === "backspace") {
      this.#partial = [...this.#partial].slice(0, -1).join("");
      return;
    }
    // Printable text only: no control keys, no escape sequences (arrows, function keys).
    if (text && !key?.ctrl && !key?.meta && !/[\x00-\x1f\x7f]/.test(text)) this.#partial += text;
  }

  #answer(key: string | undefined): void {
    const question = this.#question;
    this.#question = undefined;
    question?.resolve(key);
  }
}
