/** Switch to plan mode over RPC, then one turn. */
export default {
  title: "plan mode",
  async run(ctx) {
    const session = await ctx.createSession();
    await session.rpc.mode.set({ mode: "plan" });
    await ctx.sendAndIdle(session, { prompt: "[conf:plan-mode] Plan a change." });
  },
};
