/**
 * What a `shell` permission request labels read-only: commands that can write or run code never
 * are, evaluations of values not known statically are listed as arbitrary code (with the hidden
 * command when the script spells it out), and options match by prefix as the programs read them.
 */
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

/** What the request says besides the commands: a file write redirection, code from evaluated values. */
interface Flags {
  writes: boolean;
  runsUnknownCode: boolean;
}

/** Each command line, every command it runs (identifier, read-only) in the order listed, and its flags. */
const table: Array<[string, Array<[string, boolean]>, Flags]> = [
  // Here-documents: a redirection after `<<EOF` is the command's own.
  ["cat <<EOF > f\nhi\nEOF", [["cat <<EOF > f\nhi\nEOF",false]], { writes: true, runsUnknownCode: false }],
  ["cat <<EOF >> log.txt 2>&1\nhi\nEOF", [["cat <<EOF >> log.txt 2>&1\nhi\nEOF",false]], { writes: true, runsUnknownCode: false }],
  ["cat <<'EOF' > f\n$(rm x)\nEOF", [["cat <<'EOF' > f\n$(rm x)\nEOF",false]], { writes: true, runsUnknownCode: false }],
  ["cat <<EOF\nhi\nEOF", [["cat <<EOF\nhi\nEOF",true]], { writes: false, runsUnknownCode: false }],
  ["cat <<EOF | grep hi\nhi\nEOF", [["cat <<EOF | grep hi\nhi\nEOF",true],["grep hi",true]], { writes: false, runsUnknownCode: false }],
  ["{ cat; } <<EOF > f\nhi\nEOF", [["cat",false]], { writes: true, runsUnknownCode: false }],
  // Arithmetic on values not known statically may run any command (a subscript holding `$(…)`).
  ["x='a[$(touch pwned)]'; echo $((x))", [["x='a[$(touch pwned)]'",true],["echo $((x))",false],["arbitrary code via evaluation of: $((x))",false],["touch pwned",false]], { writes: false, runsUnknownCode: true }],
  ["echo $((1+2))", [["echo $((1+2))",true]], { writes: false, runsUnknownCode: false }],
  ["echo $((x))", [["echo $((x))",false],["arbitrary code via evaluation of: $((x))",false]], { writes: false, runsUnknownCode: true }],
  ["echo $[x]", [["echo $[x]",false],["arbitrary code via evaluation of: $[x]",false]], { writes: false, runsUnknownCode: true }],
  ["(( x > 1 ))", [["(( x > 1 ))",false],["arbitrary code via evaluation of: (( x > 1 ))",false]], { writes: false, runsUnknownCode: true }],
  ["(( 1 + 2 ))", [["(( 1 + 2 ))",false]], { writes: false, runsUnknownCode: false }],
  ["for ((i=0; i<n; i++)); do echo $i; done", [["arbitrary code via evaluation of: for ((i=0; i<n; i++))",false],["i=0",true],["echo $i",true]], { writes: false, runsUnknownCode: true }],
  // `[[ a -eq b ]]` evaluates its operands as arithmetic; `[ … ]` only takes integers.
  ["[[ $x -eq 1 ]]", [["[[ $x -eq 1 ]]",false],["arbitrary code via evaluation of: $x -eq 1",false]], { writes: false, runsUnknownCode: true }],
  ["[[ x -lt 3 ]]", [["[[ x -lt 3 ]]",false],["arbitrary code via evaluation of: x -lt 3",false]], { writes: false, runsUnknownCode: true }],
  ["[[ 1 -eq 1 ]]", [["[[ 1 -eq 1 ]]",true]], { writes: false, runsUnknownCode: false }],
  ["[[ $x == 1 ]]", [["[[ $x == 1 ]]",true]], { writes: false, runsUnknownCode: false }],
  ["[ \"$x\" -eq 1 ]", [["[ \"$x\" -eq 1 ]",true]], { writes: false, runsUnknownCode: false }],
  // Names given as values are evaluated with their subscripts: `test -v`, `printf -v`, `read`, `unset`, `${!x}`, `declare -n`.
  ["[[ -v a[$i] ]]", [["[[ -v a[$i] ]]",false],["arbitrary code via evaluation of: -v a[$i]",false]], { writes: false, runsUnknownCode: true }],
  ["[[ -v name ]]", [["[[ -v name ]]",true]], { writes: false, runsUnknownCode: false }],
  ["test -v \"$x\"", [["test -v \"$x\"",false],["arbitrary code via evaluation of: test -v \"$x\"",false]], { writes: false, runsUnknownCode: true }],
  ["printf -v 'a[$(touch pwned)]' %s hi", [["printf -v 'a[$(touch pwned)]' %s hi",false],["arbitrary code via evaluation of: printf -v 'a[$(touch pwned)]' %s hi",false],["touch pwned",false]], { writes: false, runsUnknownCode: true }],
  ["printf -v out %s hi", [["printf -v out %s hi",false]], { writes: false, runsUnknownCode: false }],
  ["printf '%s\\n' \"$x\"", [["printf '%s\\n' \"$x\"",true]], { writes: false, runsUnknownCode: false }],
  ["printf \"$fmt\" a", [["printf \"$fmt\" a",false],["arbitrary code via evaluation of: printf \"$fmt\" a",false]], { writes: false, runsUnknownCode: true }],
  // `let`, integer variables and array subscripts.
  ["let n=x+1", [["let n=x+1",false],["arbitrary code via evaluation of: let n=x+1",false]], { writes: false, runsUnknownCode: true }],
  ["let 1+2", [["let 1+2",false],["arbitrary code via evaluation of: let 1+2",false]], { writes: false, runsUnknownCode: true }],
  ["declare -i n=$x", [["declare -i n=$x",false],["arbitrary code via evaluation of: declare -i n=$x",false]], { writes: false, runsUnknownCode: true }],
  ["local -i n; n=$1", [["local -i n",false],["n=$1",false],["arbitrary code via evaluation of: n=$1",false]], { writes: false, runsUnknownCode: true }],
  ["typeset -i n=5", [["typeset -i n=5",false]], { writes: false, runsUnknownCode: false }],
  ["a[$x]=1", [["a[$x]=1",false],["arbitrary code via evaluation of: a[$x]",false]], { writes: false, runsUnknownCode: true }],
  ["a[1]=2", [["a[1]=2",false]], { writes: false, runsUnknownCode: false }],
  ["a=([$x]=1)", [["a=([$x]=1)",false],["arbitrary code via evaluation of: ([$x]=1)",false]], { writes: false, runsUnknownCode: true }],
  ["echo ${a[$x]}", [["echo ${a[$x]}",false],["arbitrary code via evaluation of: a[$x]",false]], { writes: false, runsUnknownCode: true }],
  ["echo ${a[1]} ${a[@]}", [["echo ${a[1]} ${a[@]}",true]], { writes: false, runsUnknownCode: false }],
  ["echo ${x:$y:2}", [["echo ${x:$y:2}",false]], { writes: false, runsUnknownCode: false }],
  ["echo ${x: -1} ${x:1:2}", [["echo ${x: -1} ${x:1:2}",true]], { writes: false, runsUnknownCode: false }],
  ["echo ${!ref}", [["echo ${!ref}",false],["arbitrary code via evaluation of: ${!ref}",false]], { writes: false, runsUnknownCode: true }],
  ["echo ${!a[@]} ${!pre*}", [["echo ${!a[@]} ${!pre*}",true]], { writes: false, runsUnknownCode: false }],
  ["declare -n r=$x", [["declare -n r=$x",false],["arbitrary code via evaluation of: declare -n r=$x",false]], { writes: false, runsUnknownCode: true }],
  ["unset 'a[$(touch pwned)]'", [["unset 'a[$(touch pwned)]'",false],["arbitrary code via evaluation of: unset 'a[$(touch pwned)]'",false]], { writes: false, runsUnknownCode: true }],
  ["unset foo", [["unset foo",false]], { writes: false, runsUnknownCode: false }],
  ["read -r line", [["read -r line",false]], { writes: false, runsUnknownCode: false }],
  ["v=$(cat VERSION); echo $((v+1))", [["v=$(cat VERSION)",true],["cat VERSION",true],["echo $((v+1))",false],["arbitrary code via evaluation of: $((v+1))",false]], { writes: false, runsUnknownCode: true }],
  // Long options match by prefix as getopt_long and git's parse-options do; short options cluster.
  ["git grep --open=vim foo", [["git grep --open=vim foo",false]], { writes: false, runsUnknownCode: false }],
  ["git grep --op foo", [["git grep --op foo",false]], { writes: false, runsUnknownCode: false }],
  ["git grep -O foo", [["git grep -O foo",false]], { writes: false, runsUnknownCode: false }],
  ["git grep -nOvim foo", [["git grep -nOvim foo",false]], { writes: false, runsUnknownCode: false }],
  ["git grep -e O foo", [["git grep -e O foo",true]], { writes: false, runsUnknownCode: false }],
  ["git grep -n foo", [["git grep -n foo",true]], { writes: false, runsUnknownCode: false }],
  ["git log --output=x", [["git log --output=x",false]], { writes: false, runsUnknownCode: false }],
  ["git log --outp=x", [["git log --outp=x",false]], { writes: false, runsUnknownCode: false }],
  ["git diff --ext-diff", [["git diff --ext-diff",false]], { writes: false, runsUnknownCode: false }],
  ["git diff --output-indicator-new=+ HEAD", [["git diff --output-indicator-new=+ HEAD",true]], { writes: false, runsUnknownCode: false }],
  ["sort -o out.txt in.txt", [["sort -o out.txt in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort --output=out.txt in.txt", [["sort --output=out.txt in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort --out=out.txt in.txt", [["sort --out=out.txt in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort -uo out.txt in.txt", [["sort -uo out.txt in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort --compress-prog=gzip big.txt", [["sort --compress-prog=gzip big.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort -k2 -t, in.txt", [["sort -k2 -t, in.txt",true]], { writes: false, runsUnknownCode: false }],
  // Other allow-listed programs with options that write, set the system, or run programs.
  ["hostname --fil=/tmp/name", [["hostname --fil=/tmp/name",false]], { writes: false, runsUnknownCode: false }],
  ["hostname --fq", [["hostname --fq",true]], { writes: false, runsUnknownCode: false }],
  ["hostname newname", [["hostname newname",false]], { writes: false, runsUnknownCode: false }],
  ["date --se=2020-01-01", [["date --se=2020-01-01",false]], { writes: false, runsUnknownCode: false }],
  ["date -s 2020-01-01", [["date -s 2020-01-01",false]], { writes: false, runsUnknownCode: false }],
  ["date -u +%s", [["date -u +%s",true]], { writes: false, runsUnknownCode: false }],
  ["date -Iseconds", [["date -Iseconds",true]], { writes: false, runsUnknownCode: false }],
  ["file --comp", [["file --comp",false]], { writes: false, runsUnknownCode: false }],
  ["file --compress a.gz", [["file --compress a.gz",true]], { writes: false, runsUnknownCode: false }],
  ["file -C -m magic", [["file -C -m magic",false]], { writes: false, runsUnknownCode: false }],
  ["less --log-f=copy.txt a.txt", [["less --log-f=copy.txt a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["less -o copy.txt a.txt", [["less -o copy.txt a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["less '+!touch pwned' a.txt", [["less '+!touch pwned' a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["less +G a.txt", [["less +G a.txt",true]], { writes: false, runsUnknownCode: false }],
  ["more '+!touch pwned' a.txt", [["more '+!touch pwned' a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["tree -o out.txt", [["tree -o out.txt",false]], { writes: false, runsUnknownCode: false }],
  ["tree -R -H . -o x", [["tree -R -H . -o x",false]], { writes: false, runsUnknownCode: false }],
  ["tree -L 2", [["tree -L 2",true]], { writes: false, runsUnknownCode: false }],
  ["rg --pre ./run.sh foo", [["rg --pre ./run.sh foo",false]], { writes: false, runsUnknownCode: false }],
  ["rg --hostname-bin=./x foo", [["rg --hostname-bin=./x foo",false]], { writes: false, runsUnknownCode: false }],
  ["rg -n foo", [["rg -n foo",true]], { writes: false, runsUnknownCode: false }],
  ["find . -name '*.ts' -delete", [["find . -name '*.ts' -delete",false]], { writes: false, runsUnknownCode: false }],
  ["find . -fprint out.txt", [["find . -fprint out.txt",false]], { writes: false, runsUnknownCode: false }],
  ["find . -type f", [["find . -type f",true]], { writes: false, runsUnknownCode: false }],
  ["uniq in.txt out.txt", [["uniq in.txt out.txt",false]], { writes: false, runsUnknownCode: false }],
  ["env -S 'rm x'", [["env -S 'rm x'",false]], { writes: false, runsUnknownCode: false }],
  // Programs that were never read-only stay so.
  ["xargs -a list.txt rm", [["xargs -a list.txt rm",false],["rm",false]], { writes: false, runsUnknownCode: false }],
  ["awk '{ system(\"rm x\") }' f", [["awk '{ system(\"rm x\") }' f",false]], { writes: false, runsUnknownCode: false }],
  ["sed -i s/a/b/ f", [["sed -i s/a/b/ f",false]], { writes: false, runsUnknownCode: false }],
  ["tee out.txt", [["tee out.txt",false]], { writes: false, runsUnknownCode: false }],
  ["man -P 'rm x' ls", [["man -P 'rm x' ls",false]], { writes: false, runsUnknownCode: false }],
  ["diff a.txt b.txt", [["diff a.txt b.txt",true]], { writes: false, runsUnknownCode: false }],
  // The hidden command is listed when the script spells out the value that is evaluated.
  ["jq . a.json", [["jq . a.json",true]], { writes: false, runsUnknownCode: false }],
  ["x='a[$(touch pwned)]'; [[ $x -eq 1 ]]", [["x='a[$(touch pwned)]'",true],["[[ $x -eq 1 ]]",false],["arbitrary code via evaluation of: $x -eq 1",false],["touch pwned",false]], { writes: false, runsUnknownCode: true }],
  ["x='a[$(touch pwned)]'; echo ${y:x}", [["x='a[$(touch pwned)]'",true],["echo ${y:x}",false],["arbitrary code via evaluation of: ${y:x}",false],["touch pwned",false]], { writes: false, runsUnknownCode: true }],
  ["read 'a[$(touch pwned)]' <<< 1", [["read 'a[$(touch pwned)]' <<< 1",false],["arbitrary code via evaluation of: read 'a[$(touch pwned)]' <<< 1",false],["touch pwned",false]], { writes: false, runsUnknownCode: true }],
  ["echo ${!x}; x='a[$(touch pwned)]'", [["echo ${!x}",false],["arbitrary code via evaluation of: ${!x}",false],["touch pwned",false],["x='a[$(touch pwned)]'",true]], { writes: false, runsUnknownCode: true }],
  // More spellings of the same: abbreviations, clusters, here-document variants, arithmetic in functions and scripts.
  ["sort --outp=out.txt in.txt", [["sort --outp=out.txt in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort -ro out.txt in.txt", [["sort -ro out.txt in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["sort --co=gzip in.txt", [["sort --co=gzip in.txt",false]], { writes: false, runsUnknownCode: false }],
  ["git grep --open-files=vim foo", [["git grep --open-files=vim foo",false]], { writes: false, runsUnknownCode: false }],
  ["git show --outpu=x HEAD", [["git show --outpu=x HEAD",false]], { writes: false, runsUnknownCode: false }],
  ["git log --ext -p", [["git log --ext -p",false]], { writes: false, runsUnknownCode: false }],
  ["hostname --bo", [["hostname --bo",false]], { writes: false, runsUnknownCode: false }],
  ["hostname --fi=x", [["hostname --fi=x",false]], { writes: false, runsUnknownCode: false }],
  ["file --com", [["file --com",false]], { writes: false, runsUnknownCode: false }],
  ["less --log=copy.txt a.txt", [["less --log=copy.txt a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["less --LOG=copy.txt a.txt", [["less --LOG=copy.txt a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["less --save-marks a.txt", [["less --save-marks a.txt",false]], { writes: false, runsUnknownCode: false }],
  ["tree -aR -H http://x", [["tree -aR -H http://x",false]], { writes: false, runsUnknownCode: false }],
  ["rg --hostname=./x foo", [["rg --hostname=./x foo",false]], { writes: false, runsUnknownCode: false }],
  ["cat <<-EOF > f\n\thi\n\tEOF", [["cat <<-EOF > f\n\thi\n\tEOF",false]], { writes: true, runsUnknownCode: false }],
  ["cat <<EOF >| f\nhi\nEOF", [["cat <<EOF >| f\nhi\nEOF",false]], { writes: true, runsUnknownCode: false }],
  ["echo $(( $x ))", [["echo $(( $x ))",false],["arbitrary code via evaluation of: $(( $x ))",false]], { writes: false, runsUnknownCode: true }],
  ["echo $(( ${x} + 1 ))", [["echo $(( ${x} + 1 ))",false],["arbitrary code via evaluation of: $(( ${x} + 1 ))",false]], { writes: false, runsUnknownCode: true }],
  ["(( a[$i]++ ))", [["(( a[$i]++ ))",false],["arbitrary code via evaluation of: (( a[$i]++ ))",false],["arbitrary code via evaluation of: a[$i]",false]], { writes: false, runsUnknownCode: true }],
  ["echo ${a[i]}", [["echo ${a[i]}",false],["arbitrary code via evaluation of: a[i]",false]], { writes: false, runsUnknownCode: true }],
  ["[[ a[$i] -gt 0 ]]", [["[[ a[$i] -gt 0 ]]",false],["arbitrary code via evaluation of: a[$i] -gt 0",false]], { writes: false, runsUnknownCode: true }],
  ["echo ${x:n}", [["echo ${x:n}",false],["arbitrary code via evaluation of: ${x:n}",false]], { writes: false, runsUnknownCode: true }],
  ["x=$1; echo $((x * 2))", [["x=$1",true],["echo $((x * 2))",false],["arbitrary code via evaluation of: $((x * 2))",false]], { writes: false, runsUnknownCode: true }],
  ["f() { echo $((n)); }; f", [["echo $((n))",false],["arbitrary code via evaluation of: $((n))",false],["f",false]], { writes: false, runsUnknownCode: true }],
  ["bash -c 'echo $((x))'", [["bash -c 'echo $((x))'",false],["echo $((x))",false],["arbitrary code via evaluation of: $((x))",false]], { writes: false, runsUnknownCode: true }],
  ["echo $(printf -v 'a[$(touch p)]' x)", [["echo $(printf -v 'a[$(touch p)]' x)",false],["printf -v 'a[$(touch p)]' x",false],["arbitrary code via evaluation of: printf -v 'a[$(touch p)]' x",false],["touch p",false]], { writes: false, runsUnknownCode: true }],
  // Arithmetic in here-documents (which the grammar reads as `$( (…) )`), strings and case patterns.
  ["cat <<EOF\n$((x))\nEOF", [["cat <<EOF\n$((x))\nEOF",false],["arbitrary code via evaluation of: $((x))",false],["x",false]], { writes: false, runsUnknownCode: true }],
  ["echo \"a $((x))\"", [["echo \"a $((x))\"",false],["arbitrary code via evaluation of: $((x))",false]], { writes: false, runsUnknownCode: true }],
  ["case 1 in $((x))) :;; esac", [["arbitrary code via evaluation of: $((x))",false],[":",true]], { writes: false, runsUnknownCode: true }],
  // `$?`, `$#`, `$$`, `$!` and lengths are numbers whatever the shell holds.
  ["[[ $# -gt 0 ]]", [["[[ $# -gt 0 ]]",true]], { writes: false, runsUnknownCode: false }],
  ["echo $(( $? + 1 ))", [["echo $(( $? + 1 ))",true]], { writes: false, runsUnknownCode: false }],
  ["[[ ${#x} -gt 0 ]]", [["[[ ${#x} -gt 0 ]]",true]], { writes: false, runsUnknownCode: false }],
  ["[[ $x -eq $# ]]", [["[[ $x -eq $# ]]",false],["arbitrary code via evaluation of: $x -eq $#",false]], { writes: false, runsUnknownCode: true }],
];

describe("shell command labels", () => {
  it.each(table)("%j", async (command, expected, flags) => {
    const analysis = analyzeCommandLine(command, await syntax());
    expect(analysis.commands.map((entry) => [entry.identifier, entry.readOnly])).toEqual(expected);
    expect({ writes: analysis.writesFile, runsUnknownCode: analysis.hazards.length > 0 }).toEqual(flags);
  });
});

/** Whether a command line may change the shell it runs in (a named shell then asks again for what was approved before). */
const shellStateTable: Array<[string, boolean]> = [
  ["ls -la", false],
  ["rm -rf build && npm install", false],
  ["echo hi > out.txt", false],
  ["PATH=/tmp/evil ls", false],
  ["timeout 5 rm x", false],
  ["git commit -m wip", false],
  ["f() { echo hi; }; f", true],
  ["ls() { touch x; }", true],
  ["cd src", true],
  ["export PATH=/tmp/evil:$PATH", true],
  ["PATH=/tmp/evil", true],
  ["printf -v PATH %s /tmp/evil", true],
  ["trap 'touch x' DEBUG", true],
  ["shopt -s extdebug", true],
  ["set -o functrace", true],
  ["alias ls='rm -rf'", true],
  ["enable -n echo", true],
  ["source venv/bin/activate", true],
  ['eval "$setup"', true],
  ["$CMD", true],
  ["echo $((PATH=1))", true],
];

describe("shell state changes", () => {
  it.each(shellStateTable)("%j changes the shell: %s", async (command, changes) => {
    expect(analyzeCommandLine(command, await syntax()).changesShellState).toBe(changes);
  });
});
