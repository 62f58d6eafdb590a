// Hand-written (about 150 lines) rather than marked + marked-terminal: those render whole documents,
// while the chat must print a streamed answer as it arrives, a few characters at a time.

const style = {
  bold: (text: string) => `\x1b[1m${text}\x1b[22m`,
  italic: (text: string) => `\x1b[3m${text}\x1b[23m`,
  code: (text: string) => `\x1b[36m${text}\x1b[39m`,
  dim: (text: string) => `\x1b[2m${text}\x1b[22m`,
};

/** A line start that may still become a block marker (`#`, `-`, `1.`, `>`, a fence) once more arrives. */
const undecidedLineStart = /^ {0,3}(#{1,6}|[-*+]|\d{1,9}[.)]?|>|`{1,3}|~{1,3})?$/;

/**
 * Renders streamed markdown for a terminal, line by line as it arrives: headings (bold), bullet and
 * numbered lists, quotes, fenced code blocks (cyan), and inline `code`, **bold**, *italic* and
 * [links](url). Text is written as soon as no inline span is left open, so an answer still streams.
 *
 * @example
 * const markdown = new TerminalMarkdown();
 * process.stdout.write(markdown.push("# Title\nSome **bold"));
 * process.stdout.write(markdown.push("** text") + markdown.end());
 */
export class TerminalMarkdown {
  #pending = "";
  #lineStarted = false;
  #lineSuffix = "";
  #inFence = false;

  /** Adds streamed text; returns what can be printed now. */
  push(text: string): string {
    this.#pending += text;
    return this.#drain(false);
  }

  /** The answer is complete: returns the rest (unclosed spans are printed as they are). */
  end(): string {
    const rest = this.#drain(true);
    const suffix = this.#lineStarted ? this.#lineSuffix : "";
    this.#pending = "";
    this.#lineStarted = false;
    this.#lineSuffix = "";
    this.#inFence = false;
    return rest + suffix;
  }

  #drain(final: boolean): string {
    let out = "";
    for (;;) {
      if (!this.#lineStarted) {
        const newline = this.#pending.indexOf("\n");
        const head = newline < 0 ? this.#pending : this.#pending.slice(0, newline);
        if (newline < 0 && !final && (undecidedLineStart.test(head) || (/^ {0,3}(```|~~~)/.test(head)))) return out;
        if (head === "" && newline < 0) return out;
        out += this.#startLine(head, newline >= 0 || final);
        if (!this.#lineStarted) {
          // A whole line was handled (a fence): go on after its newline.
          this.#pending = newline < 0 ? "" : this.#pending.slice(newline + 1);
          continue;
        }
      }
      const { text, consumed, lineEnded } = this.#inFence ? this.#codeLine() : this.#inline(final);
      out += text;
      this.#pending = this.#pending.slice(consumed);
      if (!lineEnded) return out;
      out += `${this.#lineSuffix}\n`;
      this.#lineStarted = false;
      this.#lineSuffix = "";
    }
  }

  /** Decides what the line is from its start; returns its prefix (and strips the marker from the buffer). */
  #startLine(head: string, whole: boolean): string {
    const fence = /^ {0,3}(```|~~~)(.*)$/.exec(head);
    if (fence && whole) {
      this.#inFence = !this.#inFence;
      return style.dim(`${this.#inFence ? "┌" : "└"}${fence[2] ? ` ${fence[2].trim()}` : ""}`) + "\n";
    }
    this.#lineStarted = true;
    if (this.#inFence) {
      this.#lineSuffix = "\x1b[39m";
      return "  \x1b[36m";
    }
    const take = (marker: string, prefix: string, suffix = "") => {
      this.#pending = this.#pending.slice(marker.length);
      this.#lineSuffix = suffix;
      return prefix;
    };
    const heading = /^ {0,3}#{1,6} +/.exec(head);
    if (heading) return take(heading[0], "\x1b[1;4m", "\x1b[0m");
    const bullet = /^( *)[-*+] +/.exec(head);
    if (bullet) return take(bullet[0], `${bullet[1]}• `);
    const numbered = /^( *)(\d{1,9})[.)] +/.exec(head);
    if (numbered) return take(numbered[0], `${numbered[1]}${numbered[2]}. `);
    const quote = /^ {0,3}> ?/.exec(head);
    if (quote) return take(quote[0], style.dim("│ "));
    return "";
  }

  /** A code line: printed as it comes, up to the newline. */
  #codeLine(): { text: string; consumed: number; lineEnded: boolean } {
    const newline = this.#pending.indexOf("\n");
    const end = newline < 0 ? this.#pending.length : newline;
    return { text: this.#pending.slice(0, end), consumed: newline < 0 ? end : end + 1, lineEnded: newline >= 0 };
  }

  /** Inline spans up to the newline; stops before a span that is not closed yet. */
  #inline(final: boolean): { text: string; consumed: number; lineEnded: boolean } {
    const source = this.#pending;
    let text = "";
    let index = 0;
    while (index < source.length) {
      const char = source[index]!;
      if (char === "\n") return { text, consumed: index + 1, lineEnded: true };
      const span = this.#span(source, index);
      if (span === "open") {
        if (!final) return { text, consumed: index, lineEnded: false };
        text += char;
        index++;
        continue;
      }
      if (span) {
        text += span.text;
        index = span.end;
        continue;
      }
      text += char;
      index++;
    }
    return { text, consumed: index, lineEnded: false };
  }

  /** The span starting at `index`: rendered, still open (wait for more), or none. */
  #span(source: string, index: number): { text: string; end: number } | "open" | undefined {
    const rest = source.slice(index);
    const lineEnd = rest.indexOf("\n") < 0 ? rest.length : rest.indexOf("\n");
    const line = rest.slice(0, lineEnd);
    // Only a span at the end of what has arrived can still close; one on a finished line never will.
    const mayClose = lineEnd === rest.length;
    const closed = (open: string, close: string, render: (inner: string) => string) => {
      const at = line.indexOf(close, open.length);
      if (at < 0) return mayClose ? ("open" as const) : undefined;
      return { text: render(line.slice(open.length, at)), end: index + at + close.length };
    };
    if (rest.startsWith("`")) return closed("`", "`", style.code);
    if (rest.startsWith("**")) return /^\*\*\S/.test(rest) || rest.length < 3 ? closed("**", "**", style.bold) : undefined;
    if (rest.startsWith("*")) return rest.length < 2 && mayClose ? "open" : /^\*[^\s*]/.test(rest) ? closed("*", "*", style.italic) : undefined;
    if (rest.startsWith("[")) {
      const link = /^\[([^\]\n]*)\]\(([^)\s]*)\)/.exec(line);
      if (link) return { text: `${link[1]} ${style.dim(`(${link[2]})`)}`, end: index + link[0].length };
      return mayClose && /^\[[^\]\n]*(\]\(?[^)\s]*)?$/.test(line) ? "open" : undefined;
    }
    return undefined;
  }
}
