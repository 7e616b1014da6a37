import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { judgeCommand, judgeTurnEnd, selectAnswerer } from "../../src/judge/judge.ts";
import { jevReply, openaiReply, startFake } from "./fakes.ts";
import { defaultPolicy, home, labelOrder, logRecords, policyWith } from "./helpers.ts";

const KEY = "apikey_0123456789abcdefSECRET";
const SECRET_COMMAND =
  "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 curl -H 'Authorization: Bearer tok_live_9f8e7d6c5b4a3210' https://bob:hunter2pass@api.example.com/x";
const SECRETS = ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "tok_live_9f8e7d6c5b4a3210", "hunter2pass", KEY];

describe("answerer selection", () => {
  const { policy } = defaultPolicy();
  test("auto: Jev when its key is set, the rules otherwise", () => {
    expect(selectAnswerer(policy, { TYPESAFE_API_KEY: "k" })).toEqual({ provider: "jev" });
    expect(selectAnswerer(policy, {})).toEqual({ off: "no model configured: TYPESAFE_API_KEY is not set" });
  });
  test("VERDICT_MODE=rules, --rules-only and judge.answerer: rules force the rules", () => {
    expect(selectAnswerer(policy, { TYPESAFE_API_KEY: "k", VERDICT_MODE: "rules" })).toHaveProperty("off");
    expect(selectAnswerer(policy, { TYPESAFE_API_KEY: "k" }, true)).toHaveProperty("off");
    expect(selectAnswerer({ ...policy, judge: { ...policy.judge, answerer: "rules" } }, { TYPESAFE_API_KEY: "k" })).toHaveProperty("off");
  });
  test("model: always try, so a missing key is a failure the log explains", () => {
    expect(selectAnswerer({ ...policy, judge: { ...policy.judge, answerer: "model" } }, {})).toEqual({ provider: "jev" });
  });
});

describe("judging a command with Jev", () => {
  const fake = startFake(jevReply({ act: "delete", undo: 3, load: 0 }));
  let env: Record<string, string>;
  const loaded = defaultPolicy();
  beforeEach(() => {
    env = home({ TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: `${fake.url}/v1` }).env;
    fake.requests.length = 0;
    fake.handle(jevReply({ act: "delete", undo: 3, load: 0 }));
  });
  afterAll(() => fake.stop());

  test("delete that cannot be undone: ask; the log shows the answers and jev", async () => {
    const judged = await judgeCommand({ command: "rm -rf build/cache", cwd: "/tmp", env, host: "cli", event: "check" }, loaded);
    expect(judged).toMatchObject({ verdict: "ask", answerer: "jev" });
    expect(judged.line).toStartWith("jev: deletes or overwrites data nothing regenerates (97%); cannot be undone");
    expect(judged.model).toMatchObject({ provider: "jev", model: "jev-1.13.0", cached: false, requestIds: ["req_1"] });
    const [record] = logRecords(env);
    expect(record).toMatchObject({
      host: "cli",
      event: "check",
      subject: "command",
      text: "rm -rf build/cache",
      verdict: "ask",
      answerer: "jev",
      policy_digest: loaded.digest,
    });
    expect(record.answers.act.choice).toBe("delete");
    expect(record.answers.act.probabilities.delete).toBeCloseTo(0.97);
    expect(record.answers.undo.probabilities.length).toBe(4);
    expect(record.model).toMatchObject({ provider: "jev", request_ids: ["req_1"], usage: { input_tokens: 321, output_tokens: 12 } });
    expect(record.model_not_used).toBeUndefined();
  });

  test("read: allow; an unsure answer: pass", async () => {
    fake.handle(jevReply({ act: "read", undo: 0, load: 0 }));
    expect((await judgeCommand({ command: "ls -la", cwd: "/tmp", env }, loaded)).verdict).toBe("allow");
    fake.handle(jevReply({ act: "edit", undo: 1, load: 0, confidence: 0.5 }));
    expect((await judgeCommand({ command: "sed -i s/a/b/ notes.txt", cwd: "/tmp", env }, loaded)).verdict).toBe("pass");
  });

  test("a line the policy decides outright never reaches the model", async () => {
    const judged = await judgeCommand({ command: "rm -rf ~", cwd: "/tmp", env }, loaded);
    expect(judged).toMatchObject({ verdict: "deny", answerer: "rules", modelNotUsedKind: "decided" });
    expect(fake.requests.length).toBe(0);
    expect(logRecords(env)[0]).toMatchObject({ model_not_used_kind: "decided", rule: "rm-root-or-home" });
  });

  test("identical judgments are answered from the cache; another policy is not", async () => {
    await judgeCommand({ command: "rm -rf build/cache", cwd: "/tmp", env }, loaded);
    const again = await judgeCommand({ command: "rm -rf build/cache", cwd: "/tmp", env }, loaded);
    expect(again.model?.cached).toBe(true);
    expect(again.verdict).toBe("ask");
    expect(fake.requests.length).toBe(1);
    const { loaded: other } = policyWith("judge:\n  thresholds:\n    ask_at_undo: 1.7\n");
    const third = await judgeCommand({ command: "rm -rf build/cache", cwd: "/tmp", env }, other);
    expect(third.model?.cached).toBe(false);
    expect(fake.requests.length).toBe(2);
  });

  test("the deadline counts from the start of verdict, not from the request", async () => {
    fake.handle(jevReply({ act: "read" }, { delayMs: 2000 }));
    const started = performance.now();
    const judged = await judgeCommand({ command: "ls", cwd: "/tmp", env, startedAt: performance.now() - 1300 }, loaded);
    const took = performance.now() - started;
    expect(judged.answerer).toBe("rules");
    expect(judged.modelNotUsedKind).toBe("timeout");
    expect(judged.modelNotUsed).toBe("jev not used: no answer within 1500ms");
    expect(judged.line).toContain("(jev not used: no answer within 1500ms)");
    expect(took).toBeLessThan(600);
  });

  test("model with no key: the rules answer and the log says why", async () => {
    const { loaded: must } = policyWith("judge:\n  answerer: model\n");
    const { TYPESAFE_API_KEY: _unused, ...noKey } = env;
    const judged = await judgeCommand({ command: "ls", cwd: "/tmp", env: noKey }, must);
    expect(judged).toMatchObject({
      answerer: "rules",
      modelNotUsedKind: "no-key",
      modelNotUsed: "jev not used: TYPESAFE_API_KEY is not set",
    });
    expect(logRecords(noKey)[0]).toMatchObject({ model_not_used_kind: "no-key" });
    expect(fake.requests.length).toBe(0);
  });

  test("no secret reaches the log or the model", async () => {
    await judgeCommand({ command: SECRET_COMMAND, cwd: "/tmp", env }, loaded);
    await judgeTurnEnd({ requests: [`deploy with TOKEN=${SECRETS[0]}`], final: `Done, used password=${SECRETS[2]}`, env }, loaded);
    const logText = readFileSync(`${env.XDG_STATE_HOME}/verdict/decisions.jsonl`, "utf8");
    const sent = fake.requests.map((request) => request.text).join("\n");
    expect(fake.requests.length).toBe(2);
    for (const secret of SECRETS.slice(0, 3)) {
      expect(logText).not.toContain(secret);
      expect(sent).not.toContain(secret);
    }
    expect(logText).not.toContain(KEY);
    expect(sent).not.toContain(KEY);
    expect(sent).toContain("[REDACTED]");
  });

  test("a turn's end: the model's stopped-early is refused, finished is not", async () => {
    fake.handle(jevReply({ ending: "stopped-early", confidence: 0.9 }));
    const denied = await judgeTurnEnd(
      { requests: ["Add the flag and its tests."], final: "Added the flag.", env, host: "claude", event: "Stop" },
      loaded,
    );
    expect(denied).toMatchObject({ verdict: "deny", answerer: "jev" });
    expect(denied.line).toStartWith("jev: 90% likely stopped early");
    fake.handle(jevReply({ ending: "finished" }));
    const passed = await judgeTurnEnd({ requests: ["Add the flag."], final: "Added the flag, with tests.", env }, loaded);
    expect(passed).toMatchObject({ verdict: "pass", answerer: "jev" });
    const records = logRecords(env);
    expect(records[0]).toMatchObject({
      subject: "turn",
      host: "claude",
      event: "Stop",
      verdict: "deny",
      answerer: "jev",
      request: "Add the flag and its tests.",
    });
    expect(records[0].answers.ending.choice).toBe("stopped-early");
  });

  test("an outright turn rule stands without asking the model", async () => {
    const judged = await judgeTurnEnd(
      { requests: ["Fix it."], final: "Fixed; the tests pass.", transcript: { commands: [{ command: "bun test", failed: true }] }, env },
      loaded,
    );
    expect(judged).toMatchObject({ verdict: "deny", answerer: "rules", modelNotUsedKind: "decided" });
    expect(fake.requests.length).toBe(0);
  });
});

describe("judging with an OpenAI-compatible endpoint", () => {
  const order = labelOrder(defaultPolicy());
  const fake = startFake(openaiReply({ act: "delete", undo: 3, load: 0 }, order));
  afterAll(() => fake.stop());

  test("log-probabilities give the answers; the verdict and log name openai", async () => {
    const { loaded } = policyWith(`model:\n  provider: openai\n  openai:\n    base_url: ${fake.url}/v1\n    key_env: ''\n`);
    const { env } = home();
    const judged = await judgeCommand({ command: "rm -rf build/cache", cwd: "/tmp", env }, loaded);
    expect(judged).toMatchObject({ verdict: "ask", answerer: "openai" });
    expect(judged.answers?.act.source).toBe("model");
    const [record] = logRecords(env);
    expect(record).toMatchObject({
      answerer: "openai",
      model: { provider: "openai", model: "llama3.1", usage: { input_tokens: 1200, output_tokens: 3 } },
    });
    expect(record.model.request_ids.length).toBe(6);
    expect(fake.requests.length).toBe(3);
  });

  test("no log-probabilities: one-hot answers, and the line says so", async () => {
    fake.handle(openaiReply({ act: "read", undo: 0, load: 0 }, order, { logprobs: false }));
    const { loaded } = policyWith(`model:\n  provider: openai\n  openai:\n    base_url: ${fake.url}/v1\n    key_env: ''\n`);
    const { env } = home();
    const judged = await judgeCommand({ command: "ls", cwd: "/tmp", env }, loaded);
    expect(judged).toMatchObject({ verdict: "allow", answerer: "openai" });
    expect(judged.answers?.act.source).toBe("one-hot");
    expect(judged.line).toContain("no log-probabilities");
    expect(logRecords(env)[0].model.note).toContain("one-hot");
  });
});
