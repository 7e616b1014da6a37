/** match.command_exact: a rule for exactly one whole command line, as `approvals approve --always` writes it. */
import { describe, expect, test } from "bun:test";
import { checkRule, proveRuleExamples } from "../../src/answerers/rules.ts";
import { alwaysSupported } from "../../src/approvals/always.ts";
import { stricterOnly } from "../../src/policy/trust.ts";
import { checkLayer } from "../../src/policy/validate.ts";
import type { Policy } from "../../src/policy/schema.ts";
import { DEFAULT, judge } from "./helpers.ts";

const allowExactly = (line: string, program?: string, id = "always-exact") => ({
  id,
  match: { ...(program === undefined ? {} : { program }), command_exact: line },
  act: "delete",
  undo: 2.2,
  load: 0,
  confidence: 1,
  decision: "allow" as const,
  reason: "Always allowed by Dana.",
});

/** The default policy with these rules tried first, as a user layer's rules are. */
const withFirst = (...rules: object[]): Policy => ({ ...DEFAULT, rules: [...rules, ...DEFAULT.rules] as Policy["rules"] });

describe("match.command_exact", () => {
  test("the schema has it, so 'always' is offered", () => {
    expect(checkLayer({ rules: [allowExactly("rm -rf data", "rm")] })).toEqual([]);
    expect(checkLayer({ rules: [{ ...allowExactly("x", "rm"), match: { program: "rm", command_exact: "" } }] }).length).toBeGreaterThan(0);
    expect(alwaysSupported()).toBe(true);
  });

  test("allows exactly the line, leading and trailing whitespace aside", () => {
    const policy = withFirst(allowExactly("rm -rf data", "rm"));
    expect(judge("rm -rf data", {}, DEFAULT).verdict).toBe("ask");
    for (const line of ["rm -rf data", "  rm -rf data\n", "\trm -rf data "]) {
      expect(judge(line, {}, policy)).toMatchObject({ verdict: "allow", rule: "always-exact" });
    }
  });

  test("variants of the line are other lines: sudo, xargs, more arguments, inner whitespace, other quoting", () => {
    const policy = withFirst(allowExactly("rm -rf data", "rm"));
    for (const line of [
      "sudo rm -rf data",
      "ls | xargs rm -rf data",
      "rm -rf data ~",
      "rm -rf data; rm -rf ~",
      "rm  -rf data",
      "rm -rf 'data'",
      "bash -c 'rm -rf data'",
      "rm -rf data &",
    ]) {
      const judged = judge(line, {}, policy);
      expect({ line, rule: judged.rule }).not.toEqual({ line, rule: "always-exact" });
      expect({ line, verdict: judged.verdict }).not.toEqual({ line, verdict: "allow" });
    }
  });

  test("answers for every command, wrapper and redirection of its line", () => {
    expect(judge("sudo rm -rf data", {}, withFirst(allowExactly("sudo rm -rf data", "rm")))).toMatchObject({
      verdict: "allow",
      rule: "always-exact",
    });
    expect(
      judge("cd build && rm -rf data > /etc/log", {}, withFirst(allowExactly("cd build && rm -rf data > /etc/log", "rm"))),
    ).toMatchObject({ verdict: "allow" });
    // A program no rule knows: the line is still decided.
    const judged = judge("./deploy.sh prod", {}, withFirst(allowExactly("./deploy.sh prod", "deploy.sh")));
    expect(judged).toMatchObject({ verdict: "allow", rule: "always-exact" });
    if (judged.answer.parsed) expect(judged.answer.unknown).toEqual([]);
  });

  test("its program must be a program of the line", () => {
    expect(judge("rm -rf data", {}, withFirst(allowExactly("rm -rf data", "git"))).verdict).toBe("ask");
    expect(judge("rm -rf data", {}, withFirst(allowExactly("rm -rf data"))).verdict).toBe("allow");
  });

  test("rules tried before it still answer for what they match: a stronger deny stands", () => {
    const deny = {
      id: "no-rm",
      match: { program: "rm" },
      act: "delete",
      undo: 3,
      load: 0,
      confidence: 1,
      decision: "deny" as const,
      reason: "No rm here.",
    };
    expect(judge("sudo rm -rf data", {}, withFirst(deny, allowExactly("sudo rm -rf data", "rm")))).toMatchObject({
      verdict: "deny",
      rule: "no-rm",
    });
    // Tried after the default rules, the default's answer stands where it has one.
    const last: Policy = { ...DEFAULT, rules: [...DEFAULT.rules, allowExactly("rm -rf data", "rm")] as Policy["rules"] };
    expect(judge("rm -rf data", {}, last).verdict).toBe("ask");
  });

  test("its examples are checked against the whole line", () => {
    const rule = {
      ...allowExactly("rm -rf data", "rm"),
      examples: { match: ["rm -rf data", " rm -rf data "], not_match: ["sudo rm -rf data", "rm -rf data ~", "rm -rf  build"] },
    };
    expect(proveRuleExamples(rule as Policy["rules"][number], DEFAULT)).toEqual([]);
    const wrong = { ...allowExactly("rm -rf data", "rm"), examples: { match: ["sudo rm -rf data"], not_match: ["rm -rf data"] } };
    expect(proveRuleExamples(wrong as Policy["rules"][number], DEFAULT).map((problem) => problem.example)).toEqual([
      "sudo rm -rf data",
      "rm -rf data",
    ]);
  });

  test("a blank line is reported; a rule with only command_exact is complete", () => {
    expect(checkRule(allowExactly("rm -rf data") as Policy["rules"][number])).toEqual([]);
    expect(
      checkRule(allowExactly("   ") as Policy["rules"][number])
        .map((problem) => problem.message)
        .join("\n"),
    ).toContain("blank");
  });

  test("an untrusted layer keeps only ask and deny rules for a program, never an exact line", () => {
    const deny = { ...allowExactly("rm -rf data", "rm", "deny-exact"), decision: "deny" };
    const askRm = { id: "ask-rm", match: { program: "rm" }, act: "delete", undo: 1, decision: "ask", reason: "r" };
    const { kept, ignored } = stricterOnly(
      { rules: [allowExactly("rm -rf data", "rm"), deny, askRm] },
      DEFAULT as unknown as Record<string, unknown>,
    );
    expect((kept.rules as { id: string }[]).map((rule) => rule.id)).toEqual(["ask-rm"]);
    expect(ignored.map((entry) => entry.path)).toEqual(["rules.0 (always-exact)", "rules.1 (deny-exact)"]);
  });
});
