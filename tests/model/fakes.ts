/**
 * Fake answerers on 127.0.0.1 for the model tests: a Jev server
 * (`POST /v1/systemone`) and an OpenAI-compatible one
 * (`POST /v1/chat/completions`). Each records every request (headers and
 * raw body) and answers by a handler the test can swap at any time.
 */
import type { Server } from "bun";

export type Recorded = { path: string; headers: Record<string, string>; text: string; body: any; at: number };
export type Handler = (request: Recorded) => Response | Promise<Response>;

export type Fake = {
  url: string;
  port: number;
  requests: Recorded[];
  handle(handler: Handler): void;
  stop(): Promise<void>;
};

export function startFake(handler: Handler): Fake {
  let current = handler;
  const requests: Recorded[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(request) {
      const text = await request.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const recorded: Recorded = {
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers.entries()),
        text,
        body,
        at: Date.now(),
      };
      requests.push(recorded);
      return current(recorded);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    requests,
    handle(next) {
      current = next;
    },
    async stop() {
      await server.stop(true);
    },
  };
}

/** Jev's answer to every question in a request: a choice's label or a score's level, with most of the probability. */
export type Wanted = { act?: string; undo?: number; load?: number; ending?: string; confidence?: number };

export function jevAnswers(body: any, wanted: Wanted): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  const sure = wanted.confidence ?? 0.97;
  for (const [id, question] of Object.entries<any>(body?.questions ?? {})) {
    if (question.type === "choice") {
      const labels = Object.keys(question.criteria);
      const choice = ((wanted as Record<string, unknown>)[id] as string | undefined) ?? labels[0]!;
      const rest = (1 - sure) / (labels.length - 1);
      const probabilities = Object.fromEntries(labels.map((label) => [label, label === choice ? sure : rest]));
      answers[id] = { type: "choice", choice, probabilities, confidence: sure };
    } else {
      const levels: string[] = question.criteria;
      const level = ((wanted as Record<string, unknown>)[id] as number | undefined) ?? 0;
      const rest = (1 - sure) / (levels.length - 1);
      const probabilities = Object.fromEntries(levels.map((_, index) => [String(index), index === level ? sure : rest]));
      const score = levels.reduce((sum, _, index) => sum + index * (index === level ? sure : rest), 0);
      answers[id] = {
        type: "score",
        score,
        probabilities,
        legend: Object.fromEntries(levels.map((text, index) => [String(index), text])),
        confidence: sure,
      };
    }
  }
  return answers;
}

export function jevReply(wanted: Wanted, extra: { delayMs?: number; requestId?: string } = {}): Handler {
  let n = 0;
  return async (request) => {
    n += 1;
    if (extra.delayMs) await Bun.sleep(extra.delayMs);
    return Response.json(
      { model: "jev-1.13.0", answers: jevAnswers(request.body, wanted), usage: { input_tokens: 321, output_tokens: 12 } },
      { headers: { "x-typesafe-request-id": extra.requestId ?? `req_${n}` } },
    );
  };
}

/** Which question a chat prompt asks, from the policy's instruction words in it. */
export function chatQuestion(body: any): "act" | "undo" | "load" | "ending" | undefined {
  const text: string = body?.messages?.map((message: any) => message.content).join("\n") ?? "";
  if (/what the command does/.test(text)) return "act";
  if (/put everything back/.test(text)) return "undo";
  if (/How much of the machine/.test(text)) return "load";
  if (/how\s+the turn ended/.test(text)) return "ending";
  return undefined;
}

/** The labelled lines of a chat prompt ("A: ...", "0: ..."), in order. */
export function chatLabels(body: any): string[] {
  const user: string = body?.messages?.find((message: any) => message.role === "user")?.content ?? "";
  return [...user.matchAll(/^([A-Z0-9]): /gm)].map((match) => match[1]!);
}

/**
 * An OpenAI-compatible answer: the wanted label's token with most of the
 * probability, as top_logprobs when asked for and `logprobs` is not false.
 * `order` maps a choice's labels to their letters (the policy's order).
 */
export function openaiReply(
  wanted: Wanted,
  order: { act: string[]; ending: string[] },
  extra: { logprobs?: boolean; delayMs?: number; token?: (question: string) => string | undefined } = {},
): Handler {
  let n = 0;
  return async (request) => {
    n += 1;
    if (extra.delayMs) await Bun.sleep(extra.delayMs);
    const question = chatQuestion(request.body) ?? "act";
    const tokens = chatLabels(request.body);
    let index: number;
    if (question === "act" || question === "ending") index = order[question].indexOf(wanted[question] ?? order[question][0]!);
    else index = wanted[question] ?? 0;
    const token = extra.token?.(question) ?? tokens[index] ?? "A";
    const sure = wanted.confidence ?? 0.97;
    const rest = (1 - sure) / Math.max(tokens.length - 1, 1);
    const top = [
      { token, logprob: Math.log(sure) },
      ...tokens.filter((t) => t !== token).map((t) => ({ token: t, logprob: Math.log(rest) })),
    ];
    const wantsLogprobs = request.body?.logprobs === true && extra.logprobs !== false;
    return Response.json(
      {
        id: `chatcmpl-${n}`,
        object: "chat.completion",
        model: request.body?.model ?? "fake",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: token },
            logprobs: wantsLogprobs ? { content: [{ token, logprob: Math.log(sure), top_logprobs: top }] } : null,
            finish_reason: "length",
          },
        ],
        usage: { prompt_tokens: 400, completion_tokens: 1, total_tokens: 401 },
      },
      { headers: { "x-request-id": `oa_${n}` } },
    );
  };
}
