/** What the loop and each call share: the run's options, its state, and saving the evidence. */
import type { LoadedPolicy } from "../policy/load.ts";
import type { ChatMessage, ClientOptions } from "./client.ts";
import type { EffectContext, EffectsMode } from "./effects.ts";
import { writeEvidence, type Evidence } from "./evidence.ts";
import { describeEffects, type DigestCache, type EffectDiff } from "./fingerprint.ts";
import type { CancelSignal, Outcome } from "./outcome.ts";

export type TaskBounds = {
  maxToolCalls: number;
  runWithinMs: number;
  callWithinMs: number;
  requestWithinMs: number;
  graceMs: number;
  maxOutputBytes: number;
  maxFingerprintEntries: number;
  effects: EffectsMode;
};

export type TaskOptions = {
  runId: string;
  request: string;
  /** The working directory, links resolved. */
  cwd: string;
  /** The tool calls' environment (verdict's own, minus the key, plus the task's variables). */
  toolEnv: Record<string, string>;
  bounds: TaskBounds;
  client: ClientOptions;
  loaded: LoadedPolicy;
  /** Copy each call's output live to stderr. */
  mirror: boolean;
  interactive: boolean;
  /** A progress line for a person (silent under --json). */
  note: (line: string) => void;
  /** Aborted on SIGINT, SIGTERM or SIGHUP; `cancelSignal` says which. */
  signal: AbortSignal;
  cancelSignal: () => CancelSignal | undefined;
  /** `performance.now()` past which the run's time is spent. */
  deadline: number;
  evidence: Evidence;
};

/** A call's result: the run goes on with a tool message, or ends with an outcome. */
export type CallResult = { kind: "continue"; status: number; toolResult: string } | { kind: "end"; outcome: Outcome; toolResult?: string };

export type RunState = {
  messages: ChatMessage[];
  digests: DigestCache;
  effect: EffectContext;
  total: EffectDiff;
  callsRun: number;
  callsSeen: number;
  lastStatus?: number;
  lastCommand?: string;
  history: string[];
  obligations: string[];
};

/** What the calls that ran so far changed, for an outcome that ends the run early. */
export function ranSoFar(state: RunState): string[] {
  if (state.callsRun === 0) return [];
  return [
    `${state.callsRun} call${state.callsRun === 1 ? "" : "s"} ran before the end; they changed: ${describeEffects(state.total)}`,
    ...state.obligations,
  ];
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** Writes the evidence as it stands; a failure is reported once, when the final write fails too. */
export function save(options: TaskOptions): void {
  try {
    writeEvidence(options.evidence);
  } catch {
    /* reported once at the end, when the final write fails too */
  }
}
