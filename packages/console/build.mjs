// Bundles the browser app (web/) with esbuild into dist/web: one small ES module, no CDN.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
mkdirSync(here("./dist/web"), { recursive: true });
// Two bundles: the app, and the code highlighter it loads on the first code block.
await build({
  entryPoints: [here("./web/app.ts"), here("./web/highlighter.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  outdir: here("./dist/web"),
  logLevel: "warning",
});
copyFileSync(here("./web/index.html"), here("./dist/web/index.html"));
// The highlighter's theme (highlight.js's GitHub Dark, BSD-3-Clause) goes with the app's styles.
const theme = readFileSync(fileURLToPath(import.meta.resolve("highlight.js/styles/github-dark.css")), "utf8");
writeFileSync(here("./dist/web/app.css"), `${readFileSync(here("./web/app.css"), "utf8")}\n${theme}`);
