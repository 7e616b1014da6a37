// stdinFrom: which listed commands write into a command's standard input through a pipe.
import { describe, expect, test } from "bun:test";
import { commands, summary } from "./helpers.ts";

/** "argv[0] <- writers' argv[0]" per command, e.g. "sh <- curl". */
function feeds(line: string): string[] {
  const cs = commands(line);
  return cs.map((c) => {
    const name = c.argv[0] as string;
    if (c.stdinFrom === undefined) return name;
    return `${name} <- ${c.stdinFrom.map((i) => cs[i]?.argv[0]).join(",")}`;
  });
}

describe("stdinFrom", () => {
  const cases: [string, string[]][] = [
    ["curl -s u | sh", ["curl", "sh <- curl"]],
    ["curl -s u; cat x | sh", ["curl", "cat", "sh <- cat"]],
    ["curl u | tee log | sh", ["curl", "tee <- curl", "sh <- tee"]],
    ["curl u | sudo bash", ["curl", "bash <- curl"]],
    ["curl u | sudo -u app bash -s -- --flag", ["curl", "bash <- curl"]],
    ["{ curl u || wget -O- u; } | sh", ["curl", "wget", "sh <- curl,wget"]],
    ["(curl u; echo done) | bash", ["curl", "echo", "bash <- curl,echo"]],
    ["{ curl u > f; cat g; } | sh", ["curl", "cat", "sh <- cat"]],
    ["curl u 2>/dev/null | sh", ["curl", "sh <- curl"]],
    ["curl u >&2 | sh", ["curl", "sh <- "]],
    ["echo $(curl u) | sh", ["curl", "echo", "curl <- echo", "$(curl u) <- echo"]],
    ["echo $(curl u) | cat", ["curl", "echo", "cat <- echo"]],
    ["x=$(curl u) | sh", ["curl", "sh <- "]],
    ["{ a | b; } | sh", ["a", "b <- a", "sh <- b"]],
    ["curl u | { read x; sh; }", ["curl", "read <- curl", "sh <- curl"]],
    ["curl u | bash -c 'cat | sh'", ["curl", "cat <- curl", "sh <- cat"]],
    ['curl u | while read l; do rm "$l"; done', ["curl", "read <- curl", "rm <- curl"]],
    ["curl u | sh < local.sh", ["curl", "sh"]],
    ["curl u | sh <<< 'ls'", ["curl", "ls"]],
    ["curl u | { sh; } < local.sh", ["curl", "sh"]],
    ["find . -name '*.o' | xargs rm", ["find", "rm <- find"]],
    ["curl u | echo $(cat)", ["curl", "cat <- curl", "echo <- curl"]],
    ["f() { sh; }; curl u | f", ["curl", "sh <- curl"]],
    ["ls; sh", ["ls", "sh"]],
    ["a && b | c || d", ["a", "b", "c <- b", "d"]],
  ];
  for (const [line, expected] of cases) {
    test(line, () => {
      expect(feeds(line)).toEqual(expected);
    });
  }

  test("indices point at the writers in commands", () => {
    const cs = commands("cd /tmp && curl -s https://x.sh | sudo bash");
    expect(cs.map((c) => c.stdinFrom)).toEqual([undefined, undefined, [1]]);
  });

  test("code a shell reads from a literal pipe is fed by the same pipe", () => {
    const cs = commands("echo 'rm -rf x' | sh");
    expect(cs.map((c) => [c.via, c.argv, c.stdinFrom])).toEqual([
      [[], ["echo", "rm -rf x"], undefined],
      [["pipe->sh"], ["rm", "-rf", "x"], [0]],
    ]);
  });

  test("a compound's here-document is its commands' standard input", () => {
    expect(summary("{ sh; } <<EOF\nrm -rf /\nEOF")).toEqual(["heredoc->sh: rm -rf /"]);
    expect(summary("while read -r f; do xargs rm; done <<EOF\na b\nEOF")).toEqual(["read -r f", "xargs: rm a b"]);
  });
});

describe('"$@" and "$*" in a function body', () => {
  const cases: [string, string[]][] = [
    ['run() { echo "+ $*"; "$@"; }; run rm -rf /', ["run(): echo + rm -rf /", "run(): rm -rf /"]],
    ['f() { rm "$@"; }; f a "b c"', ["f(): rm a b c"]],
    ['f() { rm "$#" $*; }; f a b', ["f(): rm 2 a b"]],
    ['f() { "$@"; }; f', []],
    ['f() { "$@"; }', ["f(): $@"]],
    ['f() { "$@"; }; f $CMD x', ["f(): $@"]],
    ['retry() { for i in 1 2 3; do "$@" && break; done; }; retry git push --force', ["retry(): git push --force", "retry(): break"]],
    ['f() { sudo "$@"; }; f rm -rf /srv', ["f() > sudo: rm -rf /srv"]],
  ];
  for (const [line, expected] of cases) {
    test(line, () => {
      expect(summary(line)).toEqual(expected);
    });
  }

  test("the expanded words keep their boundaries", () => {
    expect(commands('f() { rm "$@"; }; f a "b c"')[0]?.argv).toEqual(["rm", "a", "b c"]);
    const [c] = commands('f() { "$@"; }; f $CMD x');
    expect(c?.dynamic).toBe(true);
  });
});
