// Bash syntax beyond the toolchain inputs: each line lists exactly what executes.
import { describe, expect, test } from "bun:test";
import { parseCommandLine } from "../../src/shell/index.ts";
import { commands, expectError, summary } from "./helpers.ts";

describe("syntax", () => {
  const cases: [string, string[]][] = [
    ["", []],
    ["   ", []],
    ["# only a comment", []],
    ["echo a |& tee x", ["echo a", "tee x"]],
    ["! rm x", ["rm x"]],
    ["cmd1 && { cmd2; cmd3; } || cmd4", ["cmd1", "cmd2", "cmd3", "cmd4"]],
    ["{ rm a;}", ["rm a"]],
    ["for ((i=0;i<3;i++)); do rm $i; done", ["rm $i"]],
    ["for x in $(ls); do rm $x; done", ["$( ): ls", "rm $x"]],
    ["for x\ndo rm $x\ndone", ["rm $x"]],
    ["select x in a b; do rm $x; done", ["rm $x"]],
    ["until false; do rm x; done", ["false", "rm x"]],
    ["if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]],
    ["case $(rm a) in x|y) rm b;; (z) rm c;& *) ;; esac", ["$( ): rm a", "rm b", "rm c"]],
    ["case x in\n  a)\n    rm a\n    ;;\nesac", ["rm a"]],
    ["function g { rm x; }; g", ["g(): rm x"]],
    ["function h() ( rm y ); h", ["h(): rm y"]],
    ["g() { rm x; }", ["g(): rm x"]],
    ['f() { rm -rf "$1"; }; f a; f b', ["f(): rm -rf a", "f(): rm -rf b"]],
    ["[[ -f $(rm q) ]]", ["$( ): rm q"]],
    ["[[ $x =~ ^(a|b)$ ]] && echo y", ["echo y"]],
    ["(( x = $(rm w) ))", ["$( ): rm w"]],
    ["declare -a arr=(1 $(rm e) 3)", ["$( ): rm e", "declare -a arr=(1 $(rm e) 3)"]],
    ["a[$(rm x)]=1", ["$( ): rm x"]],
    ["a[i + 1]=x cmd", ["cmd"]],
    ["echo ${#arr[@]} ${arr[0]} ${!x} ${x//a/b}", ["echo ${#arr[@]} ${arr[0]} ${!x} ${x//a/b}"]],
    ['echo "${x:-"$(rm a)"}"', ["$( ): rm a", 'echo ${x:-"$(rm a)"}']],
    ['echo $"hello"', ["echo hello"]],
    ["cat < <(ls)", ["<( ): ls", "cat"]],
    ["tee >(rm x) < f", [">( ): rm x", "tee >(rm x)"]],
    ["echo {a,b}$(rm b)", ["$( ): rm b", "echo {a,b}$(rm b)"]],
    ["echo a\\\nb", ["echo ab"]],
    ["echo 'a\\b' \"a\\b\" a\\\\b", ["echo a\\b a\\b a\\b"]],
    ["echo $( (rm a) )", ["$( ): rm a", "echo $( (rm a) )"]],
    ["echo $((1+2)) $((a) )", ["$( ): a", "echo $((1+2)) $((a) )"]],
    ["((((x))))", []],
    ["echo `echo \\`rm x\\``", ["$( ) > $( ): rm x", "$( ): echo `rm x`", "echo `echo \\`rm x\\``"]],
    ["cat <<A <<B\na\nA\nb\nB", ["cat"]],
    ["cat <<'A' | sh\nrm x\nA\necho after", ["cat", "pipe->sh: rm x", "echo after"]],
    ["x=$(cat <<EOF\n$(rm a)\nEOF\n)", ["$( ) > $( ): rm a", "$( ): cat"]],
    ["ls 2>/dev/null >&2", ["ls"]],
    ["coproc ls", ["coproc: ls"]],
    ["exec > log 2>&1", ["exec"]],
    ["X=rm; $X -rf /", ["$X -rf /"]],
    ["f() { eval \"rm -rf $1\"; eval 'rm -rf $1'; }; f /srv", ["f() > eval: rm -rf /srv", "f() > eval: rm -rf /srv"]],
    ["time", []],
    ["time; rm x", ["rm x"]],
    ["time -p rm x", ["time: rm x"]],
  ];
  for (const [line, expected] of cases) {
    test(JSON.stringify(line), () => {
      expect(summary(line)).toEqual(expected);
    });
  }

  test("redirect operators and fds", () => {
    const [c] = commands("echo hi 1>&2 3<&0 4<>f 5>|g >>h &>i &>>j <<<k 2>&-");
    expect(c?.redirects).toEqual([
      { op: ">&", fd: 1, target: "2" },
      { op: "<&", fd: 3, target: "0" },
      { op: "<>", fd: 4, target: "f" },
      { op: ">|", fd: 5, target: "g" },
      { op: ">>", target: "h" },
      { op: "&>", target: "i" },
      { op: "&>>", target: "j" },
      { op: "<<<", target: "k" },
      { op: ">&", fd: 2, target: "-" },
    ]);
    expect(commands("echo x >& out.txt")[0]?.redirects).toEqual([{ op: "&>", target: "out.txt" }]);
  });

  test("assignments", () => {
    expect(parseCommandLine("a=1 b=$(whoami) c+=x")).toMatchObject({ ok: true, assignments: { a: "1", b: "$(whoami)", c: "x" } });
    expect(commands("FOO=$(rm x) make")[1]?.env).toEqual({ FOO: "$(rm x)" });
  });

  test("stray and unbalanced syntax", () => {
    for (const line of [
      "then",
      "elif x",
      "else",
      "do",
      "}",
      "]]",
      "a; ;",
      "a && || b",
      "(a) b",
      "{ a; } b",
      "a (b)",
      "f() echo x",
      "case x in a) b esac",
      "for x in a b; rm $x; done",
      "if a; b; fi",
      "echo a >&",
    ]) {
      expectError(line);
    }
  });
});
