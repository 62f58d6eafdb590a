/** A sub-agent through the `task` tool (its own model conversation). */
export default {
  title: "sub-agent (task)",
  scripts: ["task.yaml", "task-sub.yaml"],
  async run(ctx) {
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, { prompt: "[conf:task] Delegate finding the config." });
  },
};
