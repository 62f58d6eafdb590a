import type TurndownService from "turndown";

/**
 * Converts an HTML page to Markdown for the model with turndown (loaded on first use): ATX
 * headings, fenced code blocks (with the `language-*` class as info string), `-` bullets indented
 * by two spaces, `*emphasis*`, tables as pipe tables. Scripts, styles, forms and the `<head>` are
 * dropped; relative links and images are resolved against `baseUrl`.
 *
 * @example
 * await htmlToMarkdown('<h1>Hi</h1><p>See <a href="/docs">docs</a>.</p>', "https://example.com/");
 * // "# Hi\n\nSee [docs](https://example.com/docs)."
 */
export async function htmlToMarkdown(html: string, baseUrl?: string): Promise<string> {
  const { default: Turndown } = await import("turndown");
  const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*", strongDelimiter: "**", hr: "---" });
  service.remove(SKIPPED_TAGS);
  addRules(service, baseUrl);
  return service
    .turndown(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** What the rules read of turndown's DOM nodes (the runtime has no DOM types). */
interface DomElement {
  nodeName: string;
  parentNode: DomElement | null;
  nextSibling: unknown;
  children: ArrayLike<DomElement>;
  innerHTML: string;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

const element = (node: unknown) => node as DomElement;

const SKIPPED_TAGS: TurndownService.Filter = ["script", "style", "noscript", "template", "svg", "head", "title", "iframe", "object", "canvas", "select", "button", "form", "math"] as never;

function resolve(url: string, baseUrl: string | undefined): string {
  if (!baseUrl) return url;
  try {
    return new URL(url, baseUrl).href;
  } catch {
    return url;
  }
}

function addRules(service: TurndownService, baseUrl: string | undefined): void {
  service.addRule("resolvedLink", {
    filter: (node) => node.nodeName === "A" && Boolean(node.getAttribute("href")),
    replacement: (content, node) => {
      const href = resolve(element(node).getAttribute("href") ?? "", baseUrl);
      return content.trim() === "" ? "" : `[${content}](${href})`;
    },
  });
  service.addRule("resolvedImage", {
    filter: "img",
    replacement: (_content, node) => {
      const image = element(node);
      const src = image.getAttribute("src");
      return src ? `![${image.getAttribute("alt") ?? ""}](${resolve(src, baseUrl)})` : "";
    },
  });
  service.addRule("listItem", {
    filter: "li",
    replacement: (content, node) => {
      const parent = element(node).parentNode;
      let prefix = "- ";
      if (parent?.nodeName === "OL") {
        const start = Number(parent.getAttribute("start") ?? "1");
        const index = Array.prototype.indexOf.call(parent.children, node);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n").replace(/\n(?!$)/gm, `\n${" ".repeat(prefix === "- " ? 2 : prefix.length)}`);
      return `${prefix}${body}${node.nextSibling && !/\n$/.test(body) ? "\n" : ""}`;
    },
  });
  // turndown fences only <pre><code>; a bare <pre> is preformatted text too.
  service.addRule("barePre", {
    filter: (node) => node.nodeName === "PRE" && element(node).querySelectorAll("code").length === 0,
    replacement: (_content, node) => `\n\n\`\`\`\n${(node as { textContent?: string | null }).textContent?.replace(/\n$/, "") ?? ""}\n\`\`\`\n\n`,
  });
  service.addRule("table", {
    filter: "table",
    replacement: (_content, node) => `\n\n${tableToMarkdown(element(node), service)}\n\n`,
  });
}

function tableToMarkdown(table: DomElement, service: TurndownService): string {
  const rows = Array.from(table.querySelectorAll("tr")).map((row) =>
    Array.from(row.children)
      .filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH")
      .map((cell) => service.turndown(cell.innerHTML).replace(/\n+/g, " ").replace(/\|/g, "\\|").trim()),
  );
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, index) => cells[index] ?? "").join(" | ")} |`;
  const [head = [], ...body] = rows;
  return [line(head), `| ${Array.from({ length: width }, () => "---").join(" | ")} |`, ...body.map(line)].join("\n");
}
