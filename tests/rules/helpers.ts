/** The rule engine on the embedded default policy, as the tests ask it. */
import { answerCommandByRules, type RuleContext, type RulesAnswer } from "../../src/answerers/rules.ts";
import type { Verdict } from "../../src/core/answers.ts";
import { loadPolicy } from "../../src/policy/index.ts";
import type { Policy } from "../../src/policy/schema.ts";
import { examplesProbe } from "../../src/answerers/rules/probe.ts";

const loaded = loadPolicy({ cwd: "/", only: [] });
if (!loaded.ok) throw new Error(loaded.error.message);
export const DEFAULT: Policy = loaded.loaded.policy;

/** A project under a home directory; nothing on disk is looked up unless a probe says so. */
export const CONTEXT: RuleContext = {
  cwd: "/home/user/project",
  projectRoot: "/home/user/project",
  home: "/home/user",
  tmpdir: "/tmp",
  probe: { exists: () => false, tracked: () => false },
};

export type Judged = { verdict: Verdict; rule?: string; answer: RulesAnswer };

/** The verdict the rule engine's answers give (memory left out). */
export function judge(line: string, context: Partial<RuleContext> = {}, policy: Policy = DEFAULT): Judged {
  const answer = answerCommandByRules(line, { ...CONTEXT, ...context }, policy);
  if (!answer.parsed) return { verdict: "ask", answer };
  return { verdict: answer.verdict, rule: answer.rule?.id, answer };
}

export const verdictOf = (line: string, context: Partial<RuleContext> = {}) => judge(line, context).verdict;

/** A policy of the default's settings with only these rules. */
export function policyWith(rules: unknown[]): Policy {
  return { ...DEFAULT, rules: rules.map((rule) => ({ load: 0, confidence: 1, ...(rule as object) })) as Policy["rules"] };
}

export { examplesProbe };
