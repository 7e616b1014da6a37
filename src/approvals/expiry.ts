/**
 * Deadlines. Each task is due `approvals.wait_at_most` after it opened; the
 * deadline is recorded in the task, so settling needs no policy. There is no
 * daemon: whenever verdict touches the journal, overdue tasks are settled
 * with a refusal nobody made, and readers treat an overdue task as expired
 * even before that is recorded.
 */
import type { Policy } from "../policy/schema.ts";
import { durationMs } from "../core/units.ts";
import { expire } from "./decision.ts";
import type { NewRecord } from "./journal.ts";
import { statusOf, type State, type TaskEntry } from "./state.ts";

export function waitAtMostMs(policy: Policy): number {
  return durationMs(policy.approvals.wait_at_most);
}

export function dueAt(policy: Policy, openedAt: Date): Date {
  return new Date(openedAt.getTime() + waitAtMostMs(policy));
}

/** Open tasks whose deadline has passed and whose expiry is not recorded yet. */
export function overdue(state: State, now: Date): TaskEntry[] {
  return state.order.filter((entry) => !entry.decision && !entry.withdrawn && statusOf(entry, now) === "expired");
}

/** The records that settle every overdue task, and the state as it will be once they are written. */
export function expiryRecords(state: State, now: Date): NewRecord[] {
  const records: NewRecord[] = [];
  for (const entry of overdue(state, now)) {
    const decision = expire(entry.task, now);
    entry.decision = decision;
    records.push({ kind: "task.decided", body: { id: entry.task.id, decision } });
  }
  return records;
}
