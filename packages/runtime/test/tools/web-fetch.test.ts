import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webFetchTool } from "../../src/tools/builtin/web-fetch.js";
import { htmlToMarkdown } from "../../src/tools/builtin/web/html-to-markdown.js";
import { denyAll, fakeContext } from "./helpers.js";

const page = `<!doctype html><html><head><title>T</title><style>body{}</style><script>alert(1)</script></head>
<body><h1>Welcome</h1><p>Read the <a href="/docs">docs</a> &amp; <em>enjoy</em>.</p>
<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul><pre><code class="language-js">const x = 1;
console.log(x);</code></pre></body></html>`;

let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits++;
    if (request.url === "/page") return void response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    if (request.url === "/data") return void response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    if (request.url === "/long") return void response.writeHead(200, { "content-type": "text/plain" }).end("0123456789".repeat(3));
    if (request.url === "/image") return void response.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([1, 2, 3]));
    if (request.url?.startsWith("/loop/")) return void response.writeHead(302, { location: `/loop/${Number(request.url.slice(6)) + 1}` }).end();
    if (request.url === "/to-file") return void response.writeHead(301, { location: "file:///etc/passwd" }).end();
    if (request.url === "/same-origin") return void response.writeHead(303, { location: "/data" }).end();
    if (request.url === "/slow") return void setTimeout(() => response.writeHead(200).end("late"), 2000);
    response.writeHead(404).end("not here");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const webFetch = webFetchTool({ timeoutMs: 500 });
const run = (args: Record<string, unknown>, context = fakeContext("/")) => webFetch.execute(args, context.context);

describe("web_fetch", () => {
  it("asks a url permission and returns HTML as Markdown", async () => {
    const context = fakeContext("/");
    const outcome = await run({ url: `${base}/page` }, context);
    expect(context.permissions).toEqual([{ kind: "url", intention: "Fetch web content", url: `${base}/page` }]);
    expect(outcome.resultType).toBe("success");
    expect(outcome.textForModel).toBe(
      `Contents of URL:\n# Welcome\n\nRead the [docs](${base}/docs) & *enjoy*.\n\n- one\n- two\n  - nested\n\n\`\`\`js\nconst x = 1;\nconsole.log(x);\n\`\`\``,
    );
  });

  it("returns raw HTML when asked", async () => {
    const outcome = await run({ url: `${base}/page`, raw: true, max_length: 30 });
    expect(outcome.textForModel.startsWith("Here is the raw content:\nContents of URL:\n<!doctype html><html>")).toBe(true);
  });

  it("returns JSON as it is, with the reference runtime's wording", async () => {
    expect((await run({ url: `${base}/data` })).textForModel).toBe(
      'Content type application/json cannot be simplified to markdown. Here is the raw content:\nContents of URL:\n{"ok":true}',
    );
  });

  it("pages through long content with max_length and start_index", async () => {
    const first = await run({ url: `${base}/long`, max_length: 12 });
    expect(first.textForModel).toContain("Contents of URL:\n012345678901\n\n<note>Content truncated: showing characters 0 to 12 of 30.");
    expect(first.textForModel).toContain("start_index: 12");
    const last = await run({ url: `${base}/long`, max_length: 100, start_index: 25 });
    expect(last.textForModel.endsWith("Contents of URL:\n56789")).toBe(true);
    expect((await run({ url: `${base}/long`, start_index: 30 })).resultType).toBe("failure");
  });

  it("reports HTTP errors, binary types, timeouts and bad URLs", async () => {
    expect(await run({ url: `${base}/missing` })).toMatchObject({
      resultType: "failure",
      textForModel: "Failed to fetch URL: Error: Failed to fetch URL - status code 404",
    });
    expect((await run({ url: `${base}/image` })).textForModel).toBe("Failed to fetch URL: Error: Content type image/png is binary and cannot be shown as text");
    expect((await run({ url: `${base}/slow` })).textForModel).toBe("Failed to fetch URL: Error: The request timed out");
    const context = fakeContext("/");
    expect((await run({ url: "file:///etc/passwd" }, context)).textForModel).toBe('Invalid input: "url": Expected an absolute http:// or https:// URL');
    expect(context.permissions).toEqual([]);
  });

  it("fetches nothing when denied", async () => {
    const before = hits;
    const outcome = await run({ url: `${base}/page` }, fakeContext("/", { decide: denyAll }));
    expect(outcome.resultType).toBe("rejected");
    expect(hits).toBe(before);
  });
});

describe("web_fetch redirects", () => {
  it("follows same-origin redirects without asking again, and gives up after 10 with a reason the model can read", async () => {
    const context = fakeContext("/");
    expect((await run({ url: `${base}/same-origin` }, context)).textForModel).toContain('{"ok":true}');
    expect(context.permissions).toHaveLength(1);
    const before = hits;
    const outcome = await run({ url: `${base}/loop/0` });
    expect(outcome).toMatchObject({ resultType: "failure", textForModel: `Failed to fetch URL: Error: Too many redirects: gave up after 10 (the last one pointed to ${base}/loop/11).` });
    expect(hits - before).toBe(11);
  });

  it("refuses a redirect to a scheme other than http(s)", async () => {
    const context = fakeContext("/");
    const outcome = await run({ url: `${base}/to-file` }, context);
    expect(outcome).toMatchObject({ resultType: "failure" });
    expect(outcome.textForModel).toContain("redirected to file:///etc/passwd; only http:// and https:// redirects are followed.");
    expect(context.permissions).toHaveLength(1);
  });
});

describe("htmlToMarkdown", () => {
  it("converts headings, emphasis, images, quotes, tables and entities", async () => {
    const html =
      "<h2>Title</h2><p><strong>Bold</strong> and <code>code</code> &lt;tag&gt; &#169;</p>" +
      '<img src="a.png" alt="pic"><blockquote><p>Quoted</p></blockquote>' +
      "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2|3</td></tr></table><ol start=3><li>three<li>four</ol>";
    expect(await htmlToMarkdown(html, "https://example.com/dir/")).toBe(
      "## Title\n\n**Bold** and `code` <tag> ©\n\n![pic](https://example.com/dir/a.png)\n\n> Quoted\n\n" +
        "| A | B |\n| --- | --- |\n| 1 | 2\\|3 |\n\n3. three\n4. four",
    );
  });

  it("escapes Markdown characters that are literal text, keeps fragment links and fences a bare <pre> (turndown)", async () => {
    const html = "<p>Use *stars* and _underscores_ literally.</p><p>Back to <a href='#top'>top</a>.</p><pre>plain\n  indented</pre><hr><p>end</p>";
    expect(await htmlToMarkdown(html, "https://example.com/dir/")).toBe(
      "Use \\*stars\\* and \\_underscores\\_ literally.\n\nBack to [top](https://example.com/dir/#top).\n\n```\nplain\n  indented\n```\n\n---\n\nend",
    );
  });
});
