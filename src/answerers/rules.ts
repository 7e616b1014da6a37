/**
 * The rule engine as an answerer: it answers a command's questions (which
 * act, how hard to undo, how heavy) from what the line really executes and
 * the policy's rules, in the same shape as a model's answers. The pieces
 * live in ./rules/.
 */
import type { Policy } from "../policy/schema.ts";
import { answerLine, type RuleContext, type RulesAnswer } from "./rules/engine.ts";

export type { RuleContext, RuleHit, RulesAnswer, Unknown } from "./rules/engine.ts";
export { proveRuleExamples, type ExampleProblem } from "./rules/examples.ts";
export { checkRule, checkTurnRule, slowProblem, type RuleCheckProblem } from "./rules/check.ts";
export { catastrophicBacktracking } from "./rules/backtracking.ts";
export { compiledOf, compileEagerly, compileRule, markTightening, ruleIndex } from "./rules/compile.ts";

/** The rule engine's answers for a command line. Never throws. */
export function answerCommandByRules(line: string, context: RuleContext, policy: Policy): RulesAnswer {
  try {
    return answerLine(line, context, policy);
  } catch (error) {
    // A bug here must not let a command through: treat it like a line that cannot be parsed.
    return { parsed: false, error: `the rule engine failed: ${(error as Error).message}`, executed: [] };
  }
}
