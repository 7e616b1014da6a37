/**
 * The one place a judge's `ask` is decided during `verdict run`: by the
 * approvals engine (src/approvals). An identical call already approved for
 * this run goes through; otherwise the call's approval task is opened and,
 * at a terminal within the run's prompt budget, the person is asked inline;
 * past the budget or without a terminal, the run prints the task's id and the
 * command that decides it (on stderr, also under --json) and waits until it
 * is decided or expires. Contract: resolve to approved or refused, never
 * throw, and honour `signal` (a cancelled run stops waiting at once and its
 * open tasks are withdrawn).
 */
import { askPerson, endRun, type PromptBudget } from "../approvals/index.ts";
import type { CommandJudgment } from "../judge/index.ts";
import type { LoadedPolicy } from "../policy/load.ts";

type AskCall = {
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

type AskDecision =
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

/** Inline prompts shown so far, per run. */
const budgets = new Map<string, PromptBudget>();

export async function decideAsk(call: AskCall, judgment: CommandJudgment, context: AskContext): Promise<AskDecision> {
  let budget = budgets.get(context.runId);
  if (!budget) budgets.set(context.runId, (budget = { used: 0 }));
  const outcome = await askPerson({ command: call.command, cwd: call.cwd, host: "run", session: context.runId }, judgment, {
    policy: context.loaded.policy,
    ...(context.interactive ? { terminal: { input: process.stdin, output: process.stderr } } : {}),
    budget,
    notify: (line) => void process.stderr.write(`${line}\n`),
    signal: context.signal,
    before: context.history.map((command) => ({ command, outcome: "ran earlier in this run" })),
  });
  const by = outcome.by ? `${outcome.by.name} (${outcome.by.via})` : undefined;
  const task = outcome.task ? { taskId: outcome.task.id, digest: outcome.task.digest } : {};
  if (outcome.decision === "allow") {
    return {
      decision: "approved",
      ...(by ? { by } : {}),
      ...(outcome.scope ? { scope: outcome.scope } : {}),
      ...task,
      ...(outcome.note ? { note: outcome.note } : {}),
    };
  }
  if (outcome.via === "cancelled") {
    try {
      endRun(context.runId);
    } catch {
      // the journal is unusable; the task expires on its own
    }
  }
  const reason =
    outcome.via === "cancelled"
      ? "cancelled"
      : outcome.via === "error"
        ? "approvals-unavailable"
        : outcome.expired
          ? "expired"
          : "rejected";
  return { decision: "refused", reason, message: `${judgment.line} — ${outcome.reason}`, ...(by ? { by } : {}), ...task };
}
