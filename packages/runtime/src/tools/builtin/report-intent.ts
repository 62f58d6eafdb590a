import { z } from "zod";
import type { Tool } from "../types.js";
import { defineBuiltinTool } from "./define.js";

/**
 * `report_intent`: the model says in a few words what it is doing; the runtime shows it as
 * `assistant.intent`.
 *
 * @example
 * const intent = reportIntentTool();
 */
export function reportIntentTool(): Tool {
  return defineBuiltinTool({
    name: "report_intent",
    description:
      "Tells the user, in a few words, what you are about to do (e.g. \"Exploring the codebase\", \"Fixing the failing test\"). " +
      "Call it when you start a new phase of work, together with the other tools of that step.",
    schema: z.object({ intent: z.string().describe("A short description of the current activity, 2-6 words, in the gerund form.") }),
    async execute({ intent }, context) {
      context.emitter.emit("assistant.intent", { intent });
      return { resultType: "success", textForModel: "Intent logged", detailedContent: intent };
    },
  });
}
