/**
 * A person's decision on a task: approve (with a note), reject (with the
 * reason the model is told), or a question's answer; who decided and through
 * which channel; how far an approval reaches; and the digest of the task as
 * it was shown. An expiry is a refusal nobody made: it has no `by`.
 */
import { userInfo } from "node:os";
import { SCOPES, taskIntact, type Scope, type Task } from "./task.ts";

/** Where a decision came from: the inline prompt, `verdict approvals`, or a host's own channel. */
export type Channel = "terminal" | "command-line" | "host";
const CHANNELS: readonly Channel[] = ["terminal", "command-line", "host"];

/**
 * Who decided. `asserted`: typed by whoever could reach this machine's
 * journal, named as git names them in the project; `connected`: a host's
 * channel answered, and the name is the channel's, not a person's.
 */
export type Who = { name: string; basis: "asserted" | "connected"; via: Channel };

export type Outcome = "approved" | "rejected" | "answered" | "expired";

/** Where an "always" approval wrote its rule. */
/** Where an "always" rule was written, and the folder it applies in (its match.where). */
export type AlwaysRule = { layer: "user" | "repo"; file: string; rule_id: string; where?: string };

export type Decision = {
  outcome: Outcome;
  /** null for an expiry: nobody decided. */
  by: Who | null;
  scope: Scope;
  note?: string;
  reason?: string;
  /** A question's answer. */
  text?: string;
  always?: AlwaysRule;
  /** The digest of the task as it was shown: what this decision covers. */
  reviewed: string;
  at: string;
};

/** Why a decision cannot be recorded. */
type Refusal = { code: "CALL-CHANGED" | "USAGE"; message: string };

const EXPIRY_REASON = "nobody decided before its deadline";

export function approve(task: Task, by: Who, options: { scope?: Scope; note?: string; always?: AlwaysRule }, now: Date): Decision {
  return {
    outcome: "approved",
    by,
    scope: options.scope ?? "once",
    ...(options.note ? { note: options.note } : {}),
    ...(options.always ? { always: options.always } : {}),
    reviewed: task.digest,
    at: now.toISOString(),
  };
}

export function reject(task: Task, by: Who, reason: string, now: Date): Decision {
  return { outcome: "rejected", by, scope: "once", reason, reviewed: task.digest, at: now.toISOString() };
}

export function answer(task: Task, by: Who, text: string, now: Date): Decision {
  return { outcome: "answered", by, scope: "once", text, reviewed: task.digest, at: now.toISOString() };
}

export function expire(task: Task, now: Date): Decision {
  return {
    outcome: "expired",
    by: null,
    scope: "once",
    reason: `${EXPIRY_REASON} (${task.due_at})`,
    reviewed: task.digest,
    at: now.toISOString(),
  };
}

/**
 * Whether `task` may be decided now by a person who was shown `shownDigest`
 * (any prefix of at least 8 characters; none when the person gave none).
 * A task whose recorded facts no longer hash to its digest, or whose digest
 * is not the one shown, has changed since it was shown.
 */
export function refusalFor(task: Task, shownDigest: string | undefined, kind: "approve" | "reject" | "answer"): Refusal | undefined {
  if (!taskIntact(task)) {
    return {
      code: "CALL-CHANGED",
      message: `task ${task.id.slice(0, 12)} changed since it was recorded: its facts no longer match its digest ${task.digest.slice(0, 12)}`,
    };
  }
  if (shownDigest !== undefined) {
    const wanted = shownDigest.toLowerCase();
    if (wanted.length < 8 || !/^[0-9a-f]+$/.test(wanted))
      return { code: "USAGE", message: "--digest takes at least 8 hex characters of the digest you were shown" };
    if (!task.digest.startsWith(wanted)) {
      return {
        code: "CALL-CHANGED",
        message: `the call changed since it was shown: task ${task.id.slice(0, 12)} has digest ${task.digest.slice(0, 12)}, you were shown ${wanted.slice(0, 12)}`,
      };
    }
  }
  if (kind === "answer" && task.kind !== "question")
    return { code: "USAGE", message: `task ${task.id.slice(0, 12)} is an approval, not a question: approve or reject it` };
  if (kind === "approve" && task.kind === "question")
    return {
      code: "USAGE",
      message: `task ${task.id.slice(0, 12)} is a question: answer it with verdict approvals answer ${task.id.slice(0, 12)} TEXT`,
    };
  return undefined;
}

/** Whether a recorded decision is bound to this task as it is recorded now. */
export function bindsTo(decision: Decision, task: Task): boolean {
  return decision.reviewed === task.digest && taskIntact(task);
}

/** The name git gives in the project at `cwd`; the account name where git has none. */
function deciderName(cwd: string, env: Record<string, string | undefined> = process.env): string {
  try {
    // Required here, not imported: loading node:child_process costs ~2 ms at every hook's start.
    const { spawnSync } = require("node:child_process") as typeof import("node:child_process");
    const result = spawnSync("git", ["config", "user.name"], { cwd, encoding: "utf8", env: env as NodeJS.ProcessEnv, timeout: 3000 });
    const name = result.status === 0 ? result.stdout.trim() : "";
    if (name) return name.slice(0, 256);
  } catch {
    // no git, or cwd is gone: fall back to the account
  }
  try {
    return env.USER || env.USERNAME || userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}

export function who(cwd: string, via: Channel, env?: Record<string, string | undefined>): Who {
  return { name: deciderName(cwd, env), basis: "asserted", via };
}

/** A decision read from the journal, checked; undefined when its shape is not one verdict writes. */
export function parseDecision(value: unknown): Decision | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const d = value as Record<string, unknown>;
  if (!["approved", "rejected", "answered", "expired"].includes(d.outcome as string)) return undefined;
  if (!SCOPES.includes(d.scope as Scope)) return undefined;
  if (typeof d.reviewed !== "string" || typeof d.at !== "string") return undefined;
  if (d.outcome === "expired") {
    if (d.by !== null) return undefined;
  } else {
    const by = d.by as Record<string, unknown> | null;
    if (!by || typeof by.name !== "string" || by.name === "") return undefined;
    if (by.basis !== "asserted" && by.basis !== "connected") return undefined;
    if (!CHANNELS.includes(by.via as Channel)) return undefined;
  }
  return d as unknown as Decision;
}

/** "dana (asserted, command-line)", or "nobody (expired)". */
export function describeWho(by: Who | null): string {
  return by ? `${by.name} (${by.basis}, ${by.via})` : "nobody (expired)";
}
