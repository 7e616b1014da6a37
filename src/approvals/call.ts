/** Building the call and the shown verdict from what the judge returned. */
import type { Call, ShownVerdict } from "./task.ts";

/** The parts of a judge's CommandJudgment that a task records. */
export type JudgmentLike = {
  verdict: string;
  line: string;
  answerer: string;
  answers?: unknown;
  rule?: { id: string; reason: string; command?: { name?: string } };
  executed?: readonly { name?: string; program?: string }[];
  policyDigest: string;
};

export function shownVerdict(judgment: JudgmentLike): ShownVerdict {
  return JSON.parse(
    JSON.stringify({
      verdict: judgment.verdict,
      line: judgment.line,
      answerer: judgment.answerer,
      policy_digest: judgment.policyDigest,
      ...(judgment.rule ? { rule: { id: judgment.rule.id, reason: judgment.rule.reason } } : {}),
      ...(judgment.answers !== undefined ? { answers: judgment.answers } : {}),
    }),
  ) as ShownVerdict;
}

/** The program a call runs: the command the deciding rule matched, else the first executed one, else the first word. */
export function programOf(command: string, judgment?: JudgmentLike): string {
  const fromRule = judgment?.rule?.command?.name;
  if (fromRule) return fromRule;
  const first = judgment?.executed?.[0];
  if (first?.name) return first.name;
  const word = command.trim().split(/\s+/)[0] ?? "";
  return word.split("/").pop() || word || "(none)";
}

export type CallInput = {
  command: string;
  cwd: string;
  host: string;
  /** The host's session id or the run id; without one, the host and directory stand for it. */
  session?: string;
  task?: string;
  tool?: string;
  program?: string;
};

export function toCall(input: CallInput, judgment?: JudgmentLike): Call {
  const session = input.session && input.session.trim() ? input.session : `${input.host}:${input.cwd}`;
  return {
    tool: input.tool ?? "shell",
    command: input.command,
    cwd: input.cwd,
    program: input.program ?? programOf(input.command, judgment),
    host: input.host,
    session,
    ...(input.task ? { task: input.task } : {}),
  };
}
