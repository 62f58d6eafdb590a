/**
 * Reading `messages` arrays shared by the chat completions and Anthropic formats.
 */
import { isPlainObject, type PlainObject } from "../validate.js";
import { BadRequestError } from "./types.js";

/** Reads `messages` as an array of objects with a string `role`. */
export function readRoleMessages(body: PlainObject): PlainObject[] {
  const messages = body.messages;
  if (!Array.isArray(messages)) throw new BadRequestError("`messages` must be an array");
  return messages.map((message, index) => {
    if (!isPlainObject(message) || typeof message.role !== "string") {
      throw new BadRequestError(`messages[${index}] must be an object with a string \`role\``);
    }
    return message;
  });
}
