// Hostile input never throws, never hangs, and never comes back as a clean parse of something else:
// each case returns, and the ones bash would refuse (or that exceed the bounds) are error values.
import { describe, expect, test } from "bun:test";
import { parseCommandLine } from "../../src/shell/index.ts";

const MB = 1024 * 1024;

function mustFail(line: string, message?: RegExp): void {
  const r = parseCommandLine(line);
  expect(r.ok).toBe(false);
  if (!r.ok && message !== undefined) expect(r.error).toMatch(message);
}

describe("hostile input", () => {
  test("a 10 MB word parses", () => {
    const r = parseCommandLine(`echo ${"a".repeat(10 * MB)}`);
    expect(r.ok && r.commands[0]?.argv[1]?.length).toBe(10 * MB);
  });
  test("a 10 MB quoted string parses", () => {
    expect(parseCommandLine(`echo '${"a".repeat(10 * MB)}'`).ok).toBe(true);
  });
  test("10 MB unterminated quotes are errors", () => {
    mustFail(`echo '${"a".repeat(10 * MB)}`, /unterminated single quote/);
    mustFail(`echo "${"a".repeat(10 * MB)}`, /unterminated double quote/);
    mustFail(`echo $'${"a".repeat(10 * MB)}`, /unterminated \$'/);
    mustFail(`echo \`${"a".repeat(10 * MB)}`, /unterminated backquote/);
  });
  test("10 MB of separators, pipes or words hits the bounds", () => {
    mustFail("a;".repeat(5 * MB), /more than 20000 commands/);
    mustFail(`${"a|".repeat(5 * MB)}a`, /more than 20000 commands/);
    mustFail(`echo ${"a ".repeat(5 * MB)}`, /more than 200000 words/);
    mustFail("\n".repeat(10 * MB) + ";");
  });
  test("thousands of nested substitutions", () => {
    mustFail(`${"$(".repeat(5000)}x${")".repeat(5000)}`, /nesting deeper than/);
    mustFail(`echo ${'"$(echo '.repeat(5000)}`, /nesting deeper than/);
    mustFail("$(".repeat(MB), /nesting deeper than/);
    mustFail(`${"${x:-".repeat(5000)}`, /nesting deeper than/);
    mustFail(`echo ${"$((".repeat(5000)}1${"))".repeat(5000)}`, /nesting deeper than/);
    mustFail(`${"( ".repeat(5000)}x${" )".repeat(5000)}`, /nesting deeper than/);
    // (((...x...))) is one valid arithmetic command: parentheses inside it are counted, not nested.
    expect(parseCommandLine(`${"(".repeat(5000)}x${")".repeat(5000)}`).ok).toBe(true);
    mustFail(`${"{ ".repeat(5000)}x`, /nesting deeper than/);
    mustFail(`${"if ".repeat(5000)}x`, /nesting deeper than/);
    mustFail(`${"f() { ".repeat(5000)}x`);
  });
  test("nesting within the bound parses", () => {
    const r = parseCommandLine(`echo ${"$(echo ".repeat(40)}$(rm x)${")".repeat(40)}`);
    expect(r.ok && r.commands.map((c) => c.name)).toEqual(["rm", ...Array(40).fill("echo"), "echo"]);
    // `$($(rm x))` runs rm, then runs its output as a command: an unknown (dynamic) program.
    const d = parseCommandLine("$($(rm x))");
    expect(d.ok && d.commands.map((c) => [c.argv[0], c.dynamic])).toEqual([
      ["rm", false],
      ["$(rm x)", true],
      ["$($(rm x))", true],
    ]);
  });
  test("nested backquotes and arithmetic fallbacks stay linear", () => {
    expect(parseCommandLine(`echo ${"`".repeat(10000)}`).ok).toBeDefined();
    mustFail("$((a) ".repeat(200_000));
    mustFail(`$(( ${"(".repeat(MB)}`);
  });
  test("binary bytes", () => {
    let bin = "";
    for (let i = 0; i < MB; i++) bin += String.fromCharCode((i * 7919) % 256);
    expect(parseCommandLine(bin).ok).toBeDefined();
    const r = parseCommandLine("echo a\u0000b\u00ff\ufffd");
    expect(r.ok && r.commands[0]?.argv).toEqual(["echo", "a\u0000b\u00ff\ufffd"]);
    expect(parseCommandLine("\ud800 \udfff").ok).toBeDefined();
  });
  test("wrapper and code chains are bounded", () => {
    mustFail(`${"sudo ".repeat(100_000)}x`, /nested wrappers/);
    mustFail(`${"eval ".repeat(100)}x`, /code nested deeper than 8 levels/);
    const quoteLevels = (n: number): string => (n === 0 ? "rm x" : `bash -c ${JSON.stringify(quoteLevels(n - 1))}`);
    mustFail(quoteLevels(12), /code nested deeper/);
  });
  test("function call trees are bounded", () => {
    const defs = Array.from({ length: 40 }, (_, i) => `f${i + 1}() { f${i}; f${i}; }`).join("; ");
    const r = parseCommandLine(`f0() { rm x; }; ${defs}; f40`);
    expect(r.ok && r.commands.length).toBeLessThan(1000);
    const rec = parseCommandLine("f() { f; rm x; }; f");
    expect(rec.ok && rec.commands.map((c) => c.name)).toEqual(["rm"]);
  });
  test("many here-documents", () => {
    expect(parseCommandLine(`${"cat <<E ".repeat(10000)}\n${"E\n".repeat(10000)}`).ok).toBe(true);
    mustFail(`${"cat <<E ".repeat(10000)}\n${"E\n".repeat(9999)}`, /not terminated/);
  });
  test("unterminated everything", () => {
    for (const line of [
      "'",
      '"',
      "`",
      "$(",
      "${",
      "$((",
      "<(",
      "(",
      "{ x",
      "if x",
      "while x",
      "for x",
      "case x",
      "[[ x",
      "x |",
      "x &&",
      "x ||",
      "cat <<E",
      "a=(",
      "$'",
    ]) {
      const r = parseCommandLine(line);
      expect([line, r.ok]).toEqual([line, false]);
    }
  });
  test('"$@", "$1" and parallel sources expanded many times stay bounded', () => {
    const n = 20_000;
    const t0 = performance.now();
    mustFail(`f() { echo ${'"$@" '.repeat(n)}; }; f ${"a ".repeat(n)}`, /more than 200000 words/);
    mustFail(`f() { echo ${'"x$1" '.repeat(n)}; }; f ${"a".repeat(100_000)}`, /grow past the line's bound/);
    mustFail(`f() { echo ${'"x$*" '.repeat(n)}; }; f ${"abcdefgh ".repeat(n)}`, /grow past the line's bound/);
    // Long chains of linked sources are linear; past 16 jobs the template is listed alone.
    const chain = parseCommandLine(`parallel echo ::: a ${":::+ b ".repeat(n)}`);
    expect(chain.ok && chain.commands.length).toBe(1);
    const wide = parseCommandLine(`parallel echo ::: ${"a ".repeat(n)}`);
    expect(wide.ok && wide.commands.map((c) => c.argv.join(" "))).toEqual(["echo"]);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
