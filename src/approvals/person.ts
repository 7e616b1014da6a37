/**
 * Asks in `verdict run`: a call the judge says needs a person. An identical
 * call already approved for this task or run goes through. Otherwise the
 * call's approval task is opened; at a terminal, within the run's prompt
 * budget, the person is asked inline; past the budget, or without a
 * terminal, the run prints the task's id and the command that decides it and
 * waits until someone decides or the task expires.
 */
import { statSync } from "node:fs";
import type { Policy } from "../policy/schema.ts";
import { alwaysSupported } from "./always.ts";
import { shownVerdict, toCall, type CallInput, type JudgmentLike } from "./call.ts";
import { decideTask, type DecideRequest } from "./decide.ts";
import { bindsTo, describeWho, type Decision, type Who } from "./decision.ts";
import { short } from "./digest.ts";
import { dueAt, expiryRecords } from "./expiry.ts";
import { optionsFor } from "./host.ts";
import { journalPath, readJournal, transact, type NewRecord } from "./journal.ts";
import { promptApproval, promptQuestion, type PromptAnswer, type Terminal } from "./prompt.ts";
import { decideCommands } from "./render.ts";
import { latestTaskFor, standingApproval, tasksForCall } from "./scopes.ts";
import { fold, statusOf, type State, type TaskEntry } from "./state.ts";
import { approvalTask, callKey, questionTask, type PriorCall, type Scope, type Task } from "./task.ts";

/** How many inline prompts a run has shown; one per run, shared by its calls. */
export type PromptBudget = { used: number };

export type AskContext = {
  policy: Policy;
  env?: Record<string, string | undefined>;
  /** A person at a terminal, when there is one. */
  terminal?: Terminal;
  budget: PromptBudget;
  /** Progress lines for the person (the id and the command that decides a waiting task). */
  notify?: (line: string) => void;
  /** Ends the wait (the run was cancelled); the task stays open until its run ends. */
  signal?: AbortSignal;
  before?: PriorCall[];
  now?: () => Date;
  /** How often a waiting run looks at the journal. */
  pollMs?: number;
};

type AskOutcome = {
  decision: "allow" | "deny";
  /** For the model and the evidence: who decided what, or why not. */
  reason: string;
  task?: { id: string; digest: string };
  by?: Who | null;
  scope?: Scope;
  note?: string;
  expired?: boolean;
  /** How the decision came: an approval already standing, the inline prompt, or the journal after waiting. */
  via: "standing-approval" | "terminal" | "journal" | "cancelled" | "error";
};

const POLL_MS = 250;

function outcomeOf(entry: TaskEntry, decision: Decision, via: AskOutcome["via"]): AskOutcome {
  const task = { id: entry.task.id, digest: entry.task.digest };
  const who = describeWho(decision.by);
  if (!bindsTo(decision, entry.task)) {
    return {
      decision: "deny",
      reason: `the decision on task ${short(entry.task.id)} does not cover the call as it was shown (digest changed); refused`,
      task,
      by: decision.by,
      via,
    };
  }
  if (decision.outcome === "approved" || decision.outcome === "answered") {
    return {
      decision: "allow",
      reason: `approved by ${who} (scope ${decision.scope}, task ${short(entry.task.id)}, digest ${short(entry.task.digest)})${decision.note ? `; note: ${decision.note}` : ""}`,
      task,
      by: decision.by,
      scope: decision.scope,
      ...(decision.note ? { note: decision.note } : {}),
      via,
    };
  }
  if (decision.outcome === "expired") {
    return {
      decision: "deny",
      reason: `nobody approved it before its deadline (task ${short(entry.task.id)})`,
      task,
      by: null,
      expired: true,
      via,
    };
  }
  return {
    decision: "deny",
    reason: `rejected by ${who}: ${decision.reason ?? "no reason given"} (task ${short(entry.task.id)})`,
    task,
    by: decision.by,
    via,
  };
}

/** Opens a task with `build` unless one is open for the same subject, under the lock; settles overdue tasks on the way. */
function openTask(path: string, now: Date, find: (state: State) => TaskEntry | undefined, build: (state: State) => Task): TaskEntry {
  return transact(
    path,
    (records) => {
      const state = fold(records);
      const settled = expiryRecords(state, now);
      const existing = find(state);
      if (existing && statusOf(existing, now) === "open") return { append: settled, result: existing };
      const task = build(state);
      const entry: TaskEntry = { task, seq: records.length, withdrawn: false, used: 0, told: false };
      return { append: [...settled, { kind: "task.opened", body: { task } }], result: entry };
    },
    () => now,
  );
}

/** Waits until the task is decided, expires or is withdrawn, reading the journal whenever it changes. */
async function waitForDecision(
  path: string,
  id: string,
  context: { now?: () => Date; pollMs?: number; signal?: AbortSignal },
): Promise<TaskEntry | undefined> {
  const clock = context.now ?? (() => new Date());
  let seen = "";
  let entry: TaskEntry | undefined;
  for (;;) {
    if (context.signal?.aborted) return undefined;
    let mark = "";
    try {
      const stat = statSync(path);
      mark = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      mark = "none";
    }
    if (mark !== seen || !entry) {
      seen = mark;
      entry = fold(readJournal(path).records).tasks.get(id);
      if (!entry) return undefined;
    }
    const status = statusOf(entry, clock());
    if (status !== "open") {
      if (status === "expired" && !entry.decision) {
        // Record the expiry (or find the decision that beat it) under the lock.
        const now = clock();
        return transact(
          path,
          (records) => {
            const state = fold(records);
            return { append: expiryRecords(state, now), result: state.tasks.get(id) };
          },
          () => now,
        );
      }
      return entry;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, context.pollMs ?? POLL_MS);
      context.signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

function recordPromptAnswer(
  path: string,
  entry: TaskEntry,
  answer: PromptAnswer,
  context: AskContext,
): { entry: TaskEntry; decision: Decision } | undefined {
  if (answer.kind === "later") return undefined;
  const request: DecideRequest =
    answer.kind === "approve"
      ? {
          kind: "approve",
          scope: answer.scope,
          ...(answer.note ? { note: answer.note } : {}),
          ...(answer.always ? { always: true, layer: answer.always.layer } : {}),
        }
      : answer.kind === "reject"
        ? { kind: "reject", reason: answer.reason }
        : { kind: "answer", text: answer.text };
  const result = decideTask(request, {
    journal: path,
    id: entry.task.id,
    shownDigest: entry.task.digest,
    via: "terminal",
    policy: context.policy,
    ...(context.env ? { env: context.env } : {}),
    ...(context.now ? { now: context.now } : {}),
  });
  if (result.ok) return { entry: result.entry, decision: result.decision };
  context.notify?.(`verdict: ${result.message}`);
  return undefined;
}

/** Marks the approval a waiting call used, so a `once` approval is spent. */
function use(path: string, entry: TaskEntry, session: string, key: string, now: Date): void {
  transact(
    path,
    () => ({ append: [{ kind: "grant.used", body: { id: entry.task.id, session, call: key } } satisfies NewRecord], result: undefined }),
    () => now,
  );
}

/** The decision on a call that the judge says needs a person, in `verdict run`. */
export async function askPerson(input: CallInput, judgment: JudgmentLike, context: AskContext): Promise<AskOutcome> {
  const env = context.env ?? process.env;
  const path = journalPath(env);
  const clock = context.now ?? (() => new Date());
  const call = toCall(input, judgment);
  const notify = context.notify ?? ((line: string) => process.stderr.write(`${line}\n`));
  try {
    const now = clock();
    const standing = transact(
      path,
      (records) => {
        const state = fold(records);
        const settled = expiryRecords(state, now);
        const cover = standingApproval(state, call);
        const append: NewRecord[] = [...settled];
        if (cover) append.push({ kind: "grant.used", body: { id: cover.entry.task.id, session: call.session, call: callKey(call) } });
        return { append, result: cover };
      },
      () => now,
    );
    if (standing) return { ...outcomeOf(standing.entry, standing.entry.decision!, "standing-approval"), scope: standing.scope };

    const budget = context.policy.approvals.prompts_per_run;
    const prompting = context.terminal !== undefined && context.budget.used < budget;
    const entry = openTask(
      path,
      now,
      (state) => latestTaskFor(state, call),
      (state) =>
        approvalTask(call, shownVerdict(judgment), context.before ?? [], optionsFor(call), {
          openedAt: now,
          dueAt: dueAt(context.policy, now),
          batched: !prompting,
          n: tasksForCall(state, call),
        }),
    );
    if (prompting && context.terminal) {
      context.budget.used++;
      const answer = await promptApproval(
        context.terminal,
        entry,
        clock(),
        context.policy.approvals.always_layer,
        entry.task.kind === "approval" && entry.task.options.includes("always") && alwaysSupported(),
      );
      const recorded = recordPromptAnswer(path, entry, answer, context);
      if (recorded) {
        const outcome = outcomeOf(recorded.entry, recorded.decision, "terminal");
        if (outcome.decision === "allow") use(path, recorded.entry, call.session, callKey(call), clock());
        return outcome;
      }
    } else if (context.terminal !== undefined) {
      notify(`verdict: ${budget} prompt${budget === 1 ? "" : "s"} used in this run; this call waits in the run's batch.`);
    }
    return await waitOn(path, entry, call.session, callKey(call), context, notify);
  } catch (error) {
    return {
      decision: "deny",
      reason: `it needs a person's approval, but the approvals journal cannot be used: ${(error as Error).message}`,
      via: "error",
    };
  }
}

async function waitOn(
  path: string,
  entry: TaskEntry,
  session: string,
  key: string,
  context: AskContext,
  notify: (line: string) => void,
): Promise<AskOutcome> {
  notify(
    `verdict: waiting for a person to decide approval task ${short(entry.task.id)} (digest ${short(entry.task.digest)}, until ${entry.task.due_at}). From another shell:`,
  );
  for (const command of decideCommands(entry)) notify(`  ${command}`);
  const decided = await waitForDecision(path, entry.task.id, context);
  if (!decided)
    return {
      decision: "deny",
      reason: `the run was cancelled while task ${short(entry.task.id)} waited`,
      task: { id: entry.task.id, digest: entry.task.digest },
      via: "cancelled",
    };
  if (decided.withdrawn)
    return {
      decision: "deny",
      reason: `task ${short(entry.task.id)} was withdrawn: its run ended`,
      task: { id: entry.task.id, digest: entry.task.digest },
      via: "journal",
    };
  const outcome = outcomeOf(decided, decided.decision!, "journal");
  if (outcome.decision === "allow" && entry.task.kind === "approval")
    use(path, decided, session, key, (context.now ?? (() => new Date()))());
  return outcome;
}

type QuestionOutcome =
  | { answered: true; text: string; by: Who; task: { id: string; digest: string } }
  | { answered: false; reason: string; expired?: boolean; task?: { id: string; digest: string } };

/** Puts a question from the assistant to a person: inline at a terminal within budget, else as a task that waits. */
export async function askQuestion(
  from: { host?: string; session: string; task?: string; cwd: string },
  question: string,
  context: AskContext,
): Promise<QuestionOutcome> {
  const env = context.env ?? process.env;
  const path = journalPath(env);
  const clock = context.now ?? (() => new Date());
  const notify = context.notify ?? ((line: string) => process.stderr.write(`${line}\n`));
  const origin = { host: from.host ?? "run", session: from.session, ...(from.task ? { task: from.task } : {}), cwd: from.cwd };
  try {
    const now = clock();
    const prompting = context.terminal !== undefined && context.budget.used < context.policy.approvals.prompts_per_run;
    const entry = openTask(
      path,
      now,
      () => undefined,
      (state) => {
        const n = state.order.filter(
          (e) => e.task.kind === "question" && e.task.session === from.session && e.task.action.question === question,
        ).length;
        return questionTask(origin, question, { openedAt: now, dueAt: dueAt(context.policy, now), batched: !prompting, n });
      },
    );
    let decided: TaskEntry | undefined;
    if (prompting && context.terminal) {
      context.budget.used++;
      const answer = await promptQuestion(context.terminal, entry, clock());
      decided = recordPromptAnswer(path, entry, answer, context)?.entry;
    }
    if (!decided) {
      notify(`verdict: the assistant's question waits as task ${short(entry.task.id)} (until ${entry.task.due_at}). From another shell:`);
      for (const command of decideCommands(entry)) notify(`  ${command}`);
      decided = await waitForDecision(path, entry.task.id, context);
    }
    const task = { id: entry.task.id, digest: entry.task.digest };
    const d = decided?.decision;
    if (!d)
      return { answered: false, reason: decided?.withdrawn ? "the run ended before anyone answered" : "cancelled while waiting", task };
    if (d.outcome === "answered" && d.by && bindsTo(d, decided!.task)) return { answered: true, text: d.text ?? "", by: d.by, task };
    if (d.outcome === "expired") return { answered: false, reason: "nobody answered before the deadline", expired: true, task };
    return { answered: false, reason: d.reason ?? "declined to answer", task };
  } catch (error) {
    return { answered: false, reason: `the approvals journal cannot be used: ${(error as Error).message}` };
  }
}

/** Ends a run: its task and run approvals stop applying, and its open tasks are withdrawn. */
export function endRun(session: string, env: Record<string, string | undefined> = process.env): void {
  transact(journalPath(env), () => ({ append: [{ kind: "run.ended", body: { session } }], result: undefined }));
}

/** Ends a task within a run: its task-scoped approvals stop applying. */
export function endTask(session: string, task: string, env: Record<string, string | undefined> = process.env): void {
  transact(journalPath(env), () => ({ append: [{ kind: "task.ended", body: { session, task } }], result: undefined }));
}
