/**
 * How a tool call's verdict was reached: each part with its path resolved, its class and what the disk
 * says, every tool rule that matches it (the first answers), the nearest that do not and which of their
 * fields fail, the answers, the thresholds they met, and the verdict.
 */
import type { ToolJudgment } from "../judge/tool.ts";
import type { Policy } from "../policy/schema.ts";
import { nearestToolRules, ruleView } from "../tools/engine.ts";
import { compiledToolRules, matches } from "../tools/rules.ts";
import { partText, type ToolCall } from "../tools/types.ts";
import { thresholdsMet, type Thresholds } from "./thresholds.ts";

export type ToolExplanation = {
  subject: "tool";
  tool: string;
  cwd: string;
  parts: {
    does: string;
    kind: string;
    path?: string;
    written_as?: string;
    class?: string;
    exists?: boolean;
    tracked?: boolean;
    change?: string;
    rules: string[];
    answered_by?: string;
    nearest: { id: string; failing: string[] }[];
  }[];
  verdict: string;
  line: string;
  answerer: string;
  rule?: string;
  suggest?: string;
  answers?: ToolJudgment["answers"];
  thresholds: Thresholds;
  model_not_used?: string;
};

export function explainTool(call: ToolCall, cwd: string, policy: Policy, judgment: ToolJudgment): ToolExplanation {
  const rules = compiledToolRules(policy.tool_rules);
  const parts = judgment.parts.map(({ part, facts }) => {
    const view = ruleView(call, part);
    return {
      does: partText(part),
      kind: part.kind,
      ...(facts.path !== undefined ? { path: facts.path } : {}),
      ...(facts.written !== undefined ? { written_as: facts.written } : {}),
      ...(facts.cls !== undefined ? { class: facts.cls } : {}),
      ...(facts.exists !== undefined && part.path !== undefined ? { exists: facts.exists, tracked: facts.tracked } : {}),
      ...(facts.change !== undefined ? { change: facts.change } : {}),
      rules: rules.filter((rule) => matches(rule, view, facts)).map((rule) => rule.rule.id),
      ...(judgment.parts.length > 0 && judgment.rule && judgment.parts[judgment.rule.part]?.part === part
        ? { answered_by: judgment.rule.id }
        : {}),
      nearest: nearestToolRules(rules, view, facts),
    };
  });
  for (const part of parts)
    if (part.answered_by === undefined && part.rules[0]) (part as { answered_by?: string }).answered_by = part.rules[0];
  return {
    subject: "tool",
    tool: call.tool,
    cwd,
    parts,
    verdict: judgment.verdict,
    line: judgment.line,
    answerer: judgment.answerer,
    ...(judgment.rule ? { rule: judgment.rule.id } : {}),
    ...(judgment.suggest ? { suggest: judgment.suggest } : {}),
    ...(judgment.answers ? { answers: judgment.answers } : {}),
    thresholds: thresholdsMet(policy, judgment.answers),
    ...(judgment.modelNotUsed ? { model_not_used: judgment.modelNotUsed } : {}),
  };
}
