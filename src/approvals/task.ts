/**
 * Approval and question tasks. A task holds only recorded facts: the call
 * exactly as the person is shown it, the verdict's line and answers, where
 * the call came from and what ran before it. Its digest is computed over
 * those facts alone, so reading the task back from the journal rebuilds the
 * same digest byte for byte, and a decision bound to it covers exactly what
 * was shown.
 *
 * Trust: `summary` and `verdict` are verdict's own words. Everything under
 * `action` (the command, a question) was written by the model and is shown
 * as such, never folded into the summary.
 */
import { redact } from "../core/redact.ts";
import { DOMAIN, digestOf, short } from "./digest.ts";

export const SCOPES = ["once", "task", "run"] as const;
/** How far an approval reaches: this call; later identical calls in this task; in this run or session. */
export type Scope = (typeof SCOPES)[number];
export type ApprovalOption = Scope | "always";

/** A call as verdict sees it when it needs a person. */
export type Call = {
  /** The tool the assistant called: `shell` for a command line. */
  tool: string;
  /** The command line, exactly as it would run. */
  command: string;
  /** The working directory it would run in. */
  cwd: string;
  /** The program the command runs (the first executed command's name). */
  program: string;
  /** Who asked: `run` for `verdict run`, or a host name (codex, claude, gemini, cursor). */
  host: string;
  /** The run id or the host's session id. */
  session: string;
  /** The task within the session, where the caller has one; the session otherwise. */
  task?: string;
};

/** The verdict as it was shown: the line, the answers it came from, the rule and the policy. */
export type ShownVerdict = {
  verdict: string;
  line: string;
  answerer: string;
  policy_digest: string;
  rule?: { id: string; reason: string };
  answers?: unknown;
};

/** A call that ran (or was refused) earlier in the same session. */
export type PriorCall = { command: string; outcome: string };

type Common = {
  v: 1;
  summary: string;
  host: string;
  session: string;
  task?: string;
  opened_at: string;
  due_at: string;
  on_expiry: "deny";
  /** The run's prompt budget was spent: the task waits in the run's batch instead of interrupting. */
  batched: boolean;
  /** How many tasks the same call (or question) had in this session before this one. */
  n: number;
};

export type ApprovalFacts = Common & {
  kind: "approval";
  /**
   * The command as a person is shown it, with any secret it carries masked. When masking changed it,
   * `call_key` is the key of the exact command, so the task's digest (and a decision bound to it)
   * covers exactly the call that was asked for, and only that call finds the task again.
   */
  action: { tool: string; program: string; command: string; cwd: string; call_key?: string };
  verdict: ShownVerdict;
  before: PriorCall[];
  options: ApprovalOption[];
};

type QuestionFacts = Common & {
  kind: "question";
  action: { question: string; cwd: string };
};

type TaskFacts = ApprovalFacts | QuestionFacts;

/** A task as the journal holds it: the facts, their digest and the id derived from them. */
export type Task = TaskFacts & { id: string; digest: string };

/** The most earlier calls a task carries, and how much of each command. */
const BEFORE_KEPT = 10;
const BEFORE_CHARS = 2000;

/** The identity of a call for scopes and for finding its task again: same tool, program, command and directory. */
export function callKey(call: Pick<Call, "tool" | "program" | "command" | "cwd">): string {
  return digestOf(DOMAIN.call, { tool: call.tool, program: call.program, command: call.command, cwd: call.cwd });
}

/** The key of the exact call a task's action stands for (its command may be shown masked). */
export function actionKey(action: ApprovalFacts["action"]): string {
  return action.call_key ?? callKey(action);
}

/** The key of a task's subject: its call, or its question. */
function subjectKey(facts: TaskFacts): string {
  return facts.kind === "approval"
    ? actionKey(facts.action)
    : digestOf(DOMAIN.call, { question: facts.action.question, cwd: facts.action.cwd });
}

/** The digest a decision is bound to: SHA-256 over the canonical JSON of the recorded facts only. */
export function taskDigest(facts: TaskFacts): string {
  const { id: _id, digest: _digest, ...only } = facts as Task;
  return digestOf(DOMAIN.task, only);
}

/** The id is derived, not minted: the same call in the same session finds the same task again. */
export function taskId(session: string, subject: string, n: number): string {
  return digestOf(DOMAIN.taskId, { session, subject, n });
}

function sealTask(facts: TaskFacts): Task {
  return { ...facts, id: taskId(facts.session, subjectKey(facts), facts.n), digest: taskDigest(facts) };
}

type Timing = { openedAt: Date; dueAt: Date; batched: boolean; n: number };

export function approvalTask(call: Call, verdict: ShownVerdict, before: PriorCall[], options: ApprovalOption[], timing: Timing): Task {
  const where = call.host === "run" ? `verdict run ${short(call.session, 8)}` : `${call.host} session ${short(call.session, 8)}`;
  const facts: ApprovalFacts = {
    v: 1,
    kind: "approval",
    summary: `A ${call.tool} call from ${where} waits for a person (verdict: ${verdict.verdict}).`,
    host: call.host,
    session: call.session,
    ...(call.task !== undefined && call.task !== call.session ? { task: call.task } : {}),
    opened_at: timing.openedAt.toISOString(),
    due_at: timing.dueAt.toISOString(),
    on_expiry: "deny",
    batched: timing.batched,
    n: timing.n,
    action: maskedAction(call),
    verdict: stripUndefined({ ...verdict, line: redact(verdict.line) }),
    before: before
      .slice(-BEFORE_KEPT)
      .map((prior) => ({ command: redact(prior.command.slice(0, BEFORE_CHARS)), outcome: redact(prior.outcome) })),
    options,
  };
  return sealTask(facts);
}

/** The action as stored: the command masked, bound to the exact call by its key when masking changed it. */
function maskedAction(call: Call): ApprovalFacts["action"] {
  const command = redact(call.command);
  const action = { tool: call.tool, program: call.program, command, cwd: call.cwd };
  return command === call.command ? action : { ...action, call_key: callKey(call) };
}

type QuestionFrom = { host: string; session: string; task?: string; cwd: string };

export function questionTask(from: QuestionFrom, question: string, timing: Timing): Task {
  const where = from.host === "run" ? `verdict run ${short(from.session, 8)}` : `${from.host} session ${short(from.session, 8)}`;
  const facts: QuestionFacts = {
    v: 1,
    kind: "question",
    summary: `The assistant in ${where} asks a question.`,
    host: from.host,
    session: from.session,
    ...(from.task !== undefined && from.task !== from.session ? { task: from.task } : {}),
    opened_at: timing.openedAt.toISOString(),
    due_at: timing.dueAt.toISOString(),
    on_expiry: "deny",
    batched: timing.batched,
    n: timing.n,
    action: { question: redact(question), cwd: from.cwd },
  };
  return sealTask(facts);
}

/** The task a call's scope ends with: the caller's task, or the session when it has none. */
export function taskOf(x: { session: string; task?: string }): string {
  return x.task ?? x.session;
}

/** A task read back is intact when its id and digest are those of its facts. */
export function taskIntact(task: Task): boolean {
  return task.digest === taskDigest(task) && task.id === taskId(task.session, subjectKey(task), task.n);
}

/** JSON round trip of plain data: drops undefined fields so the digest is the same before and after the journal. */
function stripUndefined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
