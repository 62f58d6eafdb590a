/** `streaming: true`: deltas, then the whole message. */
export default {
  title: "streaming reply",
  async run(ctx) {
    const session = await ctx.createSession({ streaming: true });
    await ctx.sendAndIdle(session, { prompt: "[conf:streaming] Stream something." });
  },
};
