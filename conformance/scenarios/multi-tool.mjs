import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Three tool calls in one assistant turn. */
export default {
  title: "multiple tool calls in one turn",
  unorderedRounds:
    "The references ask the permissions of one round in the order the calls reach the ask, run the calls side by side and answer them as they finish, which varies between their own runs (view/glob/bash swap); Tandem asks in call order. Each round is compared per call (what it asked, got and answered), the calls in the order the model asked for them.",
  async run(ctx) {
    writeFileSync(join(ctx.workdir, "data.txt"), "one\n");
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, { prompt: "[conf:multi-tool] Do three things." });
  },
};
