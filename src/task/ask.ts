/**
 * The one place a judge's `ask` is decided during `verdict run`. Until
 * approvals are wired in, every ask is refused with the judge's line; the
 * approvals engine replaces the body of `decideAsk` (an inline prompt at a
 * terminal, or a journaled task the run waits on) and keeps its contract:
 * resolve to approved or refused, never throw, and honour `signal` (a
 * cancelled run must stop waiting at once).
 */
import type { CommandJudgment } from "../judge/index.ts";
import type { LoadedPolicy } from "../policy/load.ts";

export type AskCall = {
  /** The command exactly as the model sent it and as it would run. */
  command: string;
  argv: string[];
  cwd: string;
  /** The model's tool call id and the call's number in this run (1-based). */
  toolCallId: string;
  callNumber: number;
};

export type AskContext = {
  runId: string;
  /** The natural-language request the run carries out. */
  request: string;
  /** Commands that already ran in this run, in order. */
  history: string[];
  loaded: LoadedPolicy;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Whether a person may be at this terminal (stdin and stderr are terminals, and --json is off). */
  interactive: boolean;
  /** Prints a progress line the way the run does (nothing under --json). */
  note: (line: string) => void;
};

export type AskDecision =
  | {
      decision: "approved";
      /** Who decided and through which channel, e.g. "Ada Lovelace (terminal)". */
      by?: string;
      scope?: "once" | "task" | "run";
      /** The approval task's id and the digest of what was shown, when a journal holds it. */
      taskId?: string;
      digest?: string;
      note?: string;
    }
  | {
      decision: "refused";
      /** Stable cause: `approvals-unavailable`, `rejected`, `expired`, `cancelled`. */
      reason: string;
      /** Said to the model and the user. */
      message: string;
      by?: string;
      taskId?: string;
      digest?: string;
    };

export async function decideAsk(call: AskCall, judgment: CommandJudgment, context: AskContext): Promise<AskDecision> {
  void call;
  void context;
  return {
    decision: "refused",
    reason: "approvals-unavailable",
    message: `the judge asks for a person's approval (${judgment.line}), and approvals are not available in verdict run yet`,
  };
}
