/** A one-line reply, then a second turn on the same session (the history is re-sent). */
export default {
  title: "plain reply (two turns)",
  async run(ctx) {
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, { prompt: "[conf:plain] Say hello." });
    await ctx.sendAndIdle(session, { prompt: "What did I ask?" });
  },
};
