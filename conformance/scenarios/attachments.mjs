import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** A file attachment and a selection attachment on one prompt. */
export default {
  title: "attachments (file, selection)",
  async run(ctx) {
    const file = join(ctx.workdir, "app.js");
    writeFileSync(file, "const a = 1;\nconst b = 2;\nconsole.log(a + b);\n");
    const session = await ctx.createSession();
    await ctx.sendAndIdle(session, {
      prompt: "[conf:attachments] Explain these.",
      attachments: [
        { type: "file", path: file, displayName: "app.js" },
        {
          type: "selection",
          filePath: file,
          displayName: "app.js",
          text: "const b = 2;",
          selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 12 } },
        },
      ],
    });
  },
};
