/**
 * The rule engine as an answerer: it answers a command's questions from what
 * the line really executes and the policy's rules. (Placeholder until the
 * rule engine lands: it knows no command.)
 */
import type { CommandAnswers } from "../judge/answers.ts";
import type { Policy } from "../policy/schema.ts";
import type { ExecutedCommand } from "../shell/index.ts";

export type RuleContext = { cwd: string; projectRoot?: string; home?: string };

/** The rule that decided, and the executed command it matched. */
export type RuleHit = { id: string; reason: string; command: ExecutedCommand; decision?: "allow" | "ask" | "deny" };

export type RulesAnswer =
  | { parsed: false; error: string; executed: [] }
  | {
      parsed: true;
      executed: ExecutedCommand[];
      /** Undefined when no rule knows any executed command: no confident answer. */
      answers?: CommandAnswers;
      /** A rule's outright decision, which stands before any model is asked. */
      decision?: "allow" | "ask" | "deny";
      /** The rule whose answer stands for the line (the hardest to undo). */
      rule?: RuleHit;
      /** Executed commands no rule knows. */
      unknown: ExecutedCommand[];
    };

export function answerCommandByRules(line: string, context: RuleContext, policy: Policy): RulesAnswer {
  void line;
  void context;
  void policy;
  return { parsed: true, executed: [], unknown: [] };
}
