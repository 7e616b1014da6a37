/**
 * The questions a model is asked, built from the policy and nothing else:
 * the instructions, each option's label and definition, each level's
 * definition, and how much of the subject the model is shown. Changing a
 * definition in the policy changes the request; no wording lives here.
 *
 * A question set is transport-neutral: the Jev answerer serialises it to
 * `{state, questions}`, the OpenAI-compatible answerer to one chat prompt
 * per question. Everything in it has been redacted and clipped already.
 */
import type { Policy } from "../policy/schema.ts";
import type { ChoiceAnswer, ScoreAnswer } from "./answers.ts";
import { redact } from "./redact.ts";

/** One of N labelled options, each with the definition the model chooses by. */
export type ChoiceQuestion = {
  kind: "choice";
  instructions: string;
  options: { label: string; definition: string }[];
};

/** An ordered rubric; the answer is the expected level, 0 = the first. */
export type ScoreQuestion = {
  kind: "score";
  instructions: string;
  levels: string[];
};

export type Question = ChoiceQuestion | ScoreQuestion;

/** What a command is judged on: the ids are the keys of CommandAnswers. */
type CommandQuestionIds = "act" | "undo" | "load";
type TurnQuestionIds = "ending";

/** A judgment's questions over one shared state. */
export type QuestionSet<Id extends string = string> = {
  subject: "command" | "turn";
  /** What the model reads: redacted, clipped. */
  state: Record<string, unknown>;
  questions: Record<Id, Question>;
};

/** The first `count` characters of `text` (code points, never half a surrogate pair). */
export function head(text: string, count: number): string {
  if (text.length <= count) return text;
  let taken = 0;
  let at = 0;
  for (const char of text) {
    if (taken === count) break;
    at += char.length;
    taken += 1;
  }
  return text.slice(0, at);
}

/** The last `count` characters of `text`, by whole code points. */
export function tail(text: string, count: number): string {
  if (text.length <= count) return text;
  let taken = 0;
  let at = text.length;
  while (at > 0 && taken < count) {
    const code = text.charCodeAt(at - 1);
    // A low surrogate preceded by a high surrogate is one character.
    const pair = code >= 0xdc00 && code <= 0xdfff && at >= 2 && (text.charCodeAt(at - 2) & 0xfc00) === 0xd800;
    at -= pair ? 2 : 1;
    taken += 1;
  }
  return text.slice(at);
}

function withWhatRuns(policy: Policy, instruction: string): string {
  return `${instruction.trim()} ${policy.judge.instructions.what_runs.trim()}`;
}

type CommandSubject = {
  command: string;
  cwd: string;
  projectRoot?: string;
  /** The command has been through `redact` already (it is not redacted twice: a long line costs). */
  redacted?: boolean;
};

/** The three questions about a command: which act, how hard to undo, how heavy. */
export function commandQuestions(policy: Policy, subject: CommandSubject): QuestionSet<CommandQuestionIds> {
  const { shown, instructions } = policy.judge;
  const command = subject.redacted ? subject.command : redact(subject.command);
  const state: Record<string, unknown> = {
    command: head(command, shown.command),
    working_directory: tail(redact(subject.cwd), shown.path),
  };
  if (subject.projectRoot) state.project_root = tail(redact(subject.projectRoot), shown.path);
  if (state.command !== command) state.command_is_cut_short = true;
  return {
    subject: "command",
    state,
    questions: {
      act: {
        kind: "choice",
        instructions: withWhatRuns(policy, instructions.act),
        options: Object.entries(policy.acts).map(([label, act]) => ({ label, definition: act.definition.trim() })),
      },
      undo: {
        kind: "score",
        instructions: withWhatRuns(policy, instructions.undo),
        levels: policy.undo_levels.map((level) => level.definition.trim()),
      },
      load: {
        kind: "score",
        instructions: withWhatRuns(policy, instructions.load),
        levels: policy.load_levels.map((level) => level.definition.trim()),
      },
    },
  };
}

type TurnSubject = { requests: string[]; final: string };

/** The one question about a turn's end: how it ended, judged against the latest request. */
export function turnQuestions(policy: Policy, subject: TurnSubject): QuestionSet<TurnQuestionIds> {
  const { shown, instructions } = policy.judge;
  return {
    subject: "turn",
    state: {
      developer_requests_oldest_first: subject.requests.map((request) => head(redact(request), shown.request)),
      assistant_final_message: tail(redact(subject.final), shown.message),
    },
    questions: {
      ending: {
        kind: "choice",
        instructions: instructions.ending.trim(),
        options: Object.entries(policy.endings).map(([label, ending]) => ({ label, definition: ending.definition.trim() })),
      },
    },
  };
}

// ---------------------------------------------------------------------------
// Answers, as an answerer hands them back, and their checks.

export type Usage = { input_tokens?: number; output_tokens?: number };

/** Why a model's answer is not used: each becomes `modelNotUsed` and a log field. */
type FailureKind =
  | "no-key" // the key's environment variable is not set
  | "timeout" // no answer within answer_within
  | "network" // connection refused, reset, DNS
  | "http" // a status the answerer does not retry, or retries ran out
  | "malformed" // the body is not the expected JSON
  | "labels" // answers under labels or levels that were not offered
  | "config"; // the policy asks for something the transport cannot do

export type ModelAnswer = ChoiceAnswer | ScoreAnswer;

export type ModelReply =
  | {
      ok: true;
      answers: Record<string, ModelAnswer>;
      /** The model that answered, as the server reports it. */
      model: string;
      usage?: Usage;
      requestIds: string[];
      attempts: number;
      /** Time spent waiting on the model, in ms. */
      ms: number;
      /** Said of the answer, e.g. that the endpoint gave no log-probabilities. */
      note?: string;
    }
  | { ok: false; kind: FailureKind; reason: string; status?: number; attempts: number; ms: number; requestIds: string[] };

export class AnswerError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

function isProbability(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= -1e-9 && value <= 1 + 1e-9;
}

/**
 * A choice answer checked against the options offered: the choice and every
 * probability must be under an offered label. Probabilities are normalised
 * to sum to 1 and every offered label gets one (0 when absent).
 */
export function checkChoice(
  question: ChoiceQuestion,
  raw: { choice?: unknown; probabilities?: unknown; confidence?: unknown },
  source: ChoiceAnswer["source"],
): ChoiceAnswer {
  const labels = question.options.map((option) => option.label);
  if (typeof raw.choice !== "string") throw new AnswerError("malformed", "a choice answer has no choice");
  if (!labels.includes(raw.choice)) {
    throw new AnswerError("labels", `the model chose ${JSON.stringify(raw.choice)}, which is not one of the options`);
  }
  if (typeof raw.probabilities !== "object" || raw.probabilities === null || Array.isArray(raw.probabilities)) {
    throw new AnswerError("malformed", "a choice answer has no probabilities");
  }
  const given = raw.probabilities as Record<string, unknown>;
  const stray = Object.keys(given).filter((label) => !labels.includes(label));
  if (stray.length > 0) throw new AnswerError("labels", `probabilities under labels not offered: ${stray.slice(0, 5).join(", ")}`);
  let sum = 0;
  for (const value of Object.values(given)) {
    if (!isProbability(value)) throw new AnswerError("malformed", `a probability is not a number in [0, 1]: ${JSON.stringify(value)}`);
    sum += value;
  }
  if (!(sum > 0)) throw new AnswerError("malformed", "the probabilities sum to 0");
  const probabilities = Object.fromEntries(labels.map((label) => [label, Math.max(Number(given[label] ?? 0), 0) / sum]));
  const confidence = isProbability(raw.confidence) ? raw.confidence : Math.max(...Object.values(probabilities));
  return { choice: raw.choice, confidence, probabilities, source };
}

/**
 * A score answer checked against the levels offered: probabilities keyed by
 * level index ("0".."N-1") or given as a list; the score within [0, N-1].
 * When the score is missing it is the probability-weighted mean.
 */
export function checkScore(
  question: ScoreQuestion,
  raw: { score?: unknown; probabilities?: unknown },
  source: ScoreAnswer["source"],
): ScoreAnswer {
  const top = question.levels.length - 1;
  let probabilities: number[] | undefined;
  if (Array.isArray(raw.probabilities)) {
    if (raw.probabilities.length !== question.levels.length) {
      throw new AnswerError("labels", `${raw.probabilities.length} probabilities for ${question.levels.length} levels`);
    }
    probabilities = raw.probabilities.map((value) => {
      if (!isProbability(value)) throw new AnswerError("malformed", `a level's probability is not a number in [0, 1]`);
      return value;
    });
  } else if (typeof raw.probabilities === "object" && raw.probabilities !== null) {
    const given = raw.probabilities as Record<string, unknown>;
    const stray = Object.keys(given).filter((key) => !/^(0|[1-9][0-9]*)$/.test(key) || Number(key) > top);
    if (stray.length > 0) throw new AnswerError("labels", `probabilities under levels not offered: ${stray.slice(0, 5).join(", ")}`);
    probabilities = question.levels.map((_, index) => {
      const value = given[String(index)] ?? 0;
      if (!isProbability(value)) throw new AnswerError("malformed", `a level's probability is not a number in [0, 1]`);
      return value;
    });
  } else if (raw.probabilities !== undefined && raw.probabilities !== null) {
    throw new AnswerError("malformed", "a score's probabilities are neither a map nor a list");
  }
  if (probabilities) {
    const sum = probabilities.reduce((total, value) => total + value, 0);
    if (!(sum > 0)) throw new AnswerError("malformed", "a score's probabilities sum to 0");
    probabilities = probabilities.map((value) => value / sum);
  }
  let score: number;
  if (raw.score === undefined || raw.score === null) {
    if (!probabilities) throw new AnswerError("malformed", "a score answer has neither a score nor probabilities");
    score = probabilities.reduce((total, value, index) => total + value * index, 0);
  } else if (typeof raw.score === "number" && Number.isFinite(raw.score)) {
    if (raw.score < -1e-6 || raw.score > top + 1e-6) throw new AnswerError("labels", `the score ${raw.score} is outside 0..${top}`);
    score = Math.min(Math.max(raw.score, 0), top);
  } else {
    throw new AnswerError("malformed", "a score answer's score is not a number");
  }
  return probabilities ? { score, probabilities, source } : { score, source };
}
