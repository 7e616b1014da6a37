/**
 * The evidence of a run: what was asked, every response and every call with
 * its checks, receipt and observed effects, and the outcome. It is written
 * atomically (a temporary file in the same directory, flushed, then renamed)
 * to $XDG_STATE_HOME/verdict/runs/, after every step and once more at the
 * end, so an interrupted run still leaves a whole document behind.
 */
import { stateDir } from "../files/dirs.ts";
import { redactDeep } from "../core/redact.ts";
import { writePrivateAtomic } from "../files/private.ts";
import { join } from "node:path";
import type { EffectDiff } from "./fingerprint.ts";
import type { Outcome } from "./outcome.ts";

/** Characters of model text and tool output kept in the evidence per field. */
const PREVIEW_CHARS = 2000;

type ResponseStep = {
  kind: "response";
  turn: number;
  at: string;
  durationMs: number;
  httpStatus: number;
  id?: string;
  finishReason: string | null;
  handler?: string;
  content: string;
  toolCalls: { id: string; name: string; command: string }[];
  toolRefusal?: string;
  /** The server's reply to a refusal: recorded, never acted on. */
  afterRefusal?: boolean;
};

type RequestFailureStep = {
  kind: "request-failed";
  turn: number;
  at: string;
  durationMs: number;
  reason: string;
  message: string;
  httpStatus?: number;
  body?: string;
  afterRefusal?: boolean;
};

export type Check = { name: string; passed: boolean; detail: string; [key: string]: unknown };

export type ToolStep = {
  kind: "tool";
  turn: number;
  call: number;
  id: string;
  command: string;
  /** ran: it was executed; refused: a check stopped it; not-run: an earlier call in the turn ended the run. */
  decision: "ran" | "refused" | "not-run";
  /** Every check in order, the failing one last when it was refused. */
  checks: Check[];
  argv?: string[];
  effectClass?: "read" | "write" | "unknown";
  act?: string;
  targets?: unknown[];
  receipt?: Record<string, unknown>;
  stdout?: string;
  stderr?: string;
  effects?: EffectDiff;
  /** A read that changed the working directory. */
  unexpectedEffects?: boolean;
  verification?: unknown;
  /** The tool message sent back (or that would have been). */
  toolResult?: string;
};

export type Evidence = {
  version: number;
  kind: "verdict-run";
  runId: string;
  request: string;
  cwd: string;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  endpoint: string;
  model: string;
  keyEnv: string;
  keySent: boolean;
  policyDigest: string;
  effectsMode: string;
  bounds: Record<string, unknown>;
  fingerprint: { initial: FingerprintSummary | null; final: FingerprintSummary | null };
  steps: (ResponseStep | RequestFailureStep | ToolStep)[];
  /** The net change to the working directory over the whole run. */
  effects: EffectDiff;
  finalAnswer: string | null;
  outcome: Outcome | null;
  evidencePath: string;
};

type FingerprintSummary = { entries: number; complete: boolean; digest: string; problems: string[] };

export function runsDir(env: Record<string, string | undefined>): string {
  return join(stateDir(env), "runs");
}

/** `runs/2026-11-29T15-20-52Z-<run id>.json`: sorts by time, unique by id. */
export function evidencePath(dir: string, runId: string, startedAt: Date): string {
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
  return join(dir, `${stamp}-${runId}.json`);
}

export function writeEvidence(evidence: Evidence): void {
  // Tool calls, their output and the model's messages can carry secrets: the evidence keeps none.
  writePrivateAtomic(evidence.evidencePath, `${JSON.stringify(redactDeep(evidence), null, 2)}\n`, { sync: true });
}

/** The first PREVIEW_CHARS characters, with a count of the rest. */
export function preview(text: string, chars = PREVIEW_CHARS): string {
  const all = [...text];
  if (all.length <= chars) return text;
  return `${all.slice(0, chars).join("")}… [${all.length - chars} more chars]`;
}
