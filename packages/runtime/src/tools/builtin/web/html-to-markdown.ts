/**
 * Converts an HTML page to Markdown for the model: headings, paragraphs, links, images, lists,
 * code blocks, quotes, tables and emphasis. Scripts, styles, forms and the `<head>` are dropped;
 * relative links are resolved against `baseUrl`.
 *
 * @example
 * htmlToMarkdown('<h1>Hi</h1><p>See <a href="/docs">docs</a>.</p>', "https://example.com/");
 * // "# Hi\n\nSee [docs](https://example.com/docs)."
 */
export function htmlToMarkdown(html: string, baseUrl?: string): string {
  const root = parseHtml(html);
  const markdown = renderBlock(root.children, { baseUrl, listDepth: 0 });
  return tidy(markdown);
}

interface ElementNode {
  kind: "element";
  tag: string;
  attributes: Record<string, string>;
  children: HtmlNode[];
}
interface TextNode {
  kind: "text";
  text: string;
}
type HtmlNode = ElementNode | TextNode;

const VOID_TAGS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
const SKIPPED_TAGS = new Set(["script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas", "select", "button", "form", "math"]);
const RAW_TEXT_TAGS = new Set(["script", "style", "textarea", "title"]);
/** Opening one of these closes an open element of the listed tags (HTML's implied end tags). */
const IMPLIED_END: Record<string, string[]> = {
  p: ["p"],
  li: ["li"],
  dt: ["dt", "dd"],
  dd: ["dt", "dd"],
  tr: ["tr", "td", "th"],
  td: ["td", "th"],
  th: ["td", "th"],
  option: ["option"],
};
const BLOCK_TAGS = new Set([
  "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "figure", "figcaption", "fieldset",
  "details", "summary", "address", "body", "html", "center", "dl", "caption",
]);

function parseHtml(html: string): ElementNode {
  const root: ElementNode = { kind: "element", tag: "#root", attributes: {}, children: [] };
  const stack: ElementNode[] = [root];
  const tokens = /<!--[\s\S]*?-->|<![^>]*>|<\?[^>]*>|<\/([a-zA-Z][\w:-]*)\s*>|<([a-zA-Z][\w:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*\/?>/g;
  let position = 0;
  const top = () => stack[stack.length - 1]!;
  for (let match = tokens.exec(html); match; match = tokens.exec(html)) {
    if (match.index > position) top().children.push({ kind: "text", text: html.slice(position, match.index) });
    position = tokens.lastIndex;
    const [, closingTag, openingTag, attributeText] = match;
    if (closingTag) {
      const tag = closingTag.toLowerCase();
      const index = stack.map((node) => node.tag).lastIndexOf(tag);
      if (index > 0) stack.length = index;
      continue;
    }
    if (!openingTag) continue;
    const tag = openingTag.toLowerCase();
    const implied = IMPLIED_END[tag];
    if (implied) {
      for (let index = stack.length - 1; index > 0; index--) {
        const open = stack[index]!.tag;
        if (implied.includes(open)) {
          stack.length = index;
          break;
        }
        if (["ul", "ol", "table", "tbody", "thead", "dl", "div"].includes(open)) break;
      }
    }
    const element: ElementNode = { kind: "element", tag, attributes: parseAttributes(attributeText ?? ""), children: [] };
    top().children.push(element);
    if (VOID_TAGS.has(tag) || match[0].endsWith("/>")) continue;
    if (RAW_TEXT_TAGS.has(tag)) {
      const close = new RegExp(`</${tag}\\s*>`, "i");
      const rest = html.slice(position);
      const end = rest.search(close);
      const body = end === -1 ? rest : rest.slice(0, end);
      element.children.push({ kind: "text", text: body });
      position += end === -1 ? rest.length : end + (close.exec(rest)?.[0].length ?? 0);
      tokens.lastIndex = position;
      continue;
    }
    stack.push(element);
  }
  if (position < html.length) top().children.push({ kind: "text", text: html.slice(position) });
  return root;
}

function parseAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const pattern = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    attributes[match[1]!.toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attributes;
}

interface RenderContext {
  baseUrl: string | undefined;
  listDepth: number;
}

function renderBlock(nodes: HtmlNode[], context: RenderContext): string {
  return nodes.map((node) => renderNode(node, context)).join("");
}

function renderNode(node: HtmlNode, context: RenderContext): string {
  if (node.kind === "text") return decodeEntities(node.text).replace(/\s+/g, " ");
  const { tag } = node;
  if (SKIPPED_TAGS.has(tag) || tag === "title") return "";
  const heading = /^h([1-6])$/.exec(tag);
  if (heading) {
    const text = inline(node, context);
    return text ? `\n\n${"#".repeat(Number(heading[1]))} ${text}\n\n` : "";
  }
  switch (tag) {
    case "br":
      return "\n";
    case "hr":
      return "\n\n---\n\n";
    case "a":
      return renderLink(node, context);
    case "img": {
      const source = resolveUrl(node.attributes.src, context.baseUrl);
      return source ? `![${node.attributes.alt ?? ""}](${source})` : "";
    }
    case "strong":
    case "b":
      return wrapInline(renderBlock(node.children, context), "**");
    case "em":
    case "i":
      return wrapInline(renderBlock(node.children, context), "*");
    case "del":
    case "s":
    case "strike":
      return wrapInline(renderBlock(node.children, context), "~~");
    case "code":
      return renderInlineCode(textContent(node));
    case "pre":
      return renderPre(node);
    case "blockquote": {
      const body = tidy(renderBlock(node.children, context));
      return body ? `\n\n${body.split("\n").map((line) => (line ? `> ${line}` : ">")).join("\n")}\n\n` : "";
    }
    case "ul":
    case "ol":
      return renderList(node, context);
    case "li":
      return `\n\n${renderBlock(node.children, context)}\n\n`;
    case "table":
      return renderTable(node, context);
    case "dt":
      return `\n\n**${inline(node, context)}**\n`;
    case "dd":
      return `\n${inline(node, context)}\n\n`;
    default:
      if (BLOCK_TAGS.has(tag)) return `\n\n${renderBlock(node.children, context)}\n\n`;
      return renderBlock(node.children, context);
  }
}

function inline(node: ElementNode, context: RenderContext): string {
  return renderBlock(node.children, context).replace(/\s+/g, " ").trim();
}

function wrapInline(text: string, marker: string): string {
  const trimmed = text.trim();
  if (!trimmed) return text;
  const leading = text.startsWith(" ") ? " " : "";
  const trailing = text.endsWith(" ") ? " " : "";
  return `${leading}${marker}${trimmed}${marker}${trailing}`;
}

function renderLink(node: ElementNode, context: RenderContext): string {
  const text = inline(node, context);
  const href = node.attributes.href;
  if (!href || href.startsWith("javascript:") || href.startsWith("#")) return text ? ` ${text} ` : "";
  const target = resolveUrl(href, context.baseUrl);
  if (!text) return "";
  return `[${text}](${target})`;
}

function renderInlineCode(text: string): string {
  const collapsed = text.replace(/\s+/g, " ");
  if (!collapsed.trim()) return "";
  const fence = collapsed.includes("`") ? "``" : "`";
  return `${fence}${collapsed}${fence}`;
}

function renderPre(node: ElementNode): string {
  const code = node.children.find((child): child is ElementNode => child.kind === "element" && child.tag === "code");
  const className = `${node.attributes.class ?? ""} ${code?.attributes.class ?? ""}`;
  const language = /(?:language|lang)-([\w+#-]+)/.exec(className)?.[1] ?? "";
  const text = textContent(node).replace(/^\n/, "").replace(/\s+$/, "");
  const fence = text.includes("```") ? "````" : "```";
  return `\n\n${fence}${language}\n${text}\n${fence}\n\n`;
}

function renderList(node: ElementNode, context: RenderContext): string {
  const ordered = node.tag === "ol";
  let number = Number(node.attributes.start ?? "1") || 1;
  const items: string[] = [];
  for (const child of node.children) {
    if (child.kind === "text") continue;
    if (child.tag !== "li") {
      if (child.tag === "ul" || child.tag === "ol") items.push(indent(tidy(renderList(child, context)), "  "));
      continue;
    }
    const marker = ordered ? `${number++}. ` : "- ";
    // A nested list follows its item's text directly (a blank line would make the list "loose").
    const body = tidy(renderBlock(child.children, { ...context, listDepth: context.listDepth + 1 })).replace(/\n\n(?=(?:[-*]|\d+\.) )/g, "\n");
    const [first = "", ...rest] = body.split("\n");
    items.push([`${marker}${first}`, ...rest.map((line) => (line ? " ".repeat(marker.length) + line : line))].join("\n"));
  }
  return items.length ? `\n\n${items.join("\n")}\n\n` : "";
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => (line ? prefix + line : line))
    .join("\n");
}

function renderTable(node: ElementNode, context: RenderContext): string {
  const rows: string[][] = [];
  const collect = (element: ElementNode) => {
    for (const child of element.children) {
      if (child.kind !== "element") continue;
      if (child.tag === "tr") {
        const cells = child.children
          .filter((cell): cell is ElementNode => cell.kind === "element" && (cell.tag === "td" || cell.tag === "th"))
          .map((cell) => inline(cell, context).replaceAll("|", "\\|"));
        if (cells.length) rows.push(cells);
      } else if (["thead", "tbody", "tfoot"].includes(child.tag)) {
        collect(child);
      }
    }
  };
  collect(node);
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: string[]) => `| ${[...cells, ...Array<string>(width - cells.length).fill("")].join(" | ")} |`;
  const [header, ...body] = rows;
  return `\n\n${[line(header!), line(Array<string>(width).fill("---")), ...body.map(line)].join("\n")}\n\n`;
}

function textContent(node: HtmlNode): string {
  if (node.kind === "text") return decodeEntities(node.text);
  if (node.tag === "br") return "\n";
  return node.children.map(textContent).join("");
}

function resolveUrl(href: string | undefined, baseUrl: string | undefined): string {
  if (!href) return "";
  try {
    return new URL(href, baseUrl).toString();
  } catch {
    return href;
  }
}

/** Trims line ends, keeps at most one blank line in a row, trims the whole (code blocks untouched). */
function tidy(markdown: string): string {
  const parts = markdown.split(/(\n```[^\n]*\n[\s\S]*?\n```\n)/);
  return parts
    .map((part, index) => {
      if (index % 2 === 1) return `\n\n${part.trim()}\n\n`;
      return part
        .split("\n")
        // A single leading space is left over from collapsed whitespace; longer runs are list indentation.
        .map((line) => line.replace(/[ \t]+$/, "").replace(/^ (?=\S)/, ""))
        .join("\n");
    })
    .join("")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", copy: "©", reg: "®", trade: "™", hellip: "…", mdash: "—",
  ndash: "–", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", bull: "•", middot: "·", times: "×", laquo: "«", raquo: "»",
  deg: "°", euro: "€", pound: "£", yen: "¥", cent: "¢", sect: "§", para: "¶", larr: "←", rarr: "→", uarr: "↑", darr: "↓",
};

/** Decodes named (common ones) and numeric character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (entity, body: string) => {
    if (body.startsWith("#")) {
      const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
