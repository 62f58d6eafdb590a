/** create, view, edit, and a view of a missing file. */
export default {
  title: "create / view / edit",
  async run(ctx) {
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, { prompt: "[conf:files] Write and change notes.txt." });
  },
};
