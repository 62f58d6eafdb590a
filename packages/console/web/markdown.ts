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
