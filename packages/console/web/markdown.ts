import MarkdownIt from "markdown-it";

// Raw HTML is off, so model output is escaped; markdown-it's validateLink drops javascript:,
// vbscript:, file: and non-image data: URLs.
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });
const defaultLinkOpen = markdown.renderer.rules.link_open;
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]?.attrSet("target", "_blank");
  tokens[index]?.attrSet("rel", "noopener noreferrer");
  return defaultLinkOpen ? defaultLinkOpen(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
};

/** Renders model markdown into sanitized HTML. */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}

type Highlighter = typeof import("./highlighter.js");
let highlighter: Promise<Highlighter> | undefined;

/**
 * Highlights the code blocks under `root`. The highlighter is a separate module, fetched (with the
 * page's token) on the first code block, so answers without code never load it.
 */
export function highlightCode(root: HTMLElement, token: string): void {
  if (!root.querySelector("pre code")) return;
  // A computed URL: esbuild leaves the import alone, and the token rides along like on app.js.
  const url = `/highlighter.js?token=${encodeURIComponent(token)}`;
  highlighter ??= import(/* @vite-ignore */ url) as Promise<Highlighter>;
  void highlighter.then((module) => {
    for (const block of root.querySelectorAll<HTMLElement>("pre code:not([data-highlighted])")) module.highlightBlock(block);
  });
}
