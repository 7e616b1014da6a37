/** The default rule set proves itself: every rule's examples hold, every command example gets its verdict, every rule has a reason and examples. */
import { describe, expect, test } from "bun:test";
import { checkRule, proveRuleExamples } from "../../src/answerers/rules.ts";
import { judgeCommand } from "../../src/judge/index.ts";
import { loadPolicy } from "../../src/policy/index.ts";
import { DEFAULT, policyWith } from "./helpers.ts";

describe("the default rules", () => {
  test("compile", () => {
    expect(DEFAULT.rules.flatMap((rule) => checkRule(rule).map((problem) => `${rule.id}: ${problem.message}`))).toEqual([]);
  });

  test("every rule's own examples hold", () => {
    // With the engine itself (examples.ts), under the whole default policy.
    expect(DEFAULT.rules.flatMap((rule) => proveRuleExamples(rule, DEFAULT).map((problem) => problem.message))).toEqual([]);
  });

  test("every rule has a reason and examples, except the few that depend on the disk", () => {
    const withoutExamples = DEFAULT.rules.filter((rule) => (rule.examples?.match ?? []).length === 0).map((rule) => rule.id);
    // These match on what is on disk (an existing file, a tracked file), which examples cannot show.
    expect(withoutExamples.sort()).toEqual(["everyday-tools", "redirect-truncates-tracked-file", "rm-tracked-files"].sort());
    for (const rule of DEFAULT.rules) expect(rule.reason.length).toBeGreaterThan(10);
  });

  test("rule ids are unique", () => {
    const ids = DEFAULT.rules.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("every rule's act is one of the acts", () => {
    for (const rule of DEFAULT.rules) expect(Object.keys(DEFAULT.acts)).toContain(rule.act);
  });
});

describe("rule examples are checked", () => {
  test("an example a rule does not match is reported", () => {
    const policy = policyWith([
      {
        id: "rm-any",
        match: { program: "rm" },
        act: "delete",
        undo: 2,
        reason: "r",
        examples: { match: ["rmdir x"], not_match: ["rm x"] },
      },
    ]);
    const problems = proveRuleExamples(policy.rules[0]!, policy);
    expect(problems.map((p) => p.example)).toEqual(["rmdir x", "rm x"]);
    expect(problems[1]?.message).toContain("must not");
  });

  test("an example that cannot be parsed is reported", () => {
    const policy = policyWith([
      { id: "x", match: { program: "ls" }, act: "read", undo: 0, reason: "r", examples: { match: ["ls 'open"], not_match: [] } },
    ]);
    expect(proveRuleExamples(policy.rules[0]!, policy)[0]?.message).toContain("cannot be parsed");
  });
});

test("the policy's command examples get their verdicts from the rule engine", async () => {
  const loaded = loadPolicy({ cwd: "/", only: [] });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const wrong: string[] = [];
  for (const example of loaded.loaded.policy.examples.commands) {
    const judged = await judgeCommand(
      { command: example.command, cwd: example.cwd ?? "/tmp", rulesOnly: true, log: false, env: {} },
      loaded.loaded,
    );
    if (judged.verdict !== example.verdict) wrong.push(`${example.command}: ${judged.verdict}, not ${example.verdict} (${judged.line})`);
  }
  expect(wrong).toEqual([]);
  expect(loaded.loaded.policy.examples.commands.length).toBeGreaterThan(40);
});
