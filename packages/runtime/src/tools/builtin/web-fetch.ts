import { z } from "zod";
import { errorMessage } from "../../errors.js";
import type { Tool, ToolOutcome } from "../types.js";
import { defineBuiltinTool } from "./define.js";
import { importOnce } from "../../import-once.js";

/** The fetch itself, loaded with the first call (a session that never fetches does not parse it). */
const loadRedirects = importOnce(() => import("./web/redirects.js"));
/** The HTML conversion, loaded with the first HTML page fetched (a session that fetches none does not parse it). */
const loadHtmlToMarkdown = importOnce(() => import("./web/html-to-markdown.js"));

/** Limits of `web_fetch`. */
export interface WebFetchOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Read at most this much of a response (default 5 MB). */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_LENGTH = 5000;
const BINARY_TYPES = /^(image|audio|video|font)\/|^application\/(octet-stream|pdf|zip|gzip|x-tar|x-7z-compressed|wasm)/;

const requestHeaders = { "user-agent": "Tandem web_fetch", accept: "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.8" };

/** The arguments of `web_fetch`, built once for every session's tool. */
const webFetchArguments = z.object({
  url: z.string().refine(isHttpUrl, "Expected an absolute http:// or https:// URL").describe("The http:// or https:// URL to fetch."),
  max_length: z.number().int().positive().optional().describe(`Maximum number of characters to return (default ${DEFAULT_MAX_LENGTH}).`),
  start_index: z.number().int().min(0).optional().describe("Return content starting at this character index (default 0), to page through long content."),
  raw: z.boolean().optional().describe("Return the page as fetched instead of converting HTML to Markdown."),
});

/**
 * `web_fetch`: fetches a URL after a `url` permission and returns the page as Markdown (HTML) or
 * as text (anything else, or `raw`), `max_length` characters at a time from `start_index`.
 * Redirects are followed by hand: one to another origin needs its own `url` permission (see
 * `fetchFollowingApprovedRedirects` in `web/redirects.ts`).
 *
 * @example
 * const fetchTool = webFetchTool();
 */
export function webFetchTool(options: WebFetchOptions = {}): Tool {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBodyBytes = options.maxBodyBytes ?? 5 * 1024 * 1024;
  return defineBuiltinTool({
    name: "web_fetch",
    description:
      "Fetches a web page or file over HTTP(S). HTML is converted to Markdown (raw: true returns the HTML); JSON and text come " +
      "back as they are. Long content is returned max_length characters at a time: call again with start_index to continue.",
    schema: webFetchArguments,
    permission: (args) => ({ kind: "url", intention: "Fetch web content", url: args.url }),
    async execute(args, context) {
      const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
      const fetched = await (await loadRedirects()).fetchFollowingApprovedRedirects(new URL(args.url), context, signal, { headers: requestHeaders });
      if (!fetched.ok && fetched.kind === "network") return fetchFailure(describeFetchError(fetched.error));
      if (!fetched.ok) return { ...fetchFailure(fetched.reason), resultType: fetched.resultType };
      const { response, url } = fetched;
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return fetchFailure(`Failed to fetch URL - status code ${response.status}`);
      }
      const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (BINARY_TYPES.test(contentType)) {
        await response.body?.cancel().catch(() => undefined);
        return fetchFailure(`Content type ${contentType} is binary and cannot be shown as text`);
      }
      let body: string;
      try {
        body = await readBody(response, maxBodyBytes);
      } catch (error) {
        return fetchFailure(describeFetchError(error));
      }
      const isHtml = contentType.includes("html") || (contentType === "" && /^\s*(<!doctype html|<html)/i.test(body));
      const { prefix, content } = await present(body, contentType, isHtml, args.raw === true, url.toString());
      return page(prefix, content, args.start_index ?? 0, args.max_length ?? DEFAULT_MAX_LENGTH);
    },
  });
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

async function present(body: string, contentType: string, isHtml: boolean, raw: boolean, finalUrl: string): Promise<{ prefix: string; content: string }> {
  if (isHtml && !raw) return { prefix: "Contents of URL:\n", content: await (await loadHtmlToMarkdown()).htmlToMarkdown(body, finalUrl) };
  if (raw) return { prefix: "Here is the raw content:\nContents of URL:\n", content: body };
  return {
    prefix: `Content type ${contentType || "unknown"} cannot be simplified to markdown. Here is the raw content:\nContents of URL:\n`,
    content: body,
  };
}

function page(prefix: string, content: string, start: number, maxLength: number): ToolOutcome {
  if (content.length > 0 && start >= content.length) {
    return {
      resultType: "failure",
      textForModel: `No more content: start_index ${start} is at or past the end of the content (${content.length} characters).`,
      errorMessage: "start_index past the end",
    };
  }
  const end = Math.min(content.length, start + maxLength);
  let text = prefix + content.slice(start, end);
  if (end < content.length) {
    text +=
      `\n\n<note>Content truncated: showing characters ${start} to ${end} of ${content.length}. ` +
      `Call web_fetch with start_index: ${end} to get more.</note>`;
  }
  return { resultType: "success", textForModel: text };
}

function fetchFailure(reason: string): ToolOutcome {
  return { resultType: "failure", textForModel: `Failed to fetch URL: Error: ${reason}`, errorMessage: reason };
}

function describeFetchError(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "The request timed out";
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ? `${errorMessage(error)} (${cause})` : errorMessage(error);
}

async function readBody(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
    if (size >= maxBytes) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return text + decoder.decode();
}
