/**
 * The policy reader (parse.ts): one meaning per file. The fast path (Bun's
 * reader, keys counted: plain-yaml.ts) must give exactly what the exact path
 * (the `yaml` package) gives, and a key written twice must never get through.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY_TEXT } from "../../src/policy/load.ts";
import { parseExactly, parseStrict } from "../../src/policy/parse.ts";
import { plainKeyCount } from "../../src/policy/plain-yaml.ts";

/** Every rule of the default as a file of its own: real policy text, in all its forms. */
function ruleFiles(): string[] {
  const body = DEFAULT_POLICY_TEXT.slice(DEFAULT_POLICY_TEXT.indexOf("\nrules:\n") + 8);
  const end = body.search(/\n[a-z_]+:/);
  return (end === -1 ? body : body.slice(0, end)).split(/\n(?=  - id: )/).map((chunk) => `rules:\n${chunk}\n`);
}

const SNIPPETS = [
  "judge:\n  thresholds:\n    ask_at_undo: 1.2\n",
  "rules:\n  - id: a\n    match: { program: [rm, 'r m', \"x\"], args_any: ['/^-rf$/'] }\n    act: delete\n    undo: 2\n    reason: It's removed.\n",
  "task:\n  run_within: 5m\n  call_within: 1500ms\n",
  "a: yes\nb: on\nc: 0x1F\nd: 1e3\ne: 2024-01-01\nf: .5\ng: ~\n",
  "a: &x 1\nb: *x\n",
  "a: !!str 1\n",
  "reason: >-\n  folded\n  text\nnext: 1\n",
  "reason: |\n  kept: not a key\n  - not a list\nnext: 1\n",
  "list:\n  - - nested\n    - list\n  -\n  - k: v\n",
  "flow: { a: 1, b: [x, y], c: { d: e } }\n",
  "flow: [a: 1]\n",
  "url: http://example.com/x\nport: 8080\n",
  "multi: this is\n  continued on a line\n",
  "quoted: 'it''s'\nd: \"a \\\" b\"\n",
  "empty:\n",
  "# only a comment\n",
  "",
];

describe("the fast path and the exact reader agree", () => {
  const files = [...SNIPPETS, ...ruleFiles()];
  test("on the default's rules, one file each, and on tricky snippets", () => {
    expect(files.length).toBeGreaterThan(200);
    let plain = 0;
    for (const text of files) {
      const exact = parseExactly(text, "f");
      const fast = parseStrict(text, "f");
      expect(fast.ok).toBe(exact.ok);
      if (fast.ok && exact.ok) expect(fast.data).toEqual(exact.data);
      if (plainKeyCount(text) !== undefined) plain++;
    }
    // Most real rules are plain: the fast path is the common one.
    expect(plain).toBeGreaterThan(files.length / 2);
  });

  test("a key written twice is caught, wherever it is", () => {
    const duplicated = [
      "judge:\n  thresholds:\n    ask_at_undo: 1.0\n    ask_at_undo: 2.9\n",
      "a: 1\na: 1\n",
      "rules:\n  - id: x\n    id: y\n",
      "flow: { a: 1, a: 2 }\n",
      "reason: >-\n  text\nreason: again\n",
    ];
    // And in every real rule: its first key line written again.
    for (const text of ruleFiles()) {
      const lines = text.split("\n");
      const at = lines.findIndex((line) => /^    (act|undo|reason):/.test(line));
      if (at === -1) continue;
      lines.splice(at + 1, 0, lines[at]!);
      duplicated.push(lines.join("\n"));
    }
    expect(duplicated.length).toBeGreaterThan(200);
    for (const text of duplicated) {
      const parsed = parseStrict(text, "f");
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problems[0]!.message).toBe("a key is written twice in one map");
    }
  });
});
