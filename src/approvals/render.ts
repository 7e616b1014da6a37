/**
 * One rendering of a task for every surface (the inline prompt, `show`,
 * `list`). Text a model wrote is shown whole, never trimmed; characters that
 * could hide or reorder what a person reads (controls, bidirectional
 * overrides, zero-width characters) are shown as ⟦U+XXXX⟧ where they stand,
 * and words that mix Latin with Cyrillic or Greek letters are flagged.
 */
import { alwaysWhere } from "./always.ts";
import { describeWho, type Decision } from "./decision.ts";
import { short } from "./digest.ts";
import { statusOf, type TaskEntry } from "./state.ts";

const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;

/** `text` with hiding characters made visible; newlines and tabs as \n and \t so one line stays one line. */
export function visible(text: string): string {
  return text
    .replace(HIDDEN, (ch) => `⟦U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟧`)
    .replace(/\n/g, "⟦\\n⟧")
    .replace(/\t/g, "⟦\\t⟧");
}

/** Words that mix Latin letters with Cyrillic or Greek ones, which look alike. */
export function mixedScriptWords(text: string): string[] {
  return text.split(/\s+/).filter((word) => /\p{Script=Latin}/u.test(word) && /[\p{Script=Cyrillic}\p{Script=Greek}]/u.test(word));
}

export function relative(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86400) return `${(s / 3600).toFixed(1).replace(/\.0$/, "")}h`;
  return `${(s / 86400).toFixed(1).replace(/\.0$/, "")}d`;
}

export function describeDecision(decision: Decision): string {
  const parts = [`${decision.outcome} by ${describeWho(decision.by)} at ${decision.at}`];
  if (decision.outcome === "approved") parts.push(`scope ${decision.scope}`);
  if (decision.always)
    parts.push(
      `always: rule ${decision.always.rule_id} in ${decision.always.file} (${decision.always.layer} layer)${decision.always.where ? `, applies to this command in ${decision.always.where} and the folders inside it` : ""}`,
    );
  if (decision.note) parts.push(`note ${JSON.stringify(decision.note)}`);
  if (decision.reason) parts.push(`reason ${JSON.stringify(decision.reason)}`);
  if (decision.text !== undefined) parts.push(`answer ${JSON.stringify(decision.text)}`);
  parts.push(`covers digest ${short(decision.reviewed)}`);
  return parts.join("; ");
}

function answersLine(answers: unknown): string | undefined {
  const a = answers as { act?: { choice?: string; confidence?: number }; undo?: { score?: number }; load?: { score?: number } } | undefined;
  if (!a?.act?.choice) return undefined;
  const parts = [`act ${a.act.choice}${typeof a.act.confidence === "number" ? ` ${a.act.confidence.toFixed(2)}` : ""}`];
  if (typeof a.undo?.score === "number") parts.push(`undo ${a.undo.score.toFixed(2)}`);
  if (typeof a.load?.score === "number") parts.push(`load ${a.load.score.toFixed(2)}`);
  return parts.join(" · ");
}

/** Where a task came from, for a person. */
export function origin(entry: TaskEntry): string {
  const t = entry.task;
  const from = t.host === "run" ? `verdict run ${t.session}` : `${t.host} session ${t.session}`;
  return t.task ? `${from}, task ${t.task}` : from;
}

/** The full rendering of a task: what was shown, its digest, and its decision. */
export function renderTask(entry: TaskEntry, now: Date): string[] {
  const t = entry.task;
  const status = statusOf(entry, now);
  const due = Date.parse(t.due_at) - now.getTime();
  const lines = [
    `task ${short(t.id)}  ${t.kind}  ${status}${status === "open" ? ` (waits ${relative(due)} more, until ${t.due_at})` : ""}${t.batched ? "  [batched]" : ""}`,
  ];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(9)} ${value}`);
  row("summary", t.summary);
  if (t.kind === "approval") {
    row("command", `${visible(t.action.command)}   (written by the assistant)`);
    const mixed = mixedScriptWords(t.action.command);
    if (mixed.length > 0) row("warning", `mixes look-alike scripts: ${mixed.map(visible).join(", ")}`);
    row("program", visible(t.action.program));
    row("in", visible(t.action.cwd));
    row("tool", t.action.tool);
    row("verdict", `${t.verdict.verdict}: ${visible(t.verdict.line)}`);
    const answers = answersLine(t.verdict.answers);
    if (answers) row("answers", `${answers} (by ${t.verdict.answerer}, policy ${t.verdict.policy_digest})`);
    if (t.before.length === 0) row("before", "nothing ran before it in this session");
    t.before.forEach((prior, i) => row(i === 0 ? "before" : "", `${visible(prior.command)}  → ${visible(prior.outcome)}`));
    row("options", t.options.join(", "));
  } else {
    row("question", `${visible(t.action.question)}   (written by the assistant)`);
    row("in", visible(t.action.cwd));
  }
  row("from", origin(entry));
  row("opened", t.opened_at);
  row("digest", t.digest);
  row("id", t.id);
  if (entry.decision) row("decided", describeDecision(entry.decision));
  else if (status === "expired")
    row("decided", "expired: nobody decided before its deadline (recorded the next time verdict touches the journal)");
  else if (status === "withdrawn") row("decided", "withdrawn: its run ended before anyone decided");
  if (entry.used > 0) row("used", `${entry.used} call${entry.used === 1 ? "" : "s"} let through by this approval`);
  return lines;
}

/** The commands that decide a task, as a person would type them. */
export function decideCommands(entry: TaskEntry): string[] {
  const id = short(entry.task.id);
  if (entry.task.kind === "question") return [`verdict approvals answer ${id} "TEXT"`, `verdict approvals reject ${id} --reason "TEXT"`];
  const always = entry.task.options.includes("always")
    ? [`  (--always also writes a rule allowing exactly this command in ${alwaysWhere(entry.task.action.cwd)} and the folders inside it)`]
    : [];
  return [
    `verdict approvals approve ${id} [--scope once|task|run]${always.length ? " [--always]" : ""} [--note TEXT]`,
    ...always,
    `verdict approvals reject ${id} --reason "TEXT"`,
  ];
}

/** One line of a listing. */
export function listLine(entry: TaskEntry, now: Date): string {
  const t = entry.task;
  const status = statusOf(entry, now);
  const when = status === "open" ? `due ${relative(Date.parse(t.due_at) - now.getTime())}` : status;
  const what = t.kind === "approval" ? visible(t.action.command) : `question: ${visible(t.action.question)}`;
  const from = t.host === "run" ? `run ${short(t.session, 8)}` : `${t.host} ${short(t.session, 8)}`;
  return `${short(t.id)}  ${when.padEnd(10)}  ${from.padEnd(16)}  ${what}`;
}
