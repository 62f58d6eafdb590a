import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { Attachment, ModelInfo } from "@tandem/protocol";
import { errorMessage } from "../errors.js";
import type { UserImage } from "../loop/messages.js";
import { GENERIC_TRUNCATION_HINT, MAX_MODEL_OUTPUT_CHARS, truncateMiddle } from "../tools/output-limits.js";

/**
 * How `session.send` attachments reach the model, as the reference runtime presents them:
 * - `file` / `directory`: one line each in a `<tagged_files>` block after the prompt — the path as
 *   given and its size (`(N lines)`, `(lines A-B of N lines)`, `(line A of N lines)`, `(N items)`) or the error of reading
 *   it. The content is not sent: the model reads it with `view`, which asks the read permission.
 *   The line is kept on the echoed attachment (`taggedFilesEntry`) so a resumed session sends the
 *   same text.
 * - `selection`: an `<ide_selection>` block before the prompt with the selected text (cut like
 *   tool output past {@link MAX_MODEL_OUTPUT_CHARS}); stored in `transformedContent`.
 * - `blob` images: image parts after the text (a text note instead when the model does not accept
 *   images, the data is too large, or the blob is not an image). A PDF goes the same way to a
 *   provider that reads documents (Anthropic), as a text note to the others.
 * - GitHub pointers: `<github_references>`, `<github_commits>`, `<github_urls>` blocks after the files.
 */

/** Images larger than this (decoded) are not sent; the model is told instead. */
export const MAX_ATTACHED_IMAGE_BYTES = 3 * 1024 * 1024;

const selectionAdvice = "The user has the following text selected in their IDE. This may or may not be related to their request.";

/** A prompt's attachments, prepared once when the message is recorded. */
export interface PreparedAttachments {
  /** Text that goes before the wrapped prompt (selections); part of `transformedContent`. */
  prefix: string;
  /** The attachments as `user.message` echoes them (files and directories with `taggedFilesEntry`). */
  echoed: Attachment[];
}

/**
 * Reads what the attachments need (sizes of files and directories) and returns the prompt prefix
 * and the attachments to echo. Relative paths are resolved against `workingDirectory`;
 * `acceptsImages` is asked only when an image is attached; `acceptsDocuments` says whether a PDF
 * blob is sent.
 */
export async function prepareAttachments(
  attachments: readonly Attachment[] | undefined,
  workingDirectory: string,
  acceptsImages: () => Promise<boolean>,
  acceptsDocuments = false,
): Promise<PreparedAttachments> {
  const echoed: Attachment[] = [];
  const selections: string[] = [];
  for (const attachment of attachments ?? []) {
    if (attachment.type === "file" || attachment.type === "directory") {
      echoed.push({ ...attachment, taggedFilesEntry: await taggedFilesEntry(attachment, workingDirectory) });
      continue;
    }
    if (attachment.type === "blob") {
      const omittedReason = isDocument(attachment) ? documentOmittedReason(attachment, acceptsDocuments) : omittedReasonOf(attachment, await acceptsImages());
      echoed.push(omittedReason ? { ...attachment, omittedReason } : attachment);
      continue;
    }
    if (attachment.type === "selection") selections.push(selectionBlock(attachment));
    echoed.push(attachment);
  }
  const prefix = selections.map((block) => `${block}\n\n`).join("");
  return { prefix, echoed };
}

/**
 * The text that follows the wrapped prompt for these (echoed) attachments: `<tagged_files>` and the
 * GitHub blocks, or "" when there are none. Built from the stored attachments, so the history of a
 * resumed session matches what the model saw.
 */
export function attachmentSuffix(echoed: readonly Attachment[] | undefined): string {
  // Most messages have none (a resume rebuilds every user message through here).
  if (!echoed || echoed.length === 0) return "";
  const files: string[] = [];
  const references: string[] = [];
  const commits: string[] = [];
  const urls: string[] = [];
  for (const attachment of echoed ?? []) {
    const fields = attachment as Record<string, unknown>;
    switch (attachment.type) {
      case "file":
      case "directory":
        if (typeof fields.taggedFilesEntry === "string") files.push(fields.taggedFilesEntry);
        break;
      case "github_reference":
        references.push(`#${text(fields.number)} - ${text(fields.title)} [${text(fields.referenceType)}] [${text(fields.state)}] (${text(fields.url)})`);
        break;
      case "github_commit": {
        const repo = (fields.repo ?? {}) as Record<string, unknown>;
        commits.push(`${text(repo.owner)}/${text(repo.name)} - ${text(fields.oid)} - ${text(fields.message)} (${text(fields.url)})`);
        break;
      }
      default:
        // Every other GitHub pointer (releases, jobs, files, diffs, …) names its URL.
        if (attachment.type.startsWith("github_") && typeof fields.url === "string") urls.push(fields.url);
    }
  }
  const blocks = [
    block("tagged_files", files.map((line) => line)),
    block("github_references", references),
    block("github_commits", commits),
    block("github_urls", urls),
  ].filter((value) => value !== "");
  return blocks.length === 0 ? "" : `\n\n\n\n${blocks.join("\n\n")}`;
}

/**
 * The model's text of a user message: the stored (wrapped) text with trailing blank lines dropped
 * when attachment blocks follow, then the blocks.
 */
export function withAttachmentSuffix(wrapped: string, echoed: readonly Attachment[] | undefined): string {
  const suffix = attachmentSuffix(echoed);
  return suffix === "" ? wrapped : `${wrapped.trimEnd()}${suffix}`;
}

/** Why an attached blob was not sent to the model (kept on the echoed attachment as `omittedReason`). */
export type OmittedReason = "too_large" | "not_an_image" | "model_without_vision";

/**
 * The images of the (echoed) attachments, as the model gets them: each `blob` becomes its label
 * and its image, or a text note when it was not sent (`omittedReason`, decided when the message
 * was recorded, so a resumed session rebuilds the same message).
 */
export function attachedImages(echoed: readonly Attachment[] | undefined): { images: UserImage[]; notes: string[] } {
  if (!echoed || echoed.length === 0) return { images: [], notes: [] };
  const images: UserImage[] = [];
  const notes: string[] = [];
  for (const attachment of echoed ?? []) {
    if (attachment.type !== "blob") continue;
    const fields = attachment as Record<string, unknown>;
    const label = blobLabel(fields);
    const mimeType = typeof fields.mimeType === "string" ? fields.mimeType : "";
    switch (fields.omittedReason) {
      case undefined:
        images.push({ label, mimeType, data: typeof fields.data === "string" ? fields.data : "" });
        break;
      case "too_large":
        notes.push(`[${label}: the attached image is larger than ${MAX_ATTACHED_IMAGE_BYTES / (1024 * 1024)} MB and was not sent.]`);
        break;
      case "model_without_vision":
        notes.push(`[${label}: an image was attached, but the model does not accept images, so it was not sent.]`);
        break;
      default:
        notes.push(`[${label}: an attachment of type ${mimeType || "unknown"} was not sent; only images can be attached.]`);
    }
  }
  return { images, notes };
}

/** Why a blob cannot be sent, or undefined when it can. */
function omittedReasonOf(fields: Record<string, unknown>, acceptsImages: boolean): OmittedReason | undefined {
  const mimeType = typeof fields.mimeType === "string" ? fields.mimeType : "";
  const data = typeof fields.data === "string" ? fields.data : "";
  if (!mimeType.startsWith("image/") || data === "") return "not_an_image";
  if (!acceptsImages) return "model_without_vision";
  if (decodedBytes(data) > MAX_ATTACHED_IMAGE_BYTES) return "too_large";
  return undefined;
}

/** Whether a blob is a PDF document. */
function isDocument(fields: Record<string, unknown>): boolean {
  return fields.mimeType === "application/pdf";
}

/** Why a PDF blob cannot be sent, or undefined when it can. */
function documentOmittedReason(fields: Record<string, unknown>, acceptsDocuments: boolean): OmittedReason | undefined {
  const data = typeof fields.data === "string" ? fields.data : "";
  if (!acceptsDocuments || data === "") return "not_an_image";
  if (decodedBytes(data) > MAX_ATTACHED_IMAGE_BYTES) return "too_large";
  return undefined;
}

function blobLabel(fields: Record<string, unknown>): string {
  return typeof fields.displayName === "string" && fields.displayName ? fields.displayName : "Attached image";
}

async function taggedFilesEntry(attachment: Attachment, workingDirectory: string): Promise<string> {
  const given = attachment.path ?? "";
  const path = isAbsolute(given) ? given : resolve(workingDirectory, given);
  try {
    const info = await stat(path);
    if (info.isDirectory()) return `* ${given} (${(await readdir(path)).length} items)`;
    // A device or FIFO could be read forever.
    if (!info.isFile()) return `* ${given} (error: not a regular file or directory)`;
    const lines = await countLines(path);
    const range = (attachment as { lineRange?: { start?: unknown; end?: unknown } }).lineRange;
    if (range && typeof range.start === "number" && typeof range.end === "number") {
      const where = range.end > range.start ? `lines ${range.start}-${range.end}` : `line ${range.start}`;
      return `* ${given} (${where} of ${lines} lines)`;
    }
    return `* ${given} (${lines} lines)`;
  } catch (error) {
    // Node's message names the path it tried; the model is shown the path as given.
    return `* ${given} (error: ${errorMessage(error).replace(path, given)})`;
  }
}

function selectionBlock(attachment: Attachment): string {
  const fields = attachment as Record<string, unknown>;
  const selection = (fields.selection ?? {}) as { start?: { line?: unknown }; end?: { line?: unknown } };
  const start = typeof selection.start?.line === "number" ? selection.start.line + 1 : 1;
  const end = typeof selection.end?.line === "number" ? selection.end.line + 1 : start;
  const where = end > start ? `lines ${start}-${end}` : `line ${start}`;
  const name = text(fields.displayName ?? fields.filePath);
  const selected = truncateMiddle(text(fields.text), MAX_MODEL_OUTPUT_CHARS, GENERIC_TRUNCATION_HINT);
  return `<ide_selection>\n${selectionAdvice}\nFile: ${name} (${where})\n\`\`\`\n${selected}\n\`\`\`\n</ide_selection>`;
}

/** Lines as the reference counts them (`text.split("\n").length`), read in chunks so a large file costs no memory. */
async function countLines(path: string): Promise<number> {
  let newlines = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++;
  }
  return newlines + 1;
}

function block(tag: string, lines: readonly string[]): string {
  return lines.length === 0 ? "" : `<${tag}>\n${lines.join("\n")}\n</${tag}>`;
}

function text(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

function decodedBytes(base64: string): number {
  return Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
}

/**
 * Whether `model` accepts images, from its provider's model list (`capabilities.supports.vision`).
 * A model the list does not name, or a list that cannot be read, is given the images (the
 * provider then says what it thinks of them).
 */
export async function modelAcceptsImages(listModels: () => Promise<ModelInfo[]>, model: string): Promise<boolean> {
  try {
    const listed = (await listModels()).find((info) => info.id === model);
    return listed?.capabilities.supports.vision !== false;
  } catch {
    return true;
  }
}
