/**
 * Asks from hosts that cannot put a question to a person (Codex CLI, Gemini
 * CLI, and any host the policy names). The hook opens an approval task for
 * the call, or finds the one already open for the identical call, and denies
 * with the verdict's line and the exact command that approves it. Once a
 * person approves, the same call from the same session is allowed: once (the
 * next identical call), or for the rest of the task or session.
 *
 * Whatever goes wrong here (a damaged journal, a lock that cannot be taken)
 * ends in a denial that says so: a host that cannot ask must not be let
 * through by an error.
 */
import { redact } from "../core/redact.ts";
import type { Policy } from "../policy/schema.ts";
import { toCall, shownVerdict, type CallInput, type JudgmentLike } from "./call.ts";
import { describeWho } from "./decision.ts";
import { short } from "./digest.ts";
import { dueAt, expiryRecords } from "./expiry.ts";
import { journalPath, transact, type NewRecord } from "./journal.ts";
import { latestTaskFor, standingApproval, tasksForCall, unusedOnce, type Cover } from "./scopes.ts";
import { fold, statusOf, type TaskEntry } from "./state.ts";
import { approvalTask, callKey, type ApprovalOption, type Call, type PriorCall } from "./task.ts";

type HostAskContext = {
  policy: Policy;
  env?: Record<string, string | undefined>;
  /** What ran before in this session, when the adapter knows (from the transcript). */
  before?: PriorCall[];
  now?: () => Date;
  /** The journal to use; `$XDG_STATE_HOME/verdict/approvals.jsonl` by default. */
  journal?: string;
  /** The longest to wait for the journal's lock. A hook keeps it well below its own deadline. */
  lockWaitMs?: number;
};

/** How long a hook waits for the journal's lock by default: appends hold it for milliseconds. */
const HOOK_LOCK_WAIT_MS = 2000;

type HostAskResult =
  | { decision: "allow"; reason: string; task: string; digest: string; scope: "once" | "task" | "run"; by: string }
  | { decision: "deny"; reason: string; task?: string; digest?: string };

/** Whether an ask on `host` should become an approval task under `policy`. */
export function hostCannotAsk(host: string, policy: Policy): boolean {
  return (policy.approvals.hosts_that_cannot_ask as readonly string[]).includes(host);
}

/** The options a shell call's task offers. */
export function optionsFor(call: Call): ApprovalOption[] {
  // A command that carries a secret cannot be approved "always": the rule would have to hold the secret.
  const always = call.tool === "shell" && call.program !== "(none)" && redact(call.command) === call.command;
  return always ? ["once", "task", "run", "always"] : ["once", "task", "run"];
}

function approveCommand(id: string): string {
  return `verdict approvals approve ${short(id)}`;
}

function allowed(cover: Cover, call: Call): { append: NewRecord[]; result: HostAskResult } {
  const { entry, scope } = cover;
  const by = describeWho(entry.decision!.by);
  return {
    append: [{ kind: "grant.used", body: { id: entry.task.id, session: call.session, call: callKey(call) } }],
    result: {
      decision: "allow",
      reason: `approved by ${by} (scope ${scope}, task ${short(entry.task.id)})`,
      task: entry.task.id,
      digest: entry.task.digest,
      scope,
      by,
    },
  };
}

function waiting(line: string, entry: TaskEntry, opened: boolean): HostAskResult {
  const id = short(entry.task.id);
  const state = opened ? "It now waits" : "It is still waiting";
  return {
    decision: "deny",
    reason: `${line} — this needs a person's approval. ${state} as approval task ${id} (until ${entry.task.due_at}). To allow it, run: ${approveCommand(entry.task.id)} — then retry the same command.`,
    task: entry.task.id,
    digest: entry.task.digest,
  };
}

/**
 * The decision for an ask on a host that cannot ask. Synchronous: it reads
 * and appends to the journal under its lock and returns at once.
 */
export function hostAsk(input: CallInput, judgment: JudgmentLike, context: HostAskContext): HostAskResult {
  const env = context.env ?? process.env;
  const now = (context.now ?? (() => new Date()))();
  const call = toCall(input, judgment);
  try {
    return transact(
      context.journal ?? journalPath(env),
      (records) => {
        const state = fold(records);
        const settled = expiryRecords(state, now);
        const done = (more: NewRecord[], result: HostAskResult) => ({ append: [...settled, ...more], result });
        const standing = standingApproval(state, call) ?? unusedOnce(state, call);
        if (standing) {
          const { append, result } = allowed(standing, call);
          return done(append, result);
        }
        const latest = latestTaskFor(state, call);
        if (latest) {
          const status = statusOf(latest, now);
          if (status === "open") return done([], waiting(judgment.line, latest, false));
          if ((status === "rejected" || status === "expired") && !latest.told) {
            const d = latest.decision!;
            const why =
              status === "expired"
                ? "nobody approved it before its deadline"
                : `${describeWho(d.by)} rejected it: ${d.reason ?? "no reason given"}`;
            return done([{ kind: "refusal.told", body: { id: latest.task.id } }], {
              decision: "deny",
              reason: `${judgment.line} — ${why} (approval task ${short(latest.task.id)}). Retrying the same command opens a new approval task.`,
              task: latest.task.id,
              digest: latest.task.digest,
            });
          }
        }
        const task = approvalTask(call, shownVerdict(judgment), context.before ?? [], optionsFor(call), {
          openedAt: now,
          dueAt: dueAt(context.policy, now),
          batched: false,
          n: tasksForCall(state, call),
        });
        const entry: TaskEntry = { task, seq: records.length, withdrawn: false, used: 0, told: false };
        return done([{ kind: "task.opened", body: { task } }], waiting(judgment.line, entry, true));
      },
      () => now,
      context.lockWaitMs ?? HOOK_LOCK_WAIT_MS,
    );
  } catch (error) {
    return {
      decision: "deny",
      reason: `${judgment.line} — it needs a person's approval, but the approvals journal cannot be used: ${(error as Error).message}`,
    };
  }
}
