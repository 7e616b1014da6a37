/**
 * A judgment from start to end: the rule engine's outright decisions first,
 * then a model's answers when the policy has one (the rule engine's answers
 * when it cannot), then the verdict math. (First version: rules only.)
 */
import { answerCommandByRules, type RuleHit } from "../answerers/rules.ts";
import type { LoadedPolicy } from "../policy/load.ts";
import type { ExecutedCommand } from "../shell/index.ts";
import type { CommandAnswers, EndingAnswers, Verdict } from "./answers.ts";
import { availableMemoryMb } from "./memory.ts";
import { commandVerdict } from "./verdict.ts";

export type AnswererName = "rules" | "jev" | "openai";

export type CommandInput = {
  command: string;
  cwd: string;
  projectRoot?: string;
  host?: string;
  event?: string;
  /** `performance.now()` when verdict started: the model deadline counts from here. */
  startedAt?: number;
  /** Force the rule engine (--rules-only, VERDICT_MODE=rules). */
  rulesOnly?: boolean;
};

export type CommandJudgment = {
  verdict: Verdict;
  line: string;
  answerer: AnswererName;
  answers?: CommandAnswers;
  rule?: RuleHit;
  executed: ExecutedCommand[];
  /** Why no model answered, when none did. */
  modelNotUsed?: string;
  policyDigest: string;
};

export type TurnInput = { requests: string[]; final: string; host?: string; startedAt?: number; rulesOnly?: boolean };

export type TurnJudgment = {
  verdict: Extract<Verdict, "pass" | "deny">;
  line: string;
  answerer: AnswererName;
  answers?: EndingAnswers;
  modelNotUsed?: string;
  policyDigest: string;
};

export async function judgeCommand(input: CommandInput, loaded: LoadedPolicy): Promise<CommandJudgment> {
  const { policy, digest } = loaded;
  const rules = answerCommandByRules(input.command, { cwd: input.cwd, projectRoot: input.projectRoot }, policy);
  const base = { answerer: "rules" as const, policyDigest: digest, modelNotUsed: "rule-only mode" };
  if (!rules.parsed) {
    return { ...base, verdict: "ask", line: `rules: the line cannot be parsed, so it is not allowed: ${rules.error}`, executed: [] };
  }
  if (rules.decision && rules.rule) {
    return { ...base, verdict: rules.decision, line: `rules: ${rules.rule.reason} (rule ${rules.rule.id})`, answers: rules.answers, rule: rules.rule, executed: rules.executed };
  }
  if (!rules.answers) {
    const names = [...new Set(rules.unknown.map((command) => command.name))].join(", ");
    return { ...base, verdict: "pass", line: `rules: no rule knows ${names || "this command"}; left to the usual permission check`, executed: rules.executed };
  }
  const verdicted = commandVerdict(policy, rules.answers, availableMemoryMb(), "rules");
  return { ...base, ...verdicted, answers: rules.answers, rule: rules.rule, executed: rules.executed };
}

export async function judgeTurnEnd(input: TurnInput, loaded: LoadedPolicy): Promise<TurnJudgment> {
  void input;
  return { verdict: "pass", line: "rules: no turn rule is confident; the turn may end", answerer: "rules", policyDigest: loaded.digest };
}
