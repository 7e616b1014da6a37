/**
 * The decision log: one JSON object per judgment, appended to
 * `$XDG_STATE_HOME/verdict/decisions.jsonl` and rotated by size (policy
 * `log.max_size`, `log.keep`). Everything in a record has been redacted;
 * commands and messages are clipped to `log.text_chars`.
 */
import { readFileSync } from "node:fs";
import type { ChoiceAnswer, ScoreAnswer } from "../core/answers.ts";
import type { Policy } from "../policy/schema.ts";
import { bytes } from "../core/units.ts";
import { appendLine } from "./append.ts";
import { decisionLogPath, type Env } from "./paths.ts";

/** Why no model answered. The first three are by design; the rest are failures, the rules' verdict standing in. */
export type NotUsedKind =
  | "off" // rules only: the policy, VERDICT_MODE=rules, --rules-only, or auto without a key
  | "decided" // a rule decided the line outright
  | "unparsed" // the line cannot be parsed, so it is not allowed, whatever a model says
  | "no-key"
  | "timeout"
  | "network"
  | "http"
  | "malformed"
  | "labels"
  | "config"
  | "verdict-error"; // verdict itself failed (a broken policy, a malformed payload, no time left): nothing was judged

export const FAILURE_KINDS: readonly NotUsedKind[] = [
  "no-key",
  "timeout",
  "network",
  "http",
  "malformed",
  "labels",
  "config",
  "verdict-error",
];

export type ModelFacts = {
  provider: string;
  /** The model that answered, as the server reported it (or the pinned one). */
  model: string;
  cached: boolean;
  latency_ms: number;
  attempts: number;
  usage?: { input_tokens?: number; output_tokens?: number };
  request_ids?: string[];
  status?: number;
  note?: string;
};

export type DecisionRecord = {
  time: string;
  host?: string;
  event?: string;
  /** tool: a file, fetch or MCP tool call (judged like a command). */
  subject: "command" | "turn" | "tool";
  /** SHA-256 (shortened) of the redacted text judged: the same command has the same digest. */
  digest: string;
  /** The command, or the final message's end; redacted and clipped. */
  text: string;
  /** For a turn: the latest request, redacted and clipped. */
  request?: string;
  cwd?: string;
  verdict: "allow" | "pass" | "ask" | "deny";
  line: string;
  answerer: string;
  rule?: string;
  answers?: Record<string, ChoiceAnswer | ScoreAnswer>;
  /** What the rules said when a model answered instead, for comparison. */
  rules_verdict?: string;
  model_not_used?: string;
  model_not_used_kind?: NotUsedKind;
  /** What the model call was and cost; present whenever a model was asked (or its cached answer used). */
  model?: ModelFacts;
  /** From the start of verdict to the verdict. */
  latency_ms: number;
  policy_digest: string;
  available_mb?: number;
  /** A judgment made by verdict's own install / doctor checks, not for an agent (VERDICT_SELF_TEST=1). */
  self_test?: true;
};

/** Appends a record. Never throws: a log that cannot be written is reported on stderr, the judgment stands. */
export function logDecision(record: DecisionRecord, policy: Pick<Policy, "log">, env: Env = process.env): void {
  if (env.VERDICT_LOG === "off") return;
  if (env.VERDICT_SELF_TEST === "1") record = { ...record, self_test: true };
  try {
    appendLine(decisionLogPath(env), JSON.stringify(record), { maxBytes: bytes(policy.log.max_size), keep: policy.log.keep });
  } catch (error) {
    process.stderr.write(`verdict: cannot write the decision log ${decisionLogPath(env)}: ${(error as Error).message}\n`);
  }
}

/** The log's files, oldest first: decisions.jsonl.<n> ... .1, then decisions.jsonl. */
function logFiles(env: Env = process.env, keep = 20): string[] {
  const path = decisionLogPath(env);
  const files: string[] = [];
  for (let index = keep; index >= 1; index -= 1) files.push(`${path}.${index}`);
  files.push(path);
  return files;
}

/** Every record in the log, oldest first; lines that do not parse are skipped and counted. */
export function readDecisions(env: Env = process.env): { records: DecisionRecord[]; skipped: number } {
  const records: DecisionRecord[] = [];
  let skipped = 0;
  for (const file of logFiles(env)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        records.push(JSON.parse(line) as DecisionRecord);
      } catch {
        skipped += 1;
      }
    }
  }
  return { records, skipped };
}
