/**
 * The output of one command, kept in bounded memory: the first `headLimit` and the last
 * `tailLimit` characters survive; what lies between is counted and replaced by a note.
 * Offsets count every character ever appended, so readers can ask for "what is new since N".
 *
 * @example
 * const log = new OutputLog();
 * log.append("hello\n");
 * log.textFrom(0); // "hello\n"
 */
export class OutputLog {
  private head = "";
  private tail = "";
  private dropped = 0;

  constructor(
    private readonly headLimit = 1_000_000,
    private readonly tailLimit = 1_000_000,
  ) {}

  /** Characters appended so far. */
  get length(): number {
    return this.head.length + this.dropped + this.tail.length;
  }

  append(text: string): void {
    if (text === "") return;
    let rest = text;
    if (this.dropped === 0 && this.tail === "" && this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest === "") return;
    this.tail += rest;
    if (this.tail.length > this.tailLimit * 1.5) {
      const cut = this.tail.length - this.tailLimit;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  /** Everything from `offset` on (a note stands in for a dropped middle). */
  textFrom(offset = 0): string {
    const headLength = this.head.length;
    const note = this.dropped > 0 ? `\n[… ${this.dropped} characters of output were not kept …]\n` : "";
    if (offset < headLength) return this.head.slice(offset) + note + this.tail;
    if (offset < headLength + this.dropped) return note + this.tail;
    return this.tail.slice(offset - headLength - this.dropped);
  }
}

/**
 * Shortens text for the model by keeping its head and tail (cut at line breaks where possible)
 * and saying how much was left out.
 *
 * @example
 * truncateMiddle("x".repeat(50_000), 20_000); // 10,000 + note + 10,000 characters
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  let headEnd = half;
  const headBreak = text.lastIndexOf("\n", half);
  if (headBreak > half * 0.8) headEnd = headBreak + 1;
  let tailStart = text.length - (maxChars - half);
  const tailBreak = text.indexOf("\n", tailStart);
  if (tailBreak !== -1 && tailBreak < tailStart + half * 0.2) tailStart = tailBreak + 1;
  const omitted = text.slice(headEnd, tailStart);
  const omittedLines = omitted.split("\n").length - 1;
  return (
    text.slice(0, headEnd) +
    `\n[Output truncated: ${omitted.length} characters (${omittedLines} lines) omitted from the middle. ` +
    `Narrow the command (grep, head, tail, or redirect to a file and view parts of it) to see them.]\n\n` +
    text.slice(tailStart)
  );
}
