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

  // 128 Ki characters each way: what `detailedContent` shows at most (256 Ki), whatever the output's size.
  constructor(
    private readonly headLimit = 128 * 1024,
    private readonly tailLimit = 128 * 1024,
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
