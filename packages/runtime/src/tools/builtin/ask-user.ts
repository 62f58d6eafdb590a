import { z } from "zod";
import { UserInputUnavailable } from "../../ports/user-input.js";
import type { Tool } from "../types.js";
import { defineBuiltinTool } from "./define.js";

/** The arguments of `ask_user`, built once for every session's tool. */
const askUserArguments = z.object({
  question: z.string().describe("The question to ask."),
  choices: z.array(z.string()).optional().describe("Answers the user can pick from."),
  allow_freeform: z.boolean().optional().describe("Whether the user may type an answer of their own (default true)."),
});

/**
 * `ask_user`: asks the user a question (optionally with choices) through the application's
 * user-input handler. Offered only when the session was created with `requestUserInput: true`.
 *
 * @example
 * const ask = askUserTool();
 */
export function askUserTool(): Tool {
  return defineBuiltinTool({
    name: "ask_user",
    description:
      "Asks the user a question and waits for the answer. Use it when you need a decision or information only the user has; " +
      "offer choices when there are clear options. Do not use it for things you can find out yourself.",
    schema: askUserArguments,
    async execute(args, context) {
      try {
        const { answer, wasFreeform } = await context.requestUserInput({
          question: args.question,
          ...(args.choices ? { choices: args.choices } : {}),
          allowFreeform: args.allow_freeform ?? true,
        });
        return { resultType: "success", textForModel: wasFreeform ? `User responded: ${answer}` : `User selected: ${answer}` };
      } catch (error) {
        if (!(error instanceof UserInputUnavailable)) throw error;
        return {
          resultType: "failure",
          textForModel: `The user could not be asked (${error.message}). Decide with your best judgement and say which assumption you made.`,
          errorMessage: "User input unavailable",
        };
      }
    },
  });
}
