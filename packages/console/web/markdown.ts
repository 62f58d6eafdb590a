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

// A fenced block gets a head with its language and a Copy button (handled by `enableCodeCopy`).
const defaultFence = markdown.renderer.rules.fence;
markdown.renderer.rules.fence = (tokens, index, options, env, self) => {
  const language = tokens[index]?.info.trim().split(/\s+/)[0] ?? "";
  const block = defaultFence ? defaultFence(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
  const label = markdown.utils.escapeHtml(language || "text");
  return `<div class="code-block"><div class="code-head"><span class="code-lang">${label}</span><button type="button" class="copy-code" title="Copy the code">Copy</button></div>${block}</div>`;
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

/**
 * Makes every code block's Copy button under `root` (now and later) copy its code: one listener,
 * since the buttons come from rendered markdown (no inline handlers under the page's CSP).
 */
export function enableCodeCopy(root: HTMLElement): void {
  root.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest<HTMLButtonElement>("button.copy-code");
    const code = button?.closest(".code-block")?.querySelector("pre code");
    if (!button || !code) return;
    void copyText(code.textContent ?? "").then(
      () => flash(button, "Copied"),
      () => flash(button, "Copy failed"),
    );
  });
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  // Without the async clipboard (an insecure origin), the old way: a selected textarea.
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("copy refused");
}

function flash(button: HTMLButtonElement, text: string): void {
  button.textContent = text;
  button.dataset.copied = String(text === "Copied");
  setTimeout(() => {
    button.textContent = "Copy";
    delete button.dataset.copied;
  }, 1500);
}
