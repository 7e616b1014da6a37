/**
 * Recording a person's decision on a task, from the command line or the
 * inline prompt. Under the journal lock: overdue tasks are settled first,
 * then the task is found, checked (still open; unchanged since it was
 * shown), and the decision is appended bound to the task's digest. An
 * "always" approval writes its rule before the decision is recorded, and the
 * rule's place is recorded with it.
 */
import type { Policy } from "../policy/schema.ts";
import { AlwaysError, alwaysRule, alwaysSupported, layerFile, writeAlwaysRule, type Layer } from "./always.ts";
import { approve, answer, refusalFor, reject, who as whoIn, type Channel, type Decision, type Who } from "./decision.ts";
import { short } from "./digest.ts";
import { expiryRecords } from "./expiry.ts";
import { transact, type NewRecord } from "./journal.ts";
import { findTask, fold, statusOf, type TaskEntry } from "./state.ts";
import type { ApprovalFacts, Scope, Task } from "./task.ts";

export type DecideRequest =
  | { kind: "approve"; scope?: Scope; note?: string; always?: boolean; layer?: Layer }
  | { kind: "reject"; reason: string }
  | { kind: "answer"; text: string };

type DecideOptions = {
  journal: string;
  /** The task id or a unique prefix of it. */
  id: string;
  /** The digest (or a prefix of at least 8) the person was shown, when they give it. */
  shownDigest?: string;
  via: Channel;
  env?: Record<string, string | undefined>;
  /** Needed for "always" (the act labels and the default layer). */
  policy?: Policy;
  /** Who, when the caller knows better than git (a host channel). */
  by?: Who;
  now?: () => Date;
};

type DecideErrorCode = "NOT-FOUND" | "AMBIGUOUS" | "ALREADY-DECIDED" | "CALL-CHANGED" | "USAGE" | "ALWAYS";

export type DecideResult =
  | { ok: true; entry: TaskEntry; decision: Decision; warnings: string[] }
  | { ok: false; code: DecideErrorCode; message: string; entry?: TaskEntry };

export function decideTask(request: DecideRequest, options: DecideOptions): DecideResult {
  const now = (options.now ?? (() => new Date()))();
  const env = options.env ?? process.env;
  return transact<DecideResult>(
    options.journal,
    (records) => {
      const state = fold(records);
      const settled = expiryRecords(state, now);
      const fail = (code: DecideErrorCode, message: string, entry?: TaskEntry) => ({
        append: settled,
        result: { ok: false as const, code, message, ...(entry ? { entry } : {}) },
      });
      const found = findTask(state, options.id);
      if ("error" in found) return fail(found.error, found.message);
      const { entry } = found;
      const status = statusOf(entry, now);
      if (status !== "open") {
        const how = entry.decision?.by ? ` by ${entry.decision.by.name}` : "";
        return fail(
          "ALREADY-DECIDED",
          `task ${short(entry.task.id)} is already ${status}${how}; a decision can be recorded only once`,
          entry,
        );
      }
      const refusal = refusalFor(entry.task, options.shownDigest, request.kind);
      if (refusal) return fail(refusal.code, refusal.message, entry);
      const by = options.by ?? whoIn(entry.task.action.cwd, options.via, env);
      const warnings: string[] = [];
      const append: NewRecord[] = [...settled];
      let decision: Decision;
      if (request.kind === "reject") {
        if (!request.reason.trim()) return fail("USAGE", "a rejection needs a reason (the assistant is told it): --reason TEXT", entry);
        decision = reject(entry.task, by, request.reason, now);
      } else if (request.kind === "answer") {
        decision = answer(entry.task, by, request.text, now);
      } else {
        const task = entry.task as Task & ApprovalFacts;
        const scope = request.scope ?? "once";
        let always: ReturnType<typeof writeAlwaysRule> | undefined;
        if (request.always) {
          if (!task.options.includes("always")) return fail("ALWAYS", `"always" was not offered for task ${short(task.id)}`, entry);
          if (!alwaysSupported()) {
            return fail(
              "ALWAYS",
              `"always" needs a rule that matches exactly one command line, and this build's rule language has no match.command_exact yet; approve with --scope run instead`,
              entry,
            );
          }
          if (!options.policy) return fail("ALWAYS", "the policy could not be loaded, so no rule can be written", entry);
          const layer: Layer = request.layer ?? options.policy.approvals.always_layer;
          const file = layerFile(layer, task.action.cwd, env);
          const rule = alwaysRule(task, by, options.policy, now);
          try {
            always = writeAlwaysRule(
              file,
              layer,
              rule,
              `Added by verdict approvals approve --always (${by.name}, ${now.toISOString()}): approval task ${short(task.id)}, digest ${short(task.digest)}.`,
            );
          } catch (error) {
            if (error instanceof AlwaysError) return fail("ALWAYS", error.message, entry);
            return fail("ALWAYS", `cannot write the rule to ${file}: ${(error as Error).message}`, entry);
          }
          append.push({ kind: "policy.amended", body: { id: task.id, layer, file, rule } });
          if (layer === "repo")
            warnings.push(`${file} changed: if you trusted it with verdict policy trust, trust it again, or its allow rules are ignored`);
        }
        decision = approve(task, by, { scope, ...(request.note ? { note: request.note } : {}), ...(always ? { always } : {}) }, now);
      }
      append.push({ kind: "task.decided", body: { id: entry.task.id, decision } });
      entry.decision = decision;
      return { append, result: { ok: true as const, entry, decision, warnings } };
    },
    () => now,
  );
}
