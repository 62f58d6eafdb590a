/** The chat sample's streamed markdown renderer: the same screen whether the answer comes whole or a character at a time. */
import { describe, expect, it } from "vitest";
import { TerminalMarkdown } from "../../examples/src/terminal-markdown.js";

const answer = "# Title\n\nSome **bold**, *italic* and `code`; 2 * 3 is six.\n\n- one\n  - two\n3. three\n> quoted [a link](https://example.com)\n\n```ts\nconst x = 1;\n- not a list\n```\nafter **unclosed\n";

function renderWhole(text: string): string {
  const markdown = new TerminalMarkdown();
  return markdown.push(text) + markdown.end();
}

function renderByCharacter(text: string): { screen: string; chunks: string[] } {
  const markdown = new TerminalMarkdown();
  const chunks = [...text].map((char) => markdown.push(char));
  chunks.push(markdown.end());
  return { screen: chunks.join(""), chunks };
}

describe("TerminalMarkdown", () => {
  it("renders headings, emphasis, code, lists, quotes, links and fenced code", () => {
    const screen = renderWhole(answer);
    expect(screen).toContain("\x1b[1;4mTitle\x1b[0m\n");
    expect(screen).toContain("Some \x1b[1mbold\x1b[22m, \x1b[3mitalic\x1b[23m and \x1b[36mcode\x1b[39m; 2 * 3 is six.");
    expect(screen).toContain("• one\n  • two\n3. three\n");
    expect(screen).toContain("\x1b[2m│ \x1b[22mquoted a link \x1b[2m(https://example.com)\x1b[22m");
    expect(screen).toContain("\x1b[2m┌ ts\x1b[22m\n  \x1b[36mconst x = 1;\x1b[39m\n  \x1b[36m- not a list\x1b[39m\n\x1b[2m└\x1b[22m\n");
    expect(screen).toContain("after **unclosed\n");
    expect(screen).not.toContain("# Title");
  });

  it("prints the same screen when the answer streams a character at a time, and prints text before the answer ends", () => {
    const { screen, chunks } = renderByCharacter(answer);
    expect(screen).toBe(renderWhole(answer));
    // Plain text is printed as it arrives, not held until the end.
    expect(chunks.filter(Boolean).length).toBeGreaterThan(40);
    const markdown = new TerminalMarkdown();
    expect(markdown.push("Hello wor")).toBe("Hello wor");
    expect(markdown.push("ld **bo")).toBe("ld ");
    expect(markdown.push("ld** done")).toBe("\x1b[1mbold\x1b[22m done");
  });
});
