import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Three tool calls in one assistant turn. */
export default {
  title: "multiple tool calls in one turn",
  async run(ctx) {
    writeFileSync(join(ctx.workdir, "data.txt"), "one\n");
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, { prompt: "[conf:multi-tool] Do three things." });
  },
};
