/**
 * Approvals: a person's decisions as journaled tasks. What other parts of
 * verdict call:
 *
 * - the task loop (`verdict run`): `askPerson` for a call the judge says
 *   needs a person, `askQuestion` for the assistant's question, `endRun`
 *   when the run ends;
 * - the hook adapters, for hosts that cannot ask: `hostCannotAsk` to know,
 *   `hostAsk` for the decision;
 * - `verdict approvals`: `decideTask`, `listTasks`, `verifyJournal`.
 *
 * See docs/approvals.md.
 */
import { expiryRecords, overdue } from "./expiry.ts";
import { journalPath, readJournal, transact } from "./journal.ts";
import { fold, type State } from "./state.ts";

export { hostAsk, hostCannotAsk, approveCommand, type HostAskContext, type HostAskResult } from "./host.ts";
export { askPerson, askQuestion, endRun, endTask, waitForDecision, type AskContext, type AskOutcome, type PromptBudget, type QuestionOutcome } from "./person.ts";
export { decideTask, type DecideRequest, type DecideOptions, type DecideResult } from "./decide.ts";
export { journalPath, stateDir, readAnchor, readJournal, verifyJournal, JournalDamaged, type Verification, type JournalRecord } from "./journal.ts";
export { toCall, programOf, shownVerdict, type CallInput, type JudgmentLike } from "./call.ts";
export type { Task, Call, Scope, PriorCall } from "./task.ts";
export type { Decision, Who, Channel } from "./decision.ts";
export type { TaskEntry, TaskStatus, State } from "./state.ts";
export type { Terminal } from "./prompt.ts";

/** Settles every overdue task (a refusal nobody made) and returns the journal's state. Cheap when nothing is due. */
export function settleExpired(env: Record<string, string | undefined> = process.env, now: Date = new Date()): State {
  const path = journalPath(env);
  const state = fold(readJournal(path).records);
  if (overdue(state, now).length === 0) return state;
  return transact(path, (records) => {
    const current = fold(records);
    return { append: expiryRecords(current, now), result: current };
  }, () => now);
}
