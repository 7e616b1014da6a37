/**
 * The journal folded into what it says now: every task with its decision,
 * the approvals already used, and the tasks and runs that have ended. The
 * journal is the history; this is a view of it, rebuilt on every read.
 */
import { parseDecision, type Decision } from "./decision.ts";
import type { JournalRecord } from "./journal.ts";
import type { Task } from "./task.ts";
import { taskOf } from "./task.ts";

type TaskStatus = "open" | "approved" | "rejected" | "answered" | "expired" | "withdrawn";

export type TaskEntry = {
  task: Task;
  /** The sequence number of the record that opened it. */
  seq: number;
  decision?: Decision;
  decidedSeq?: number;
  /** The run ended before anyone decided. */
  withdrawn: boolean;
  /** How many calls an approval of this task let through. */
  used: number;
  /** A refusal was told to the caller. */
  told: boolean;
};

export type State = {
  tasks: Map<string, TaskEntry>;
  /** Tasks in the order they were opened. */
  order: TaskEntry[];
  endedRuns: Set<string>;
  endedTasks: Set<string>;
};

function endedTaskKey(session: string, task: string): string {
  return `${session}\0${task}`;
}

export function fold(records: readonly JournalRecord[]): State {
  const state: State = { tasks: new Map(), order: [], endedRuns: new Set(), endedTasks: new Set() };
  for (const record of records) {
    const body = record.body as Record<string, unknown>;
    switch (record.kind) {
      case "task.opened": {
        const task = body.task as Task;
        if (!task || typeof task.id !== "string" || state.tasks.has(task.id)) break;
        const entry: TaskEntry = { task, seq: record.seq, withdrawn: false, used: 0, told: false };
        state.tasks.set(task.id, entry);
        state.order.push(entry);
        break;
      }
      case "task.decided": {
        const entry = state.tasks.get(body.id as string);
        const decision = parseDecision(body.decision);
        // The first decision wins; a task withdrawn with its run takes none.
        if (entry && decision && !entry.decision && !entry.withdrawn) {
          entry.decision = decision;
          entry.decidedSeq = record.seq;
        }
        break;
      }
      case "grant.used": {
        const entry = state.tasks.get(body.id as string);
        if (entry) entry.used++;
        break;
      }
      case "refusal.told": {
        const entry = state.tasks.get(body.id as string);
        if (entry) entry.told = true;
        break;
      }
      case "task.ended":
        state.endedTasks.add(endedTaskKey(body.session as string, body.task as string));
        break;
      case "run.ended": {
        const session = body.session as string;
        state.endedRuns.add(session);
        for (const entry of state.order) {
          if (entry.task.session === session && !entry.decision) entry.withdrawn = true;
        }
        break;
      }
      default:
        break;
    }
  }
  return state;
}

/** A task's status at `now`: an open task past its deadline is expired, whether or not that is recorded yet. */
export function statusOf(entry: TaskEntry, now: Date): TaskStatus {
  if (entry.decision) return entry.decision.outcome;
  if (entry.withdrawn) return "withdrawn";
  return now.getTime() >= Date.parse(entry.task.due_at) ? "expired" : "open";
}

/** Whether the task or run a task belongs to has ended. */
export function scopeEnded(state: State, entry: TaskEntry): { run: boolean; task: boolean } {
  const run = state.endedRuns.has(entry.task.session);
  return { run, task: run || state.endedTasks.has(endedTaskKey(entry.task.session, taskOf(entry.task))) };
}

export type Found = { entry: TaskEntry } | { error: "NOT-FOUND" | "AMBIGUOUS"; message: string };

/** The task whose id starts with `prefix` (at least 4 hex characters). */
export function findTask(state: State, prefix: string): Found {
  const wanted = prefix.trim().toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(wanted))
    return { error: "NOT-FOUND", message: `${JSON.stringify(prefix)} is not a task id (4 to 64 hex characters)` };
  const matches = state.order.filter((entry) => entry.task.id.startsWith(wanted));
  if (matches.length === 0) return { error: "NOT-FOUND", message: `no approval task ${wanted}` };
  if (matches.length > 1) return { error: "AMBIGUOUS", message: `${wanted} names ${matches.length} tasks; give more of the id` };
  return { entry: matches[0]! };
}
