/** bash, approved: output and exit code in the tool result. */
export default {
  title: "bash with permission (exit code)",
  async run(ctx) {
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, { prompt: "[conf:bash] Run the command." });
  },
};
