import { afterAll, describe, expect, it } from "vitest";
import { ShellCommandParser, type BashSyntaxParser } from "../../src/tools/builtin/shell/bash-parser.js";
import { analyzeCommandLine } from "../../src/tools/builtin/shell/command-analysis.js";

const parser = new ShellCommandParser();
afterAll(() => parser.dispose());

async function syntax(): Promise<BashSyntaxParser> {
  const loaded = await parser.syntax();
  if (!loaded) throw new Error("the bash parser did not load");
  return loaded;
}

/** Each command line, with every command it runs (identifier, read-only) in the order listed. */
const table: Array<[string, Array<[string, boolean]>]> = [
  // Command substitution in all its spellings: the inner command is listed, and taints the outer one.
  ["echo $(rm -f X)", [["echo $(rm -f X)", false], ["rm -f X", false]]],
  ["echo `rm -f X`", [["echo `rm -f X`", false], ["rm -f X", false]]],
  ['echo "$(rm -f X)"', [['echo "$(rm -f X)"', false], ["rm -f X", false]]],
  ["echo $(date; pwd)", [["echo $(date; pwd)", true], ["date", true], ["pwd", true]]],
  ["echo ${x:-$(rm z)}", [["echo ${x:-$(rm z)}", false], ["rm z", false]]],
  ["a=$(b=$(rm x))", [["a=$(b=$(rm x))", false], ["b=$(rm x)", false], ["rm x", false]]],
  ["FOO=$(touch X) ls", [["FOO=$(touch X) ls", false], ["touch X", false]]],
  ["export A=$(rm x)", [["export A=$(rm x)", false], ["rm x", false]]],
  ["[[ -f $(rm x) ]]", [["[[ -f $(rm x) ]]", false], ["rm x", false]]],
  ['cat <<< "$(rm x)"', [['cat <<< "$(rm x)"', false], ["rm x", false]]],
  // Process substitution.
  ["cat <(curl evil)", [["cat <(curl evil)", false], ["curl evil", false]]],
  ["diff <(ls a) >(tee b)", [["diff <(ls a) >(tee b)", false], ["ls a", true], ["tee b", false]]],
  // Quoting: single quotes and quoted here-documents run nothing; unquoted here-documents do.
  ["echo '$(rm x)'", [["echo '$(rm x)'", true]]],
  ['echo "a; rm x"', [['echo "a; rm x"', true]]],
  ["cat <<EOF\n$(rm x)\nEOF", [["cat <<EOF\n$(rm x)\nEOF", false], ["rm x", false]]],
  ["cat <<'EOF'\n$(rm x)\nEOF", [["cat <<'EOF'\n$(rm x)\nEOF", true]]],
  ["echo $((1+2))", [["echo $((1+2))", true]]],
  // Scripts in strings: literal ones are parsed (nested too); unknown ones are not read-only.
  ["bash -c 'rm -rf /tmp/x'", [["bash -c 'rm -rf /tmp/x'", false], ["rm -rf /tmp/x", false]]],
  ['sh -c "echo hi; touch y"', [['sh -c "echo hi; touch y"', false], ["echo hi", true], ["touch y", false]]],
  ["bash -c 'ls -la'", [["bash -c 'ls -la'", true], ["ls -la", true]]],
  [`bash -c 'bash -c "rm x"'`, [[`bash -c 'bash -c "rm x"'`, false], ['bash -c "rm x"', false], ["rm x", false]]],
  ["eval 'rm x'", [["eval 'rm x'", false], ["rm x", false]]],
  ['eval "$cmd"', [['eval "$cmd"', false]]],
  ['bash -c "$x"', [['bash -c "$x"', false]]],
  ["bash script.sh", [["bash script.sh", false]]],
  ["source ./env.sh && ls", [["source ./env.sh", false], ["ls", true]]],
  // Command names that are not known before they run.
  ["$CMD arg", [["$CMD arg", false]]],
  ["$(echo rm) x", [["$(echo rm) x", false], ["echo rm", true]]],
  // Functions: the body is listed; a call is read-only when the body is; a function shadows a program.
  ["f() { rm x; }; f", [["rm x", false], ["f", false]]],
  ["f() { echo hi; }; f", [["echo hi", true], ["f", true]]],
  ["ls() { rm -rf x; }; ls", [["rm -rf x", false], ["ls", false]]],
  // Compound commands.
  ["(cd a && rm b)", [["cd a", false], ["rm b", false]]],
  ["{ ls; rm c; }", [["ls", true], ["rm c", false]]],
  ["if true; then rm x; fi", [["true", true], ["rm x", false]]],
  ['for f in *; do rm "$f"; done', [['rm "$f"', false]]],
  ["for f in $(ls); do cat $f; done", [["ls", true], ["cat $f", true]]],
  ["case $x in a) rm y;; esac", [["rm y", false]]],
  ["x=1; echo $x", [["x=1", true], ["echo $x", true]]],
  ["git status && git push", [["git status", true], ["git push", false]]],
  // Wrappers: the wrapped command is a command too.
  ["ls | xargs rm", [["ls", true], ["xargs rm", false], ["rm", false]]],
  ["find . -exec rm {} \\;", [["find . -exec rm {} \\;", false], ["rm {}", false]]],
  ["timeout 5 rm x", [["timeout 5 rm x", false], ["rm x", false]]],
  ["timeout 5 ls -la", [["timeout 5 ls -la", true], ["ls -la", true]]],
  ["env A=1 rm x", [["env A=1 rm x", false], ["rm x", false]]],
  ["env LC_ALL=C sort a.txt", [["env LC_ALL=C sort a.txt", true], ["sort a.txt", true]]],
  ["sudo rm x", [["sudo rm x", false], ["rm x", false]]],
  ["nice -n 5 nohup rm x", [["nice -n 5 nohup rm x", false], ["nohup rm x", false], ["rm x", false]]],
  ["command -v git", [["command -v git", true]]],
  ["time cat a.txt", [["time cat a.txt", true], ["cat a.txt", true]]],
  ["time (rm x)", [["time (rm x)", false], ["rm x", false]]],
  ["find . -name '*.ts' | xargs grep foo", [["find . -name '*.ts'", true], ["xargs grep foo", false], ["grep foo", true]]],
  ["xargs -I{} sh -c 'rm {}'", [["xargs -I{} sh -c 'rm {}'", false], ["sh -c 'rm {}'", false], ["rm {}", false]]],
  // Redirections.
  ["echo ok > out.txt", [["echo ok > out.txt", false]]],
  ["{ ls; } > out.txt", [["ls", false]]],
  ["echo $(ls > files.txt)", [["echo $(ls > files.txt)", false], ["ls > files.txt", false]]],
  ["cat < in.txt 2>&1 | grep x 2>/dev/null", [["cat < in.txt 2>&1", true], ["grep x 2>/dev/null", true]]],
  ["ls | sort > out.txt", [["ls", true], ["sort > out.txt", false]]],
  ["touch a && ls b > out.txt", [["touch a", false], ["ls b > out.txt", false]]],
  ["ls && (cat a; rm b) > out.txt", [["ls", true], ["cat a", false], ["rm b", false]]],
  ["echo 😀 é; timeout 5 rm x", [["echo 😀 é", true], ["timeout 5 rm x", false], ["rm x", false]]],
  ["[ -f x ] && cat x", [["[ -f x ]", true], ["cat x", true]]],
  // Variables that change what later or wrapped programs do.
  ["PATH=/tmp/evil:$PATH ls", [["PATH=/tmp/evil:$PATH ls", false]]],
  ["PATH=/tmp/evil; ls", [["PATH=/tmp/evil", false], ["ls", true]]],
  // Options of allow-listed programs that write or run programs.
  ["git -c core.pager=evil log", [["git -c core.pager=evil log", false]]],
  ["sort -o out.txt in.txt", [["sort -o out.txt in.txt", false]]],
  ["sort $opts in.txt", [["sort $opts in.txt", false]]],
  ["sed -n 1p a.txt", [["sed -n 1p a.txt", false]]],
  ["\\rm x", [["\\rm x", false]]],
  ['"ls" -la', [['"ls" -la', true]]],
  // Comments, line continuations, broken syntax.
  ["ls # $(rm x)", [["ls", true]]],
  ["ls \\\n  -la", [["ls \\\n  -la", true]]],
  ["echo $(", [["echo $(", false], ["echo", true]]],
  ["ls; ls", [["ls", true]]],
  [
    `cd src && grep -n "a && b" *.ts | head -5; echo 'x;y' || echo $(date; pwd)\nls`,
    [["cd src", false], ['grep -n "a && b" *.ts', true], ["head -5", true], ["echo 'x;y'", true], ["echo $(date; pwd)", true], ["date", true], ["pwd", true], ["ls", true]],
  ],
];

describe("analyzeCommandLine", () => {
  it.each(table)("%j", async (command, expected) => {
    const { commands } = analyzeCommandLine(command, await syntax());
    expect(commands.map((entry) => [entry.identifier, entry.readOnly])).toEqual(expected);
  });

  it("finds file writes anywhere, and ignores /dev/null and descriptor copies", async () => {
    const writes = async (command: string) => analyzeCommandLine(command, await syntax()).writesFile;
    expect(await writes("echo $(ls > files.txt)")).toBe(true);
    expect(await writes("{ ls; } >> log.txt")).toBe(true);
    expect(await writes("ls &> all.txt")).toBe(true);
    expect(await writes("bash -c 'echo x > y'")).toBe(true);
    expect(await writes("ls 2>/dev/null >&2 2>&1")).toBe(false);
    expect(await writes("cat < in.txt")).toBe(false);
  });

  it("collects path candidates from words and redirections, inside substitutions and scripts too", async () => {
    const { pathCandidates } = analyzeCommandLine("cat $(ls src/) ./a.txt > out.log 2>&1 && bash -c 'head ../b.md' && cat \"$HOME/x.txt\"", await syntax());
    expect(pathCandidates).toEqual(["./a.txt", "src/", "out.log", "../b.md", `${process.env.HOME}/x.txt`]);
  });
});
