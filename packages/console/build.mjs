// Bundles the browser app (web/) with esbuild into dist/web: one small ES module, no CDN.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
mkdirSync(here("./dist/web"), { recursive: true });
await build({
  entryPoints: [here("./web/app.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  outfile: here("./dist/web/app.js"),
  logLevel: "warning",
});
copyFileSync(here("./web/index.html"), here("./dist/web/index.html"));
copyFileSync(here("./web/app.css"), here("./dist/web/app.css"));
