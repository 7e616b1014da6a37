/**
 * Approvals: a person's decisions as journaled tasks. What other parts of
 * verdict call:
 *
 * - the task loop (`verdict run`): `askPerson` for a call the judge says
 *   needs a person, `endRun` when the run ends;
 * - the hook, for hosts that cannot ask: `hostAsk` for the decision;
 * - `verdict approvals`: `decideTask`, `settleExpired`, the journal's
 *   readers and `verifyJournal`.
 *
 * See docs/approvals.md.
 */
import { expiryRecords, overdue } from "./expiry.ts";
import { journalPath, readJournal, transact } from "./journal.ts";
import { fold, type State } from "./state.ts";

export { hostAsk } from "./host.ts";
export { askPerson, endRun, type PromptBudget } from "./person.ts";
export { decideTask, type DecideRequest, type DecideResult } from "./decide.ts";
export { journalPath, readAnchor, readJournal, verifyJournal } from "./journal.ts";
export type { TaskEntry, State } from "./state.ts";

/** Settles every overdue task (a refusal nobody made) and returns the journal's state. Cheap when nothing is due. */
export function settleExpired(env: Record<string, string | undefined> = process.env, now: Date = new Date()): State {
  const path = journalPath(env);
  const state = fold(readJournal(path).records);
  if (overdue(state, now).length === 0) return state;
  return transact(
    path,
    (records) => {
      const current = fold(records);
      return { append: expiryRecords(current, now), result: current };
    },
    () => now,
  );
}
