/** ask_user with choices, answered by the client's user-input handler. */
export default {
  title: "ask_user",
  async run(ctx) {
    const session = await ctx.createSession({ onUserInputRequest: async () => ({ answer: "blue", wasFreeform: false }) });
    await ctx.sendAndIdle(session, { prompt: "[conf:ask-user] Ask me for a color." });
  },
};
