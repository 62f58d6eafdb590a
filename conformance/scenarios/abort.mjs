/** Abort while bash runs; the next prompt shows the model the interrupted call. */
export default {
  title: "abort during a tool call",
  async run(ctx) {
    const session = await ctx.createSession();
    const running = ctx.waitFor(session, "tool.execution_start");
    const idle = ctx.waitFor(session, "session.idle");
    await session.send({ prompt: "[conf:abort] Sleep for a while." });
    await running;
    await new Promise((resolve) => setTimeout(resolve, 500));
    await session.abort();
    await idle;
    await ctx.sendAndIdle(session, { prompt: "What happened?" });
  },
};
