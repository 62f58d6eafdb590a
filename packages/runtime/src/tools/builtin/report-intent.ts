import { z } from "zod";
import type { Tool } from "../types.js";
import { defineBuiltinTool } from "./define.js";

/** The arguments of `report_intent`, built once for every session's tool. */
const reportIntentArguments = z.object({
  intent: z.string().describe("What you are doing now, in a few words starting with a verb in -ing form (e.g. \"Reading the config\")."),
});

/**
 * `report_intent`: the model says in a few words what it is doing. The runtime shows it to the
 * application as the ephemeral `assistant.intent {intent}` and answers `Intent logged`; it asks no
 * permission (the call only describes the work, it does none).
 *
 * @example
 * const intent = reportIntentTool();
 */
export function reportIntentTool(): Tool {
  return defineBuiltinTool({
    name: "report_intent",
    description:
      "Tells the user what you are working on, in a few words. Call it when you begin a new step of the task, " +
      "in the same response as the first tool calls of that step; it does nothing else.",
    schema: reportIntentArguments,
    async execute({ intent }, context) {
      context.emitter.emit("assistant.intent", { intent });
      return { resultType: "success", textForModel: "Intent logged", detailedContent: intent };
    },
  });
}
