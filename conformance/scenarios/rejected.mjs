/** The user rejects a bash call: the turn ends; the next prompt carries the refusal to the model. */
export default {
  title: "rejected permission",
  async run(ctx) {
    const session = await ctx.createSession({ onPermissionRequest: () => ctx.sdk.reject() });
    await ctx.sendAndIdle(session, { prompt: "[conf:rejected] Run the command." });
    await ctx.sendAndIdle(session, { prompt: "Never mind." });
  },
};
