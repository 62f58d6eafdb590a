import { z } from "zod";
import type { Tool } from "../types.js";
import { defineBuiltinTool } from "./define.js";

/** The arguments of `task_complete`, built once for every session's tool. */
const taskCompleteArguments = z.object({ summary: z.string().optional().describe("A short summary of what was done.") });

/**
 * `task_complete`: the model declares the task done, with an optional summary, which the runtime
 * records as `session.task_complete` (autopilot stops nudging once it is seen).
 *
 * @example
 * const done = taskCompleteTool();
 */
export function taskCompleteTool(): Tool {
  return defineBuiltinTool({
    name: "task_complete",
    description:
      "Marks the task you were given as complete. Call it once, only when all the work is done and verified, with a short " +
      "summary of what you did.",
    schema: taskCompleteArguments,
    async execute({ summary }, context) {
      context.emitter.emit("session.task_complete", summary !== undefined ? { summary } : {});
      return { resultType: "success", textForModel: "Task marked complete." };
    },
  });
}
