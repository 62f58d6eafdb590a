import { stopClient } from "../lib/run.mjs";

/** One turn, the runtime process ends, a new process resumes the session and takes a second turn. */
export default {
  title: "resume in a new process",
  async run(ctx) {
    const first = await ctx.startClient();
    const session = await ctx.createSession({}, first);
    const sessionId = session.sessionId;
    await ctx.sendAndIdle(session, { prompt: "[conf:resume] First question." });
    await stopClient(first);
    const second = await ctx.startClient();
    const resumed = await ctx.resumeSession(second, sessionId);
    await ctx.sendAndIdle(resumed, { prompt: "Second question." });
  },
};
