/**
 * The model path through the compiled binary (dist/verdict), against fake
 * Jev and OpenAI-compatible servers on 127.0.0.1, each run in a throwaway
 * home. Commands go through `verdict hook claude` (a PreToolUse payload) and
 * `verdict check`; turn ends through `verdict check-stop`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { jevReply, openaiReply, startFake, type Fake } from "./fakes.ts";
import { BINARY, defaultPolicy, home, labelOrder, logRecords, runAsync, tempDir } from "./helpers.ts";

const KEY = "apikey_0123456789abcdefSECRET";
/** The slack allowed past answer_within for starting the process, falling back and exiting. */
const MARGIN_MS = 700;

beforeAll(() => {
  if (!existsSync(BINARY)) {
    const built = Bun.spawnSync([process.execPath, "build.ts"], { cwd: resolve(import.meta.dir, "../..") });
    if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`);
  }
});

function payload(command: string, cwd: string): string {
  return JSON.stringify({
    session_id: "s1",
    transcript_path: "",
    cwd,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "t1",
  });
}

/** Judges a command through `verdict hook claude`; returns the host's decision and the run. */
async function hook(command: string, env: Record<string, string>) {
  const cwd = join(env.HOME!, "work");
  const ran = await runAsync(["hook", "claude"], { cwd, env, stdin: payload(command, cwd) });
  const out = ran.stdout.trim() ? JSON.parse(ran.stdout) : {};
  return {
    ...ran,
    decision: out.hookSpecificOutput?.permissionDecision as string | undefined,
    reason: out.hookSpecificOutput?.permissionDecisionReason as string | undefined,
  };
}

function jevHome(fake: Fake, extra: Record<string, string> = {}) {
  return home({ TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: `${fake.url}/v1`, ...extra }).env;
}

describe("binary with Jev", () => {
  const fake = startFake(jevReply({ act: "delete", undo: 3, load: 0 }));
  beforeEach(() => {
    fake.requests.length = 0;
    fake.handle(jevReply({ act: "delete", undo: 3, load: 0 }));
  });
  afterAll(() => fake.stop());

  test("delete, cannot be undone: the hook asks; the log shows the answers and jev", async () => {
    const env = jevHome(fake);
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.code).toBe(0);
    expect(ran.decision).toBe("ask");
    expect(ran.reason).toContain("jev: deletes or overwrites data nothing regenerates (97%); cannot be undone");
    const [record] = logRecords(env);
    expect(record).toMatchObject({ host: "claude", event: "PreToolUse", answerer: "jev", verdict: "ask", text: "rm -rf build/cache" });
    expect(record.answers.act).toMatchObject({ choice: "delete", source: "model" });
    expect(record.answers.undo.score).toBeGreaterThan(2.9);
    expect(record.model).toMatchObject({ provider: "jev", model: "jev-1.13.0", request_ids: ["req_1"], usage: { input_tokens: 321 } });
    expect(fake.requests.length).toBe(1);
  });

  test("answers that allow, and answers that pass", async () => {
    fake.handle(jevReply({ act: "read", undo: 0, load: 0 }));
    const env = jevHome(fake);
    expect((await hook("ls -la", env)).decision).toBe("allow");
    fake.handle(jevReply({ act: "edit", undo: 1, load: 0, confidence: 0.5 }));
    const passed = await hook("frobnicate --all", env);
    expect(passed.decision).toBeUndefined();
    expect(logRecords(env).map((record) => [record.verdict, record.answerer])).toEqual([
      ["allow", "jev"],
      ["pass", "jev"],
    ]);
  });

  test("a slow server: the rules judge within answer_within and the log says why", async () => {
    fake.handle(jevReply({ act: "read" }, { delayMs: 5000 }));
    const env = jevHome(fake);
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.ms).toBeLessThan(1500 + MARGIN_MS);
    const [record] = logRecords(env);
    expect(record).toMatchObject({
      answerer: "rules",
      model_not_used_kind: "timeout",
      model_not_used: "jev not used: no answer within 1500ms",
    });
    expect(record.latency_ms).toBeLessThan(1500 + 100);
  });

  test("429 with Retry-After: retried after the wait, and answered", async () => {
    let n = 0;
    const answer = jevReply({ act: "delete", undo: 3, load: 0 });
    fake.handle((request) =>
      ++n === 1
        ? Response.json({ error: { message: "rate limited" } }, { status: 429, headers: { "retry-after": "0.25" } })
        : answer(request),
    );
    const env = jevHome(fake);
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.decision).toBe("ask");
    expect(fake.requests.length).toBe(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(240);
    expect(logRecords(env)[0].model).toMatchObject({ attempts: 2 });
  });

  test("429 with a Retry-After past the deadline: the rules, at once", async () => {
    fake.handle(() => Response.json({ error: { message: "rate limited" } }, { status: 429, headers: { "retry-after": "20" } }));
    const env = jevHome(fake);
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.ms).toBeLessThan(1000);
    expect(logRecords(env)[0]).toMatchObject({ answerer: "rules", model_not_used_kind: "http", model: { status: 429 } });
  });

  test("500, malformed JSON, wrong labels: the rules' verdict stands, and the log says why", async () => {
    const cases: [Parameters<Fake["handle"]>[0], string][] = [
      [() => new Response("internal error", { status: 500 }), "http"],
      [() => new Response('{"answers": {', { headers: { "content-type": "application/json" } }), "malformed"],
      [
        () =>
          Response.json({
            answers: {
              act: { type: "choice", choice: "obliterate", probabilities: { obliterate: 1 }, confidence: 1 },
              undo: { type: "score", score: 0, probabilities: { "0": 1 } },
              load: { type: "score", score: 0, probabilities: { "0": 1 } },
            },
          }),
        "labels",
      ],
    ];
    for (const [handler, kind] of cases) {
      fake.handle(handler);
      const env = jevHome(fake);
      const ran = await hook("rm -rf build/cache", env);
      expect(ran.code).toBe(0);
      const [record] = logRecords(env);
      expect({ kind, answerer: record.answerer, got: record.model_not_used_kind }).toEqual({ kind, answerer: "rules", got: kind });
      expect(record.model_not_used).toStartWith("jev not used: ");
      expect(record.line).toContain("(jev not used: ");
    }
  });

  test("missing key: auto runs the rules quietly; answerer: model says the key is missing", async () => {
    const env = home({ TYPESAFE_BASE_URL: `${fake.url}/v1` }).env;
    await hook("rm -rf build/cache", env);
    const policy = join(tempDir(), "policy.yaml");
    writeFileSync(policy, "judge:\n  answerer: model\n");
    await hook("rm -rf build/cache", { ...env, VERDICT_POLICY: policy });
    const records = logRecords(env);
    expect(records.map((record) => record.model_not_used_kind)).toEqual(["off", "no-key"]);
    expect(records[1].model_not_used).toBe("jev not used: TYPESAFE_API_KEY is not set");
    expect(fake.requests.length).toBe(0);
  });

  test("the server stopped: the rules judge within the deadline and the log says why", async () => {
    const gone = startFake(jevReply({ act: "read" }));
    const url = gone.url;
    await gone.stop();
    const env = home({ TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: `${url}/v1` }).env;
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.ms).toBeLessThan(1500 + MARGIN_MS);
    const [record] = logRecords(env);
    expect(record).toMatchObject({ answerer: "rules", model_not_used_kind: "network" });
    expect(record.model_not_used).toContain("cannot reach 127.0.0.1");
  });

  test("concurrent hooks share the cache and the log", async () => {
    const env = jevHome(fake);
    const commands = Array.from({ length: 8 }, (_, index) => `rm -rf build/cache${index % 4}`);
    const first = await Promise.all(commands.map((command) => hook(command, env)));
    expect(first.every((ran) => ran.decision === "ask")).toBe(true);
    const asked = fake.requests.length;
    expect(asked).toBeGreaterThanOrEqual(4);
    expect(asked).toBeLessThanOrEqual(8);
    const second = await Promise.all(commands.map((command) => hook(command, env)));
    expect(second.every((ran) => ran.decision === "ask")).toBe(true);
    expect(fake.requests.length).toBe(asked);
    const records = logRecords(env);
    expect(records.length).toBe(16);
    expect(records.slice(8).every((record) => record.model.cached === true)).toBe(true);
    const cache = readdirSync(join(env.XDG_CACHE_HOME!, "verdict", "answers"));
    expect(cache.filter((name) => name.endsWith(".json")).length).toBe(4);
    expect(cache.filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test("no secret in a command reaches the log or the server", async () => {
    const env = jevHome(fake);
    const secrets = ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "hunter2pass", "s3cr3t-Value-42"];
    await hook(`GITHUB_TOKEN=${secrets[0]} git push https://bob:${secrets[1]}@example.com/r.git && PASSWORD=${secrets[2]} ./tool`, env);
    const logText = readFileSync(join(env.XDG_STATE_HOME!, "verdict", "decisions.jsonl"), "utf8");
    const sent = fake.requests.map((request) => request.text).join("\n");
    expect(sent).toContain("[REDACTED]");
    for (const secret of [...secrets, KEY]) {
      expect(logText).not.toContain(secret);
      expect(sent).not.toContain(secret);
    }
  });

  test("check-stop: the model's stopped-early denies (exit 12), finished passes (exit 10)", async () => {
    const env = jevHome(fake);
    fake.handle(jevReply({ ending: "stopped-early", confidence: 0.9 }));
    const denied = await runAsync(["check-stop", "--request", "Add the flag", "and its tests", "--final", "Added the flag."], {
      env,
      cwd: env.HOME,
    });
    expect(denied.code).toBe(12);
    expect(denied.stdout).toStartWith("deny: jev: 90% likely stopped early");
    fake.handle(jevReply({ ending: "finished" }));
    const passed = await runAsync(["check-stop", "--request", "Add the flag", "--final", "Added it, with tests.", "--json"], {
      env,
      cwd: env.HOME,
    });
    expect(passed.code).toBe(10);
    expect(JSON.parse(passed.stdout)).toMatchObject({ verdict: "pass", answerer: "jev", answers: { ending: { choice: "finished" } } });
    expect(fake.requests[0]!.body.state.developer_requests_oldest_first).toEqual(["Add the flag", "and its tests"]);
    const records = logRecords(env);
    expect(records.map((record) => [record.subject, record.event, record.verdict, record.answerer])).toEqual([
      ["turn", "check-stop", "deny", "jev"],
      ["turn", "check-stop", "pass", "jev"],
    ]);
  });

  test("check-stop --rules-only never asks the model", async () => {
    const env = jevHome(fake);
    const ran = await runAsync(
      ["check-stop", "--rules-only", "--request", "Fix it", "--final", "Fixed part of it. Next, I'll fix the rest."],
      { env, cwd: env.HOME },
    );
    expect(ran.code).toBe(12);
    expect(ran.stdout).toContain("rules: 90% likely stopped early");
    expect(fake.requests.length).toBe(0);
  });

  test("verdict check -- rm -rf build/cache asks with jev's answers; with the server stopped the rules judge in time", async () => {
    const env = jevHome(fake);
    const cwd = join(env.HOME!, "work");
    const ran = await runAsync(["check", "--", "rm", "-rf", "build/cache"], { env, cwd });
    expect(ran.code).toBe(11);
    expect(ran.stdout).toStartWith("ask: jev: deletes or overwrites data nothing regenerates (97%); cannot be undone");
    const json = await runAsync(["check", "--json", "--", "rm -rf build/cache"], { env, cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ verdict: "ask", answerer: "jev", act: { choice: "delete", source: "model" } });
    const [logged] = logRecords(env);
    expect(logged).toMatchObject({ host: "cli", event: "check", answerer: "jev", verdict: "ask", text: "rm -rf build/cache" });
    expect(logged.answers.act).toMatchObject({ choice: "delete", source: "model" });
    const gone = startFake(jevReply({}));
    const url = gone.url;
    await gone.stop();
    const offline = { ...env, TYPESAFE_BASE_URL: `${url}/v1` };
    const fallback = await runAsync(["check", "--json", "--", "rm -rf build/cache2"], { env: offline, cwd });
    expect(fallback.ms).toBeLessThan(1500 + MARGIN_MS);
    const judged = JSON.parse(fallback.stdout);
    expect(judged.answerer).toBe("rules");
    expect(judged.model_not_used).toContain("jev not used: cannot reach 127.0.0.1");
    const last = logRecords(env).at(-1);
    expect(last).toMatchObject({ event: "check", answerer: "rules", text: "rm -rf build/cache2" });
    expect(JSON.stringify(last)).toContain("cannot reach 127.0.0.1");
  });

  test("verdict check with a slow server: the rules' verdict within answer_within", async () => {
    fake.handle(jevReply({ act: "read" }, { delayMs: 5000 }));
    const env = jevHome(fake);
    const ran = await runAsync(["check", "--json", "--", "rm -rf build/cache"], { env, cwd: join(env.HOME!, "work") });
    expect(ran.ms).toBeLessThan(1500 + MARGIN_MS);
    expect(JSON.parse(ran.stdout)).toMatchObject({ answerer: "rules", model_not_used: "jev not used: no answer within 1500ms" });
  });
});

describe("binary with an OpenAI-compatible endpoint", () => {
  const order = labelOrder(defaultPolicy());
  const fake = startFake(openaiReply({ act: "delete", undo: 3, load: 0 }, order));
  afterAll(() => fake.stop());
  const policyFor = (url: string, logprobs = true) => {
    const file = join(tempDir(), "policy.yaml");
    writeFileSync(
      file,
      `model:\n  provider: openai\n  openai:\n    base_url: ${url}/v1\n    key_env: OPENAI_API_KEY\n    logprobs: ${logprobs}\njudge:\n  answerer: model\n`,
    );
    return file;
  };

  test("log-probabilities: the hook asks, the log names openai with the probabilities", async () => {
    fake.requests.length = 0;
    const env = home({ VERDICT_POLICY: policyFor(fake.url), OPENAI_API_KEY: "sk-local-0123456789abcdefghij" }).env;
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.decision).toBe("ask");
    expect(fake.requests.length).toBe(3);
    expect(fake.requests.every((request) => request.body.logprobs === true && request.body.max_tokens === 1)).toBe(true);
    const [record] = logRecords(env);
    expect(record).toMatchObject({ answerer: "openai", answers: { act: { choice: "delete", source: "model" } } });
    expect(record.answers.act.probabilities.delete).toBeCloseTo(0.97, 2);
    expect(readFileSync(join(env.XDG_STATE_HOME!, "verdict", "decisions.jsonl"), "utf8")).not.toContain("sk-local-0123456789abcdefghij");
  });

  test("the server stopped: the rules judge within the deadline and the log says why", async () => {
    const gone = startFake(openaiReply({}, order));
    const url = gone.url;
    await gone.stop();
    const env = home({ VERDICT_POLICY: policyFor(url), OPENAI_API_KEY: "sk-local-0123456789abcdefghij" }).env;
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.ms).toBeLessThan(1500 + MARGIN_MS);
    expect(logRecords(env)[0]).toMatchObject({ answerer: "rules", model_not_used_kind: "network" });
  });

  test("verdict check with log-probabilities asks; with the server stopped the rules judge in time", async () => {
    fake.handle(openaiReply({ act: "delete", undo: 3, load: 0 }, order));
    const env = home({ VERDICT_POLICY: policyFor(fake.url), OPENAI_API_KEY: "sk-local-0123456789abcdefghij" }).env;
    const cwd = join(env.HOME!, "work");
    const ran = await runAsync(["check", "--json", "--", "rm -rf build/cache"], { env, cwd });
    expect(ran.code).toBe(11);
    const judged = JSON.parse(ran.stdout);
    expect(judged).toMatchObject({ verdict: "ask", answerer: "openai", act: { choice: "delete", source: "model" } });
    expect(judged.act.probabilities.delete).toBeCloseTo(0.97, 2);
    const gone = startFake(openaiReply({}, order));
    const url = gone.url;
    await gone.stop();
    const offline = { ...env, VERDICT_POLICY: policyFor(url) };
    const fallback = await runAsync(["check", "--json", "--", "rm -rf build/cache"], { env: offline, cwd });
    expect(fallback.ms).toBeLessThan(1500 + MARGIN_MS);
    expect(JSON.parse(fallback.stdout)).toMatchObject({ answerer: "rules" });
  });

  test("no log-probabilities: one-hot answers, marked in the answers and the line", async () => {
    fake.handle(openaiReply({ act: "delete", undo: 3, load: 0 }, order, { logprobs: false }));
    const env = home({ VERDICT_POLICY: policyFor(fake.url), OPENAI_API_KEY: "sk-local-0123456789abcdefghij" }).env;
    const ran = await hook("rm -rf build/cache", env);
    expect(ran.decision).toBe("ask");
    expect(ran.reason).toContain("no log-probabilities");
    expect(logRecords(env)[0].answers.act.source).toBe("one-hot");
  });
});
