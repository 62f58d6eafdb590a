// The code highlighter, bundled apart (dist/web/highlighter.js) and loaded by the page on its
// first code block: highlight.js core with the languages models write most.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);
hljs.configure({ ignoreUnescapedHTML: true });

/**
 * Highlights a `<code>` block of rendered markdown in place. A block without a language, or with one
 * not bundled here, stays plain (guessing is slow and often wrong on short snippets).
 */
export function highlightBlock(block: HTMLElement): void {
  const language = /\blanguage-([\w+-]+)/.exec(block.className)?.[1];
  if (!language || !hljs.getLanguage(language)) return;
  hljs.highlightElement(block);
}
