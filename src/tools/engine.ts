/**
 * The rule engine for tool calls: each part of a call gets the first tool rule that matches it; the
 * parts' answers combine into one answer for the call by the same law as a command line's executed
 * commands: an outright deny beats an ask beats everything, then the answer hardest to undo stands.
 * The answers have the shape of a model's, so the one verdict function (src/core/verdict.ts) decides.
 */
import { leaning, type CommandAnswers } from "../core/answers.ts";
import type { Policy } from "../policy/schema.ts";
import { partFacts, resolveContext, type PartFacts, type ToolContext } from "./facts.ts";
import { compiledToolRules, failing, matches, type CompiledToolRule } from "./rules.ts";
import type { ToolCall, ToolPart } from "./types.ts";

export type ToolRuleHit = {
  id: string;
  reason: string;
  decision?: "allow" | "ask" | "deny";
  suggest?: string;
  /** Which part of the call the rule answered for. */
  part: number;
};

export type JudgedPart = {
  part: ToolPart;
  facts: PartFacts;
  /** The rule that answered for this part; absent when none matches. */
  hit?: ToolRuleHit;
};

export type ToolRulesAnswer = {
  parts: JudgedPart[];
  /** Undefined when a part no rule knows and nothing known is risky: no confident answer. */
  answers?: CommandAnswers;
  decision?: "allow" | "ask" | "deny";
  /** The rule whose answer stands for the call (the strictest part's). */
  rule?: ToolRuleHit;
  /** Indexes of parts no rule knows. */
  unknown: number[];
};

type Policyish = Pick<Policy, "tool_rules" | "acts" | "judge">;

const DECISION_RANK = { deny: 2, ask: 1, allow: 0 } as const;

/** The part as rules see it: a file tool's part carries the host's tool name. */
export function ruleView(call: ToolCall, part: ToolPart): ToolPart {
  return part.kind === "mcp" || part.tool !== undefined ? part : { ...part, tool: call.tool };
}

function firstToolRule(rules: readonly CompiledToolRule[], part: ToolPart, facts: PartFacts): CompiledToolRule | undefined {
  return rules.find((rule) => matches(rule, part, facts));
}

/** The rules that fail for a part by the fewest fields, with those fields: what `verdict explain` shows as nearest. */
export function nearestToolRules(
  rules: readonly CompiledToolRule[],
  part: ToolPart,
  facts: PartFacts,
  count = 3,
): { id: string; failing: string[] }[] {
  return rules
    .map((rule) => ({
      id: rule.rule.id,
      failing: failing(rule, part, facts),
      kindFails: rule.checks.some((c) => c.field === "kind" && !c.test(part, facts)),
    }))
    .filter((entry) => entry.failing.length > 0 && !entry.kindFails)
    .sort((a, b) => a.failing.length - b.failing.length)
    .slice(0, count)
    .map(({ id, failing }) => ({ id, failing }));
}

function consequential(act: string, policy: Policyish): boolean {
  return policy.acts[act]?.consequential ?? true;
}

function risky(rule: CompiledToolRule["rule"], policy: Policyish): boolean {
  const t = policy.judge.thresholds;
  return (consequential(rule.act, policy) && (rule.confidence ?? 1) >= t.ask_at_consequential) || rule.undo >= t.ask_at_undo;
}

function rank(rule: CompiledToolRule["rule"], policy: Policyish): number[] {
  const decision = rule.decision === "deny" || rule.decision === "ask" ? DECISION_RANK[rule.decision] : 0;
  return [decision, risky(rule, policy) ? 1 : 0, rule.undo, consequential(rule.act, policy) ? 1 : 0, rule.confidence ?? 1];
}

function harder(a: CompiledToolRule["rule"], b: CompiledToolRule["rule"], policy: Policyish): boolean {
  const ra = rank(a, policy);
  const rb = rank(b, policy);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return (ra[i] as number) > (rb[i] as number);
  return false;
}

export function answerToolCall(call: ToolCall, context: ToolContext, policy: Policyish): ToolRulesAnswer {
  const resolved = resolveContext(context);
  const rules = compiledToolRules(policy.tool_rules);
  const labels = Object.keys(policy.acts);
  const parts: JudgedPart[] = [];
  const unknown: number[] = [];
  const judged: { rule: CompiledToolRule; hit: ToolRuleHit }[] = [];
  call.parts.forEach((raw, index) => {
    const part = ruleView(call, raw);
    const facts = partFacts(part, resolved);
    const rule = firstToolRule(rules, part, facts);
    if (!rule) {
      unknown.push(index);
      parts.push({ part: raw, facts });
      return;
    }
    const hit: ToolRuleHit = { id: rule.rule.id, reason: rule.rule.reason, part: index };
    if (rule.rule.decision) hit.decision = rule.rule.decision;
    if (rule.rule.suggest) hit.suggest = rule.rule.suggest;
    judged.push({ rule, hit });
    parts.push({ part: raw, facts, hit });
  });
  if (judged.length === 0) return { parts, unknown };
  const hardest = judged.reduce((best, j) => (harder(j.rule.rule, best.rule.rule, policy) ? j : best));
  const top = hardest.rule.rule;
  const load = Math.max(...judged.map((j) => j.rule.rule.load ?? 0));
  const answers: CommandAnswers = {
    act: leaning(labels.includes(top.act) ? labels : [...labels, top.act], top.act, top.confidence ?? 1, "rules"),
    undo: { score: top.undo, source: "rules" },
    load: { score: load, source: "rules" },
  };
  const decisions = judged.map((j) => j.rule.rule.decision);
  let decision: ToolRulesAnswer["decision"];
  if (decisions.includes("deny")) decision = "deny";
  else if (decisions.includes("ask")) decision = "ask";
  else if (unknown.length === 0 && decisions.every((d) => d === "allow")) decision = "allow";
  if (unknown.length > 0 && decision === undefined && !risky(top, policy)) return { parts, unknown };
  return { parts, answers, rule: hardest.hit, unknown, ...(decision ? { decision } : {}) };
}
