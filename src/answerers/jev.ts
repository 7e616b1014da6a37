/**
 * Jev, TypeSafe's typed-decision API, as an answerer: one request carries all
 * of a judgment's questions over one state (`POST {base}/systemone`), and the
 * typed answers come back under the question ids.
 *
 * The key comes from the environment variable the policy names; the base URL
 * and the pinned model from the policy, with `TYPESAFE_BASE_URL` overriding
 * the base URL as TypeSafe's own SDKs do. A request never outlives the
 * judgment's deadline: 429, 529 and 5xx are retried only while time is left,
 * honouring Retry-After; anything else fails at once and the rules answer.
 */
import type { Policy } from "../policy/schema.ts";
import {
  AnswerError,
  checkChoice,
  checkScore,
  type ModelAnswer,
  type ModelReply,
  type Question,
  type QuestionSet,
  type Usage,
} from "../core/questions.ts";

export type Env = Record<string, string | undefined>;

export type AskOptions = {
  policy: Policy;
  env: Env;
  /** `performance.now()` past which no answer is waited for. */
  deadline: number;
  fetch?: typeof fetch;
  /** Aborting it abandons every request still in flight. */
  signal?: AbortSignal;
};

/** Options a Jev choice may have and levels a score may have (the API's limits). */
const MAX_OPTIONS = 255;
const MIN_LEVELS = 2;
const MAX_LEVELS = 10;

/** The first retry waits this long, doubling, unless the server says otherwise. */
const BACKOFF_MS = 100;
const MAX_ATTEMPTS = 3;
/** A retry is worth sending only with at least this much time left after its wait. */
const MIN_ATTEMPT_MS = 50;

/** The URL requests go to: the policy's base URL, or TYPESAFE_BASE_URL (a bare host gets /v1). */
export function jevUrl(policy: Policy, env: Env): string {
  const override = env.TYPESAFE_BASE_URL?.trim();
  let base = override || policy.model.jev.base_url;
  base = base.replace(/\/+$/, "");
  if (override && /^https?:\/\/[^/]+$/.test(base)) base += "/v1";
  return `${base}/systemone`;
}

type Posted = { status: number; body: unknown; headers: Headers; attempts: number; ms: number };

/** Milliseconds a 429/529/503 asks to wait: `retry-after-ms`, or `Retry-After` in seconds or as a date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(Number(ms), 0);
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  if (Number.isFinite(Number(after))) return Math.max(Number(after) * 1000, 0);
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(date - now, 0) : undefined;
}

function retryable(status: number): boolean {
  return status === 429 || status === 529 || (status >= 500 && status <= 599);
}

function describeStatus(status: number, body: unknown): string {
  const message =
    typeof body === "object" && body !== null
      ? ((body as { error?: { message?: unknown } | string; message?: unknown }).message ??
        (typeof (body as { error?: unknown }).error === "object"
          ? (body as { error: { message?: unknown } }).error.message
          : (body as { error?: unknown }).error))
      : undefined;
  const said = typeof message === "string" && message ? `: ${message.slice(0, 200)}` : "";
  return `HTTP ${status}${said}`;
}

/**
 * POSTs JSON and reads the JSON answer, within the deadline. Retries 429,
 * 529 and 5xx while time is left (Retry-After honoured, capped by the
 * deadline); a network error, a 4xx or a body that is not JSON fail at once.
 * Throws AnswerError; `requestIds` collects the ids of every attempt.
 */
export async function postWithRetries(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  how: { deadline: number; requestIdHeader: string; requestIds: string[]; fetch?: typeof fetch; signal?: AbortSignal },
): Promise<Posted> {
  const { deadline, requestIdHeader, requestIds } = how;
  const fetchImpl = how.fetch ?? fetch;
  const started = performance.now();
  const payload = JSON.stringify(body);
  let attempts = 0;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) throw new AnswerError("timeout", "no time was left before the deadline");
    attempts += 1;
    if (how.signal?.aborted) throw new AnswerError("timeout", "the judgment stopped waiting");
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), left);
    const stop = () => controller.abort();
    how.signal?.addEventListener("abort", stop, { once: true });
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: payload,
        signal: controller.signal,
      });
      text = await response.text();
    } catch (error) {
      clearTimeout(timer);
      how.signal?.removeEventListener("abort", stop);
      if (controller.signal.aborted) throw new AnswerError("timeout", `no answer within the deadline (attempt ${attempts})`);
      const code = (error as { code?: unknown }).code;
      const said = typeof code === "string" && code ? code : (error as Error).message;
      throw new AnswerError("network", `cannot reach ${new URL(url).host} (${said})`);
    }
    clearTimeout(timer);
    how.signal?.removeEventListener("abort", stop);
    const id = response.headers.get(requestIdHeader);
    if (id) requestIds.push(id);
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
      if (response.ok) throw new AnswerError("malformed", `the answer is not JSON (${text.length} bytes, HTTP ${response.status})`);
    }
    if (response.ok) return { status: response.status, body: parsed, headers: response.headers, attempts, ms: performance.now() - started };
    if (retryable(response.status) && attempts < MAX_ATTEMPTS) {
      const wait = retryAfterMs(response.headers) ?? BACKOFF_MS * 2 ** (attempts - 1);
      if (performance.now() + wait + MIN_ATTEMPT_MS < deadline) {
        await Bun.sleep(wait);
        continue;
      }
      const asked =
        response.headers.has("retry-after") || response.headers.has("retry-after-ms") ? ` (retry after ${Math.round(wait)} ms)` : "";
      throw Object.assign(
        new AnswerError(
          "http",
          `${describeStatus(response.status, parsed)}${asked}; no time left to retry after ${attempts} attempt${attempts > 1 ? "s" : ""}`,
        ),
        { status: response.status, attempts },
      );
    }
    const more = attempts > 1 ? ` after ${attempts} attempts` : "";
    throw Object.assign(new AnswerError("http", `${describeStatus(response.status, parsed)}${more}`), {
      status: response.status,
      attempts,
    });
  }
}

/** A question in Jev's wire shape. */
function wireQuestion(question: Question): Record<string, unknown> {
  if (question.kind === "choice") {
    return {
      type: "choice",
      instructions: question.instructions,
      criteria: Object.fromEntries(question.options.map((option) => [option.label, option.definition])),
    };
  }
  return { type: "score", instructions: question.instructions, criteria: question.levels };
}

/** Checks the API's limits before anything is sent. */
function checkLimits(questions: Record<string, Question>): void {
  for (const [id, question] of Object.entries(questions)) {
    if (question.kind === "choice" && (question.options.length < 2 || question.options.length > MAX_OPTIONS)) {
      throw new AnswerError("config", `the question ${id} has ${question.options.length} options; Jev takes 2 to ${MAX_OPTIONS}`);
    }
    if (question.kind === "score" && (question.levels.length < MIN_LEVELS || question.levels.length > MAX_LEVELS)) {
      throw new AnswerError("config", `the question ${id} has ${question.levels.length} levels; Jev takes ${MIN_LEVELS} to ${MAX_LEVELS}`);
    }
  }
}

/** The request body Jev is sent for a question set. */
export function jevRequest(policy: Policy, set: QuestionSet): Record<string, unknown> {
  return {
    model: policy.model.jev.model,
    state: set.state,
    questions: Object.fromEntries(Object.entries(set.questions).map(([id, question]) => [id, wireQuestion(question as Question)])),
  };
}

function readUsage(body: Record<string, unknown>): Usage | undefined {
  const usage = body.usage as Record<string, unknown> | undefined;
  if (typeof usage !== "object" || usage === null) return undefined;
  const out: Usage = {};
  if (typeof usage.input_tokens === "number") out.input_tokens = usage.input_tokens;
  if (typeof usage.output_tokens === "number") out.output_tokens = usage.output_tokens;
  return out;
}

/** Reads and checks Jev's answers against the questions asked. */
function readJevAnswers(set: QuestionSet, body: unknown): Record<string, ModelAnswer> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new AnswerError("malformed", "the answer is not a JSON object");
  const answers = (body as { answers?: unknown }).answers;
  if (typeof answers !== "object" || answers === null || Array.isArray(answers))
    throw new AnswerError("malformed", "the answer has no answers object");
  const out: Record<string, ModelAnswer> = {};
  for (const [id, question] of Object.entries(set.questions) as [string, Question][]) {
    const raw = (answers as Record<string, unknown>)[id];
    if (typeof raw !== "object" || raw === null) throw new AnswerError("malformed", `no answer to the question ${id}`);
    const type = (raw as { type?: unknown }).type;
    if (type !== undefined && type !== question.kind) {
      throw new AnswerError("malformed", `the answer to ${id} is a ${String(type)}, not a ${question.kind}`);
    }
    out[id] = question.kind === "choice" ? checkChoice(question, raw, "model") : checkScore(question, raw, "model");
  }
  return out;
}

/** Asks Jev every question of a set in one request. Never throws: a failure is a reply with `ok: false`. */
export async function askJev(set: QuestionSet, options: AskOptions): Promise<ModelReply> {
  const started = performance.now();
  const requestIds: string[] = [];
  const { jev } = options.policy.model;
  try {
    const key = jev.key_env ? options.env[jev.key_env] : undefined;
    if (jev.key_env && !key) throw new AnswerError("no-key", `${jev.key_env} is not set`);
    checkLimits(set.questions as Record<string, Question>);
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    const posted = await postWithRetries(jevUrl(options.policy, options.env), jevRequest(options.policy, set), headers, {
      deadline: options.deadline,
      requestIdHeader: "x-typesafe-request-id",
      requestIds,
      fetch: options.fetch,
      signal: options.signal,
    });
    const answers = readJevAnswers(set, posted.body);
    const body = posted.body as Record<string, unknown>;
    return {
      ok: true,
      answers,
      model: typeof body.model === "string" ? body.model : jev.model,
      usage: readUsage(body),
      requestIds,
      attempts: posted.attempts,
      ms: performance.now() - started,
    };
  } catch (error) {
    return failure(error, started, requestIds);
  }
}

/** An exception as a failed reply. */
export function failure(error: unknown, started: number, requestIds: string[]): ModelReply {
  const ms = performance.now() - started;
  if (error instanceof AnswerError) {
    const extra = error as AnswerError & { status?: number; attempts?: number };
    return {
      ok: false,
      kind: error.kind,
      reason: error.message,
      status: extra.status,
      attempts: extra.attempts ?? (error.kind === "no-key" || error.kind === "config" ? 0 : 1),
      ms,
      requestIds,
    };
  }
  return { ok: false, kind: "malformed", reason: `unexpected: ${(error as Error)?.message ?? String(error)}`, attempts: 1, ms, requestIds };
}
