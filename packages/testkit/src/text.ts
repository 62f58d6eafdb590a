/**
 * Text helpers: splitting replies into stream deltas, estimating tokens and
 * extracting text from provider message content.
 */
import { isPlainObject } from "./validate.js";

/** Minimum number of deltas for default (word) splitting of text with at least 3 characters. */
const MIN_DEFAULT_DELTAS = 3;
/** Largest tool-call argument delta. */
const MAX_ARGUMENT_DELTA = 16;

/**
 * Splits text into stream deltas whose concatenation is the text.
 * With `chunkSize`: fixed-size pieces. Without: one piece per word (with its
 * trailing whitespace), or 3 roughly equal pieces when that gives fewer than 3.
 */
export function splitText(text: string, chunkSize?: number): string[] {
  if (text.length === 0) return [];
  if (chunkSize !== undefined) return splitFixed(text, chunkSize);
  const words = text.match(/^\s+|\S+\s*/g) ?? [text];
  if (words.length >= MIN_DEFAULT_DELTAS || text.length < MIN_DEFAULT_DELTAS) return words;
  return splitFixed(text, Math.ceil(text.length / MIN_DEFAULT_DELTAS));
}

/** Splits tool-call arguments into at least 2 deltas (when longer than 1 character). */
export function splitArguments(args: string): string[] {
  if (args.length <= 1) return [args];
  const size = Math.min(MAX_ARGUMENT_DELTA, Math.ceil(args.length / 2));
  return splitFixed(args, size);
}

/** Fixed-size pieces that never cut a UTF-16 surrogate pair in half. */
function splitFixed(text: string, size: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Rough token estimate: one token per 4 characters, at least 1. */
export function estimateTokens(characters: number): number {
  return Math.max(1, Math.ceil(characters / 4));
}

/**
 * Text of provider message content: a string, or an array of parts whose `text`
 * fields are joined with newlines (tool-result parts contribute their nested content).
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") texts.push(part);
    if (!isPlainObject(part)) continue;
    if (typeof part.text === "string") texts.push(part.text);
    if (part.type === "tool_result" && part.content !== undefined) texts.push(contentText(part.content));
  }
  return texts.join("\n");
}
