/** The slash-command completion menu of the prompt: the session's commands as the user types `/…`. */
import { h, setChildren } from "./dom.js";

/** A command as `session.commands.list` describes it. */
export interface SlashCommand {
  name: string;
  description: string;
  aliases?: string[];
}

/**
 * Shows the commands whose name (or alias) starts with what follows the `/` while the prompt holds
 * only a command word. ↑/↓ pick, Tab or Enter completes, Esc closes; a click completes too.
 */
export class SlashMenu {
  readonly element = h("ul", { class: "slash-menu", hidden: true, "data-testid": "slash-menu", role: "listbox" });
  #commands: SlashCommand[] = [];
  #matches: SlashCommand[] = [];
  #active = 0;

  constructor(private readonly input: HTMLTextAreaElement) {
    input.addEventListener("input", () => this.update());
    input.addEventListener("blur", () => setTimeout(() => this.hide(), 150));
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  setCommands(commands: SlashCommand[]): void {
    this.#commands = [...commands].sort((a, b) => a.name.localeCompare(b.name));
    this.update();
  }

  hide(): void {
    this.element.hidden = true;
  }

  update(): void {
    const typed = /^\/(\S*)$/.exec(this.input.value)?.[1];
    if (typed === undefined) return this.hide();
    const word = typed.toLowerCase();
    this.#matches = this.#commands.filter((command) => [command.name, ...(command.aliases ?? [])].some((name) => name.toLowerCase().startsWith(word)));
    if (!this.#matches.length) return this.hide();
    this.#active = Math.min(this.#active, this.#matches.length - 1);
    this.#render();
    this.element.hidden = false;
  }

  /** Handles a key of the prompt while the menu is open; true when the key was the menu's. */
  handleKey(event: KeyboardEvent): boolean {
    if (!this.open) return false;
    const move = (step: number) => {
      this.#active = (this.#active + step + this.#matches.length) % this.#matches.length;
      this.#render();
    };
    switch (event.key) {
      case "ArrowDown":
        move(1);
        break;
      case "ArrowUp":
        move(-1);
        break;
      case "Escape":
        this.hide();
        break;
      case "Tab":
        this.#complete(this.#matches[this.#active]);
        break;
      case "Enter": {
        const command = this.#matches[this.#active];
        // A command typed in full is sent as it is.
        if (event.shiftKey || !command || this.input.value === `/${command.name}`) {
          this.hide();
          return false;
        }
        this.#complete(command);
        break;
      }
      default:
        return false;
    }
    event.preventDefault();
    event.stopPropagation();
    return true;
  }

  #complete(command: SlashCommand | undefined): void {
    if (!command) return;
    this.input.value = `/${command.name} `;
    this.hide();
    this.input.focus();
  }

  #render(): void {
    setChildren(
      this.element,
      ...this.#matches.map((command, index) =>
        h(
          "li",
          { class: `slash-item${index === this.#active ? " active" : ""}`, "data-command": command.name, role: "option", onmousedown: (event: Event) => (event.preventDefault(), this.#complete(command)) },
          h("span", { class: "slash-name" }, `/${command.name}`),
          h("span", { class: "slash-description" }, command.description),
        ),
      ),
    );
  }
}
