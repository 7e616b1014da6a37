/**
 * Any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server,
 * Ollama) as an answerer, so a site with its own model can judge air-gapped.
 *
 * A chat model writes tokens, not typed answers, so each question is put so
 * that its answer is one token: a choice's options are lettered A, B, C ...
 * and a score's levels numbered 0, 1, 2 ...; the reply is limited to one
 * token, and the probabilities come from that token's log-probabilities
 * (`logprobs: true, top_logprobs`). The questions of one judgment are sent
 * concurrently, each as its own request over the same state.
 *
 * An endpoint that gives no log-probabilities still gives its one token;
 * that answer is one-hot and marked so (`source: "one-hot"`), never dressed
 * up as a distribution.
 */
import type { ChoiceAnswer, ScoreAnswer } from "../core/answers.ts";
import {
  AnswerError,
  type ChoiceQuestion,
  type ModelAnswer,
  type ModelReply,
  type Question,
  type QuestionSet,
  type ScoreQuestion,
  type Usage,
} from "../core/questions.ts";
import { failure, postWithRetries, type AskOptions } from "./jev.ts";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
/** At least this much of the first token's probability must fall on offered labels. */
const MIN_LABEL_MASS = 0.5;
/** OpenAI accepts at most 20. */
const TOP_LOGPROBS = 20;

/** The one-character token that stands for each option or level. */
function tokensFor(question: Question): string[] {
  if (question.kind === "choice") {
    if (question.options.length > LETTERS.length) {
      throw new AnswerError(
        "config",
        `a choice of ${question.options.length} options cannot give each a one-letter label (at most ${LETTERS.length})`,
      );
    }
    return question.options.map((_, index) => LETTERS[index]!);
  }
  if (question.levels.length > DIGITS.length) {
    throw new AnswerError(
      "config",
      `a score of ${question.levels.length} levels cannot give each a one-digit label (at most ${DIGITS.length})`,
    );
  }
  return question.levels.map((_, index) => DIGITS[index]!);
}

/** The chat messages for one question: the state, the question, the labelled options, the one-token rule. */
export function chatMessages(state: Record<string, unknown>, question: Question): { role: string; content: string }[] {
  const tokens = tokensFor(question);
  const entries = question.kind === "choice" ? question.options.map((option) => option.definition) : question.levels;
  const listed = entries.map((text, index) => `${tokens[index]}: ${text}`).join("\n");
  const what = question.kind === "choice" ? "letter" : "digit";
  const allowed = tokens.length > 1 ? `${tokens.slice(0, -1).join(", ")} or ${tokens.at(-1)}` : tokens[0];
  return [
    {
      role: "system",
      content: `You classify. You read a situation and a question, and you reply with exactly one ${what} (${allowed}) and nothing else: no words, no punctuation.`,
    },
    {
      role: "user",
      content: [
        "Situation (JSON):",
        JSON.stringify(state, null, 2),
        "",
        `Question: ${question.instructions}`,
        "",
        question.kind === "choice" ? "Options:" : "Levels:",
        listed,
        "",
        `Reply with one ${what}: ${allowed}.`,
      ].join("\n"),
    },
  ];
}

/** The label a token stands for, if any: whitespace, quotes and trailing punctuation dropped; letters in either case. */
function labelOf(token: string, tokens: string[]): number | undefined {
  const bare = token.trim().replace(/^[("'*\s]+|[)"'.:,*\s]+$/g, "");
  if (bare.length !== 1) return undefined;
  const index = tokens.indexOf(bare.toUpperCase());
  return index >= 0 ? index : undefined;
}

type Completion = { content: string; top?: { token: string; logprob: number }[]; model?: string; usage?: Usage; id?: string };

function readCompletion(body: unknown): Completion {
  if (typeof body !== "object" || body === null) throw new AnswerError("malformed", "the answer is not a JSON object");
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) throw new AnswerError("malformed", "the answer has no choices");
  const first = choices[0] as { message?: { content?: unknown }; logprobs?: { content?: unknown } | null };
  const content = first?.message?.content;
  if (typeof content !== "string") throw new AnswerError("malformed", "the answer has no message content");
  const tokens = first.logprobs?.content;
  let top: Completion["top"];
  // Only the alternatives make a distribution: the sampled token's own log-probability alone is a one-hot answer.
  const head = Array.isArray(tokens) && tokens.length > 0 ? (tokens[0] as { top_logprobs?: unknown }) : undefined;
  if (head && Array.isArray(head.top_logprobs) && head.top_logprobs.length > 0) {
    const list = head.top_logprobs;
    top = [];
    for (const entry of list as { token?: unknown; logprob?: unknown }[]) {
      if (
        typeof entry?.token !== "string" ||
        typeof entry.logprob !== "number" ||
        (!Number.isFinite(entry.logprob) && entry.logprob !== -Infinity)
      ) {
        throw new AnswerError("malformed", "a log-probability entry is not {token, logprob}");
      }
      top.push({ token: entry.token, logprob: entry.logprob });
    }
  }
  const raw = body as { model?: unknown; usage?: Record<string, unknown>; id?: unknown };
  const usage: Usage | undefined =
    raw.usage && typeof raw.usage === "object"
      ? {
          ...(typeof raw.usage.prompt_tokens === "number" ? { input_tokens: raw.usage.prompt_tokens } : {}),
          ...(typeof raw.usage.completion_tokens === "number" ? { output_tokens: raw.usage.completion_tokens } : {}),
        }
      : undefined;
  return {
    content,
    top,
    model: typeof raw.model === "string" ? raw.model : undefined,
    usage,
    id: typeof raw.id === "string" ? raw.id : undefined,
  };
}

/** Probabilities over the labels from the first token's top log-probabilities. */
export function labelDistribution(top: { token: string; logprob: number }[], tokens: string[]): number[] {
  const mass = tokens.map(() => 0);
  let total = 0;
  for (const { token, logprob } of top) {
    const p = Math.exp(logprob);
    total += p;
    const index = labelOf(token, tokens);
    if (index !== undefined) mass[index]! += p;
  }
  const onLabels = mass.reduce((sum, p) => sum + p, 0);
  if (onLabels < MIN_LABEL_MASS * Math.min(total, 1)) {
    const seen = top
      .slice(0, 3)
      .map((entry) => JSON.stringify(entry.token))
      .join(", ");
    throw new AnswerError("labels", `the model's likeliest first tokens (${seen}) are not the offered labels`);
  }
  return mass.map((p) => p / onLabels);
}

/** One question's answer from one completion. */
function answerFrom(question: Question, completion: Completion, wantLogprobs: boolean): { answer: ModelAnswer; oneHot: boolean } {
  const tokens = tokensFor(question);
  const chosen = labelOf(completion.content, tokens);
  if (wantLogprobs && completion.top) {
    const distribution = labelDistribution(completion.top, tokens);
    return { answer: shape(question, distribution, "model"), oneHot: false };
  }
  if (chosen === undefined) {
    throw new AnswerError(
      "labels",
      `the model answered ${JSON.stringify(completion.content.slice(0, 40))}, which is not one of the labels`,
    );
  }
  return {
    answer: shape(
      question,
      tokens.map((_, index) => (index === chosen ? 1 : 0)),
      "one-hot",
    ),
    oneHot: true,
  };
}

function shape(question: Question, distribution: number[], source: "model" | "one-hot"): ModelAnswer {
  if (question.kind === "choice") return choiceOf(question, distribution, source);
  return scoreOf(question, distribution, source);
}

function choiceOf(question: ChoiceQuestion, distribution: number[], source: "model" | "one-hot"): ChoiceAnswer {
  const probabilities = Object.fromEntries(question.options.map((option, index) => [option.label, distribution[index] ?? 0]));
  let best = 0;
  distribution.forEach((p, index) => {
    if (p > distribution[best]!) best = index;
  });
  return { choice: question.options[best]!.label, confidence: distribution[best] ?? 0, probabilities, source };
}

function scoreOf(question: ScoreQuestion, distribution: number[], source: "model" | "one-hot"): ScoreAnswer {
  void question;
  const score = distribution.reduce((sum, p, index) => sum + p * index, 0);
  return { score, probabilities: distribution, source };
}

/** Whether a base URL is on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackUrl(base: string): boolean {
  let host: string;
  try {
    host = new URL(base).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The key for an OpenAI-compatible endpoint, or why there is none that is needed. An endpoint needs no key
 * when its key_env is empty or its base URL is loopback (Ollama, llama.cpp's server, vLLM run locally take
 * none): then a set key is still sent, and a missing one is no reason to skip the model.
 */
export function openaiKey(
  endpoint: { base_url: string; key_env: string },
  env: Record<string, string | undefined>,
): { key?: string; missing?: string } {
  const key = endpoint.key_env ? env[endpoint.key_env] || undefined : undefined;
  if (key || !endpoint.key_env || isLoopbackUrl(endpoint.base_url)) return { key };
  return { missing: `${endpoint.key_env} is not set` };
}

export function chatUrl(base: string): string {
  return `${base.replace(/\/+$/, "")}/chat/completions`;
}

/** Asks every question of a set, concurrently, one chat completion each. Never throws. */
export async function askOpenAI(set: QuestionSet, options: AskOptions): Promise<ModelReply> {
  const started = performance.now();
  const requestIds: string[] = [];
  const endpoint = options.policy.model.openai;
  try {
    const { key, missing } = openaiKey(endpoint, options.env);
    if (missing) throw new AnswerError("no-key", missing);
    const entries = Object.entries(set.questions) as [string, Question][];
    for (const [, question] of entries) tokensFor(question);
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    // One question failing fails the judgment: the others are abandoned at once.
    const all = new AbortController();
    options.signal?.addEventListener("abort", () => all.abort(), { once: true });
    const replies = await Promise.all(
      entries.map(async ([id, question]) => {
        const body: Record<string, unknown> = {
          model: endpoint.model,
          messages: chatMessages(set.state, question),
          max_tokens: 1,
          temperature: 0,
        };
        if (endpoint.logprobs) Object.assign(body, { logprobs: true, top_logprobs: TOP_LOGPROBS });
        try {
          const posted = await postWithRetries(chatUrl(endpoint.base_url), body, headers, {
            deadline: options.deadline,
            requestIdHeader: "x-request-id",
            requestIds,
            fetch: options.fetch,
            signal: all.signal,
          });
          const completion = readCompletion(posted.body);
          if (completion.id && !requestIds.includes(completion.id)) requestIds.push(completion.id);
          return { id, completion, attempts: posted.attempts, ...answerFrom(question, completion, endpoint.logprobs) };
        } catch (error) {
          all.abort();
          throw error;
        }
      }),
    );
    const answers = Object.fromEntries(replies.map((reply) => [reply.id, reply.answer]));
    const usage = replies.reduce<Usage>(
      (sum, reply) => ({
        input_tokens: (sum.input_tokens ?? 0) + (reply.completion.usage?.input_tokens ?? 0),
        output_tokens: (sum.output_tokens ?? 0) + (reply.completion.usage?.output_tokens ?? 0),
      }),
      {},
    );
    const oneHot = replies.filter((reply) => reply.oneHot).map((reply) => reply.id);
    const note =
      oneHot.length === 0
        ? undefined
        : endpoint.logprobs
          ? `the endpoint gave no log-probabilities, so ${oneHot.join(", ")} ${oneHot.length > 1 ? "are one-hot answers" : "is a one-hot answer"}`
          : `log-probabilities are turned off in the policy, so ${oneHot.join(", ")} ${oneHot.length > 1 ? "are one-hot answers" : "is a one-hot answer"}`;
    return {
      ok: true,
      answers,
      model: replies.find((reply) => reply.completion.model)?.completion.model ?? endpoint.model,
      usage,
      requestIds,
      attempts: Math.max(...replies.map((reply) => reply.attempts)),
      ms: performance.now() - started,
      note,
    };
  } catch (error) {
    return failure(error, started, requestIds);
  }
}
