import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { askJev, jevUrl, retryAfterMs } from "../../src/answerers/jev.ts";
import { askOpenAI, labelDistribution } from "../../src/answerers/openai.ts";
import { commandQuestions, turnQuestions } from "../../src/core/questions.ts";
import { jevReply, openaiReply, startFake } from "./fakes.ts";
import { defaultPolicy, labelOrder, policyWith } from "./helpers.ts";

const loaded = defaultPolicy();
const { policy } = loaded;
const set = commandQuestions(policy, { command: "rm -rf build/cache", cwd: "/home/dev/app" });
const KEY = "apikey_secretsecretsecret";

describe("Jev", () => {
  const fake = startFake(jevReply({ act: "delete", undo: 3, load: 0 }));
  const env = { TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: `${fake.url}/v1` };
  const soon = (ms = 1500) => performance.now() + ms;
  beforeEach(() => {
    fake.requests.length = 0;
    fake.handle(jevReply({ act: "delete", undo: 3, load: 0 }));
  });
  afterAll(() => fake.stop());

  test("one request with every question; choice, score, usage and request id read back", async () => {
    const reply = await askJev(set, { policy, env, deadline: soon() });
    if (!reply.ok) throw new Error(reply.reason);
    expect(fake.requests.length).toBe(1);
    const [request] = fake.requests;
    expect(request!.path).toBe("/v1/systemone");
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.body.model).toBe(policy.model.jev.model);
    expect(Object.keys(request!.body.questions)).toEqual(["act", "undo", "load"]);
    expect(request!.body.questions.act.type).toBe("choice");
    expect(request!.body.questions.undo.criteria.length).toBe(policy.undo_levels.length);
    const act = reply.answers.act as { choice: string; probabilities: Record<string, number>; source: string };
    expect(act.choice).toBe("delete");
    expect(act.probabilities.delete).toBeCloseTo(0.97);
    expect(act.source).toBe("model");
    const undo = reply.answers.undo as { score: number; probabilities: number[] };
    expect(undo.score).toBeGreaterThan(2.9);
    expect(undo.probabilities[3]).toBeCloseTo(0.97);
    expect(reply.usage).toEqual({ input_tokens: 321, output_tokens: 12 });
    expect(reply.requestIds).toEqual(["req_1"]);
    expect(reply.model).toBe("jev-1.13.0");
  });

  test("TYPESAFE_BASE_URL overrides the policy's base URL; a bare host gets /v1", () => {
    expect(jevUrl(policy, {})).toBe("https://api.typesafe.ai/v1/systemone");
    expect(jevUrl(policy, { TYPESAFE_BASE_URL: "http://127.0.0.1:9" })).toBe("http://127.0.0.1:9/v1/systemone");
    expect(jevUrl(policy, { TYPESAFE_BASE_URL: "https://gw.example/v1/" })).toBe("https://gw.example/v1/systemone");
  });

  test("no key: not sent at all", async () => {
    const reply = await askJev(set, { policy, env: { TYPESAFE_BASE_URL: env.TYPESAFE_BASE_URL }, deadline: soon() });
    expect(reply).toMatchObject({ ok: false, kind: "no-key" });
    expect(fake.requests.length).toBe(0);
  });

  test("429 with Retry-After is retried after the wait, within the deadline", async () => {
    let n = 0;
    const answer = jevReply({ act: "read", undo: 0, load: 0 });
    fake.handle((request) =>
      ++n === 1 ? Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after": "0.3" } }) : answer(request),
    );
    const started = performance.now();
    const reply = await askJev(set, { policy, env, deadline: soon() });
    expect(reply.ok).toBe(true);
    expect(reply.attempts).toBe(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(280);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test("429 whose Retry-After is past the deadline fails at once", async () => {
    fake.handle(() => Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after": "30" } }));
    const started = performance.now();
    const reply = await askJev(set, { policy, env, deadline: soon() });
    expect(reply).toMatchObject({ ok: false, kind: "http", status: 429 });
    if (!reply.ok) expect(reply.reason).toContain("no time left to retry");
    expect(performance.now() - started).toBeLessThan(300);
    expect(fake.requests.length).toBe(1);
  });

  test("529 and 500 are retried with backoff; the last status is reported", async () => {
    fake.handle(() => new Response("overloaded", { status: 529 }));
    const reply = await askJev(set, { policy, env, deadline: soon(2000) });
    expect(reply).toMatchObject({ ok: false, kind: "http", status: 529 });
    expect(fake.requests.length).toBeGreaterThan(1);
    fake.requests.length = 0;
    let n = 0;
    const answer = jevReply({ act: "read", undo: 0, load: 0 });
    fake.handle((request) => (++n < 3 ? new Response("oops", { status: 500 }) : answer(request)));
    const second = await askJev(set, { policy, env, deadline: soon() });
    expect(second.ok).toBe(true);
    expect(second.attempts).toBe(3);
  });

  test("a 4xx is not retried", async () => {
    fake.handle(() => Response.json({ error: { message: "invalid key" } }, { status: 401 }));
    const reply = await askJev(set, { policy, env, deadline: soon() });
    expect(reply).toMatchObject({ ok: false, kind: "http", status: 401 });
    if (!reply.ok) expect(reply.reason).toContain("invalid key");
    expect(fake.requests.length).toBe(1);
  });

  test("a slow answer is abandoned at the deadline", async () => {
    fake.handle(jevReply({ act: "read" }, { delayMs: 3000 }));
    const started = performance.now();
    const reply = await askJev(set, { policy, env, deadline: soon(300) });
    const took = performance.now() - started;
    expect(reply).toMatchObject({ ok: false, kind: "timeout" });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(600);
  });

  test("malformed JSON, a missing answer and wrong labels are refused", async () => {
    fake.handle(() => new Response("{not json", { headers: { "content-type": "application/json" } }));
    expect(await askJev(set, { policy, env, deadline: soon() })).toMatchObject({ ok: false, kind: "malformed" });
    fake.handle(() => Response.json({ answers: { act: { type: "choice", choice: "read", probabilities: { read: 1 } } } }));
    expect(await askJev(set, { policy, env, deadline: soon() })).toMatchObject({ ok: false, kind: "malformed" });
    fake.handle((request) =>
      Response.json({
        answers: {
          act: { type: "choice", choice: "destroy", probabilities: { destroy: 0.9, read: 0.1 }, confidence: 0.9 },
          undo: { type: "score", score: 1, probabilities: { "0": 0, "1": 1 } },
          load: { type: "score", score: 0, probabilities: { "0": 1 } },
        },
        model: request.body.model,
      }),
    );
    const wrong = await askJev(set, { policy, env, deadline: soon() });
    expect(wrong).toMatchObject({ ok: false, kind: "labels" });
    fake.handle(() =>
      Response.json({
        answers: {
          act: { type: "choice", choice: "read", probabilities: { read: 1 }, confidence: 1 },
          undo: { type: "score", score: 7, probabilities: { "7": 1 } },
          load: { type: "score", score: 0, probabilities: { "0": 1 } },
        },
      }),
    );
    expect(await askJev(set, { policy, env, deadline: soon() })).toMatchObject({ ok: false, kind: "labels" });
  });

  test("a refused connection is a network failure, at once", async () => {
    const reply = await askJev(set, { policy, env: { ...env, TYPESAFE_BASE_URL: "http://127.0.0.1:9/v1" }, deadline: soon() });
    expect(reply).toMatchObject({ ok: false, kind: "network" });
  });

  test("Retry-After in seconds, as a date, and retry-after-ms", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "150" }))).toBe(150);
    expect(retryAfterMs(new Headers({ "retry-after": new Date(10_000).toUTCString() }), 9_000)).toBe(1000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});

describe("OpenAI-compatible", () => {
  const { loaded: openai } = policyWith("model:\n  provider: openai\n  openai:\n    base_url: http://127.0.0.1:9/v1\n    key_env: ''\n");
  const order = labelOrder(openai);
  const fake = startFake(openaiReply({ act: "delete", undo: 3, load: 1 }, order));
  const withUrl = (logprobs = true) => ({
    ...openai.policy,
    model: { ...openai.policy.model, openai: { ...openai.policy.model.openai, base_url: `${fake.url}/v1`, logprobs } },
  });
  const soon = (ms = 1500) => performance.now() + ms;
  beforeEach(() => {
    fake.requests.length = 0;
    fake.handle(openaiReply({ act: "delete", undo: 3, load: 1 }, order));
  });
  afterAll(() => fake.stop());

  test("one completion per question, concurrently; probabilities from log-probabilities", async () => {
    fake.handle(openaiReply({ act: "delete", undo: 3, load: 1 }, order, { delayMs: 250 }));
    const started = performance.now();
    const reply = await askOpenAI(set, { policy: withUrl(), env: {}, deadline: soon() });
    const took = performance.now() - started;
    if (!reply.ok) throw new Error(reply.reason);
    expect(fake.requests.length).toBe(3);
    expect(took).toBeLessThan(700);
    for (const request of fake.requests) {
      expect(request.path).toBe("/v1/chat/completions");
      expect(request.body).toMatchObject({ max_tokens: 1, temperature: 0, logprobs: true, top_logprobs: 20 });
      expect(request.headers.authorization).toBeUndefined();
    }
    const act = reply.answers.act as { choice: string; probabilities: Record<string, number>; source: string };
    expect(act).toMatchObject({ choice: "delete", source: "model" });
    expect(act.probabilities.delete).toBeCloseTo(0.97, 2);
    expect((reply.answers.undo as { score: number }).score).toBeGreaterThan(2.8);
    expect((reply.answers.load as { score: number }).score).toBeCloseTo(1, 0);
    expect(reply.usage).toEqual({ input_tokens: 1200, output_tokens: 3 });
    expect(reply.note).toBeUndefined();
  });

  test("no log-probabilities: one-hot answers, marked and said", async () => {
    fake.handle(openaiReply({ act: "remote", undo: 2, load: 0 }, order, { logprobs: false }));
    const reply = await askOpenAI(set, { policy: withUrl(), env: {}, deadline: soon() });
    if (!reply.ok) throw new Error(reply.reason);
    expect(reply.answers.act).toMatchObject({ choice: "remote", confidence: 1, source: "one-hot" });
    expect(reply.answers.undo).toMatchObject({ score: 2, source: "one-hot" });
    expect(reply.note).toContain("no log-probabilities");
  });

  test("the sampled token's log-probability alone, with no alternatives, is a one-hot answer", async () => {
    fake.handle((request) =>
      Response.json({
        model: "m",
        choices: [
          {
            message: { role: "assistant", content: request.body.messages[1].content.includes("Levels:") ? "0" : "A" },
            logprobs: { content: [{ token: "A", logprob: -0.4, top_logprobs: [] }] },
          },
        ],
      }),
    );
    const reply = await askOpenAI(set, { policy: withUrl(), env: {}, deadline: soon() });
    if (!reply.ok) throw new Error(reply.reason);
    expect(reply.answers.act).toMatchObject({ choice: "read", source: "one-hot" });
    expect(reply.note).toContain("one-hot");
  });

  test("labels outside the options are refused", async () => {
    fake.handle(openaiReply({ act: "delete" }, order, { token: () => "Sure" }));
    const reply = await askOpenAI(set, { policy: withUrl(), env: {}, deadline: soon() });
    expect(reply).toMatchObject({ ok: false, kind: "labels" });
    fake.handle(openaiReply({ act: "delete" }, order, { token: () => "Z", logprobs: false }));
    expect(await askOpenAI(set, { policy: withUrl(), env: {}, deadline: soon() })).toMatchObject({ ok: false, kind: "labels" });
  });

  test("a named key variable that is unset: nothing sent to a remote endpoint; a loopback one is asked without a key", async () => {
    const policyKeyed = { ...withUrl(), model: { ...withUrl().model, openai: { ...withUrl().model.openai, key_env: "OPENAI_API_KEY" } } };
    const remote = {
      ...policyKeyed,
      model: { ...policyKeyed.model, openai: { ...policyKeyed.model.openai, base_url: "https://models.example.invalid/v1" } },
    };
    expect(await askOpenAI(set, { policy: remote, env: {}, deadline: soon() })).toMatchObject({ ok: false, kind: "no-key" });
    fake.requests.length = 0;
    const keyless = await askOpenAI(set, { policy: policyKeyed, env: {}, deadline: soon() });
    expect(keyless.ok).toBe(true);
    expect(fake.requests.filter((request) => request.headers.authorization !== undefined).length).toBe(0);
    // Only this judgment's requests: an earlier test's abandoned request may still arrive.
    fake.requests.length = 0;
    const reply = await askOpenAI(set, { policy: policyKeyed, env: { OPENAI_API_KEY: "sk-local-abcdefghijklmnop" }, deadline: soon() });
    expect(reply.ok).toBe(true);
    const keyed = fake.requests.filter((request) => request.headers.authorization === "Bearer sk-local-abcdefghijklmnop");
    expect(keyed.length).toBe(3);
  });

  test("one question failing fails the judgment without waiting for the others", async () => {
    const slow = openaiReply({ act: "read" }, order, { delayMs: 2000 });
    fake.handle((request) =>
      request.body.messages[1].content.includes("put everything back") ? new Response("bad", { status: 400 }) : slow(request),
    );
    const started = performance.now();
    const reply = await askOpenAI(set, { policy: withUrl(), env: {}, deadline: soon(3000) });
    expect(reply).toMatchObject({ ok: false, kind: "http", status: 400 });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("the ending question works the same way", async () => {
    fake.handle(openaiReply({ ending: "stopped-early" }, order));
    const turn = turnQuestions(openai.policy, { requests: ["do it"], final: "I'll do it next." });
    const reply = await askOpenAI(turn, { policy: withUrl(), env: {}, deadline: soon() });
    if (!reply.ok) throw new Error(reply.reason);
    expect(reply.answers.ending).toMatchObject({ choice: "stopped-early", source: "model" });
  });

  test("token variants count for their label; the rest of the mass is dropped", () => {
    const tokens = ["A", "B", "C"];
    const distribution = labelDistribution(
      [
        { token: " B", logprob: Math.log(0.6) },
        { token: "b", logprob: Math.log(0.2) },
        { token: "A.", logprob: Math.log(0.1) },
        { token: "The", logprob: Math.log(0.1) },
      ],
      tokens,
    );
    expect(distribution[0]).toBeCloseTo(0.1 / 0.9);
    expect(distribution[1]).toBeCloseTo(0.8 / 0.9);
    expect(distribution[2]).toBe(0);
  });
});
