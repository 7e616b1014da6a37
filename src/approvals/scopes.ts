/**
 * How an approval applies to later calls. A later call is covered when it
 * is identical (same tool, program, command and working directory: the same
 * call key) and comes from the same session; `task` approvals also need the
 * same task. An approval ends with its task or run, and `once` covers one
 * call only. A rejection covers nothing beyond its own task.
 */
import { bindsTo } from "./decision.ts";
import { scopeEnded, type State, type TaskEntry } from "./state.ts";
import { actionKey, callKey, taskOf, type Call } from "./task.ts";

export type Cover = { entry: TaskEntry; scope: "once" | "task" | "run" };

function sameCall(entry: TaskEntry, call: Call): boolean {
  return entry.task.kind === "approval" && entry.task.session === call.session && actionKey(entry.task.action) === callKey(call);
}

/** The newest task or run approval that covers `call`, if any. */
export function standingApproval(state: State, call: Call): Cover | undefined {
  for (let i = state.order.length - 1; i >= 0; i--) {
    const entry = state.order[i]!;
    const decision = entry.decision;
    if (!decision || decision.outcome !== "approved" || !sameCall(entry, call) || !bindsTo(decision, entry.task)) continue;
    const ended = scopeEnded(state, entry);
    if (decision.scope === "run" && !ended.run) return { entry, scope: "run" };
    if (decision.scope === "task" && !ended.task && taskOf(entry.task) === taskOf(call)) return { entry, scope: "task" };
  }
  return undefined;
}

/** A `once` approval of an identical call that no call has used yet (how a host's retry gets through). */
export function unusedOnce(state: State, call: Call): Cover | undefined {
  for (let i = state.order.length - 1; i >= 0; i--) {
    const entry = state.order[i]!;
    const decision = entry.decision;
    if (!decision || decision.outcome !== "approved" || decision.scope !== "once" || entry.used > 0) continue;
    if (!sameCall(entry, call) || !bindsTo(decision, entry.task) || scopeEnded(state, entry).run) continue;
    return { entry, scope: "once" };
  }
  return undefined;
}

/** The newest task for an identical call in the same session, whatever its status. */
export function latestTaskFor(state: State, call: Call): TaskEntry | undefined {
  for (let i = state.order.length - 1; i >= 0; i--) {
    const entry = state.order[i]!;
    if (sameCall(entry, call)) return entry;
  }
  return undefined;
}

/** How many tasks an identical call had in this session: the next task's `n`. */
export function tasksForCall(state: State, call: Call): number {
  return state.order.filter((entry) => sameCall(entry, call)).length;
}
