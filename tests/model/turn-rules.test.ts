import { describe, expect, test } from "bun:test";
import { answerTurnByRules, checkTurnRules, ownWords } from "../../src/answerers/turn-rules.ts";
import { judgeTurnEnd } from "../../src/judge/judge.ts";
import { defaultPolicy, policyWith } from "./helpers.ts";

const loaded = defaultPolicy();
const { policy } = loaded;
const judge = (final: string, commands?: { command: string; failed: boolean }[]) =>
  judgeTurnEnd({ requests: ["Do the work."], final, transcript: commands ? { commands } : undefined, rulesOnly: true, log: false }, loaded);

describe("turn rules", () => {
  test("the default policy's turn rules are well formed", () => {
    expect(checkTurnRules(policy)).toEqual([]);
  });

  test("the default policy's turn examples hold on the rule engine", async () => {
    expect(policy.examples.turns.length).toBeGreaterThan(0);
    for (const example of policy.examples.turns) {
      const judged = await judgeTurnEnd({ requests: example.requests, final: example.final, rulesOnly: true, log: false }, loaded);
      expect({ final: example.final, verdict: judged.verdict }).toEqual({ final: example.final, verdict: example.verdict });
    }
  });

  test("announcing next steps with no obstacle is refused", async () => {
    for (const final of [
      "I've added the parser. Next, I'll wire it into the CLI.",
      "The schema is done. Now I will update the loader to use it.",
      "Refactored the module. I'll now run the full test suite and fix what breaks.",
      "Part one is in place. Let me continue with the migration.",
    ]) {
      const judged = await judge(final);
      expect({ final, verdict: judged.verdict, rule: judged.rule?.id }).toEqual({ final, verdict: "deny", rule: "announces-next-steps" });
    }
  });

  test("a finished turn, a question, a named obstacle or running work may end", async () => {
    for (const final of [
      "Done: the parser handles nested quotes now, with tests.",
      "I'll leave the config as is. Everything asked for is in place.\n\nSummary of changes:\n- a\n- b",
      "Should I also update the changelog?",
      "I could not run the migration: psql fails with 'role \"app\" does not exist'. Next I'll need you to create the role.",
      "The build is running in the background; I'll report back when it finishes.",
      "I'll handle the docs in a follow-up PR.",
      "I've updated the README. Let me know if you'd like any other changes.",
      "All set! I'll be here if you need anything else.",
      "The fix is in place. From now on, I'll make sure to run the linter before committing.",
      "Done. Then I'll leave the deploy to you.",
      "Renamed the helper and updated its callers. I'll now summarize the changes:\n- parser.ts\n- cli.ts",
      "",
    ]) {
      const judged = await judge(final);
      expect({ final, verdict: judged.verdict }).toEqual({ final, verdict: "pass" });
    }
  });

  test("where no rule is confident the answer is spread evenly", () => {
    const answered = answerTurnByRules({ final: "Here is the summary of what changed." }, policy);
    expect(answered.rule).toBeUndefined();
    const values = Object.values(answered.answers.ending.probabilities);
    expect(new Set(values).size).toBe(1);
    expect(answered.answers.ending.source).toBe("rules");
  });

  test("claiming the tests pass when the last test command failed is refused, outright", async () => {
    const judged = await judge("Fixed the off-by-one; all tests pass now.", [
      { command: "npm test", failed: false },
      { command: "git diff", failed: false },
      { command: "npm test -- --watch=false", failed: true },
    ]);
    expect(judged.verdict).toBe("deny");
    expect(judged.rule).toMatchObject({ id: "claims-tests-pass-after-a-failing-run", outright: true });
    expect(judged.line).toContain("the last test command of the turn failed");
  });

  test("the same claim after a passing last run, or with no transcript, is not refused", async () => {
    expect(
      (
        await judge("All tests pass now.", [
          { command: "cargo test", failed: true },
          { command: "cargo test", failed: false },
        ])
      ).verdict,
    ).toBe("pass");
    expect((await judge("All tests pass now.")).verdict).toBe("pass");
    expect((await judge("All tests pass now.", [{ command: "ls", failed: true }])).verdict).toBe("pass");
  });

  test("rules with a bad pattern or no condition never apply, and are reported", () => {
    const rule = { ending: "stopped-early", confidence: 0.99, reason: "r" };
    const bad = {
      ...policy,
      turn_rules: [
        { ...rule, id: "broken", final_matches: ["("] },
        { ...rule, id: "empty" },
      ],
    };
    const problems = checkTurnRules(bad).join("\n");
    expect(problems).toContain("broken: final_matches");
    expect(problems).toContain("empty: has no condition");
    expect(answerTurnByRules({ final: "((( anything" }, bad).rule).toBeUndefined();
  });

  test("patterns for a rule see the message's own words: code, quoted lines, inline code and quotes are placeholders", () => {
    const text = "Here is the draft:\n\n> Next, I'll wire it in.\n\n```ts\n// TODO: later\n```\nSee `next()` and \"I'll continue\".";
    const own = ownWords(text);
    expect(own).not.toContain("wire it in");
    expect(own).not.toContain("TODO");
    expect(own).not.toContain("next()");
    expect(own).not.toContain("continue");
    expect(own).toContain("[quote]");
    expect(own).toContain("[code]");
    // An unclosed fence runs to the end of the message.
    expect(ownWords("Done:\n```\nnext I'll run it")).toBe("Done:\n[code]");
  });

  test("evidence against a rule counts in quoted text too: a quoted error is still an obstacle", async () => {
    const final = 'The deploy step says "Error: permission denied". Next I\'ll update the docs.';
    expect((await judge(final)).verdict).toBe("pass");
  });

  test("request conditions: request_matches needs a known request; request_not_matches holds without one", () => {
    const base = { ending: "stopped-early", confidence: 0.99, reason: "r", final_matches: ["later"] };
    const custom = {
      ...policy,
      turn_rules: [
        { ...base, id: "needs-all", request_matches: ["\\ball\\b"] },
        { ...base, id: "not-a-plan", request_not_matches: ["\\bplan\\b"] },
      ],
    };
    expect(answerTurnByRules({ final: "later", requests: ["Do all of it."] }, custom).rule?.id).toBe("needs-all");
    expect(answerTurnByRules({ final: "later", requests: ["Write a plan."] }, custom).rule).toBeUndefined();
    expect(answerTurnByRules({ final: "later", requests: ["Fix it."] }, custom).rule?.id).toBe("not-a-plan");
    expect(answerTurnByRules({ final: "later" }, custom).rule?.id).toBe("not-a-plan");
    // Only the latest request counts.
    expect(answerTurnByRules({ final: "later", requests: ["Do all of it.", "Write a plan."] }, custom).rule).toBeUndefined();
  });

  test("a pattern list may hold shared lists (YAML aliases), and a bad pattern in one is reported with its place", () => {
    const { loaded } = policyWith(
      [
        "turn_rules:",
        "  - id: shared-lists",
        "    final_matches: ['\\bsoon\\b']",
        "    final_not_matches:",
        "      - &mine ['\\bnever\\b', '\\bno\\b']",
        "      - 'nope'",
        "    ending: stopped-early",
        "    confidence: 0.95",
        "    reason: says soon",
        "  - id: reuses",
        "    final_matches: ['\\blater\\b']",
        "    final_not_matches: [*mine]",
        "    ending: stopped-early",
        "    confidence: 0.95",
        "    reason: says later",
        "",
      ].join("\n"),
    );
    const p = loaded.policy;
    expect(answerTurnByRules({ final: "I'll do it soon." }, p).rule?.id).toBe("shared-lists");
    expect(answerTurnByRules({ final: "Never soon, no." }, p).rule).toBeUndefined();
    expect(answerTurnByRules({ final: "Later, no." }, p).rule).toBeUndefined();
    expect(answerTurnByRules({ final: "I'll do it later." }, p).rule?.id).toBe("reuses");

    expect(() =>
      policyWith(
        "turn_rules:\n  - id: bad\n    final_matches: [['ok', '(']]\n    ending: stopped-early\n    confidence: 0.9\n    reason: r\n",
      ),
    ).toThrow(/turn_rules\.0\.final_matches\.0\.1: turn rule bad: not a valid regular expression/);
  });
});
