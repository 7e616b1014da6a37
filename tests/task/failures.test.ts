/** verdict run when the endpoint fails, breaks the protocol, or a bound is reached; through the compiled binary. */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { startFake, type FakeServer } from "./fake-formal-ai.ts";
import { closedPort, evidenceOf, processAlive, runVerdict, setup, toolSteps } from "./helpers.ts";

let fake: FakeServer | undefined;
afterEach(() => fake?.stop());

describe("verdict run: the endpoint", () => {
  test("agent mode off: the server's refusal is unavailable (69), with the fix", async () => {
    fake = startFake({ agentMode: false });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["what files are in this folder?"]);
    expect(ran.code).toBe(69);
    const evidence = evidenceOf(s);
    expect(evidence.steps[0]).toMatchObject({ kind: "response", finishReason: "stop", toolRefusal: "agent-mode-required" });
    expect(evidence.outcome).toMatchObject({ status: "unavailable", exitCode: 69, reason: "agent-mode-required" });
    expect(evidence.outcome.message).toContain("not allowed without explicit agent mode");
    expect(evidence.outcome.remainingObligations[0]).toContain("formal-ai serve --agent-mode");
    expect(ran.stdout).toContain("remaining: start the server with agent mode");
  });

  test("401: unavailable, naming the key variable; the right key works", async () => {
    fake = startFake({ token: "t0ken" });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["hello"]);
    expect(ran.code).toBe(69);
    const evidence = evidenceOf(s);
    expect(evidence.steps).toEqual([expect.objectContaining({ kind: "request-failed", httpStatus: 401, reason: "http-401" })]);
    expect(evidence.outcome).toMatchObject({ status: "unavailable", reason: "http-401" });
    expect(evidence.outcome.message).toContain("missing or invalid bearer token");
    expect(evidence.outcome.message).toContain("set VERDICT_TASK_API_KEY");

    const s2 = setup();
    const ok = await runVerdict(s2, fake.url, ["hello"], { env: { MY_KEY: "t0ken", VERDICT_TASK_KEY_ENV: "MY_KEY" } });
    expect(ok.code).toBe(0);
    expect(evidenceOf(s2)).toMatchObject({ keyEnv: "MY_KEY", keySent: true, outcome: { status: "answered" } });
  });

  for (const [behaviour, status] of [
    ["status-500", 500],
    ["status-503", 503],
  ] as const) {
    test(`${status}: unavailable (69)`, async () => {
      fake = startFake({ behaviour });
      const s = setup();
      const ran = await runVerdict(s, fake.url, ["hello"]);
      expect(ran.code).toBe(69);
      expect(evidenceOf(s).outcome).toMatchObject({ status: "unavailable", reason: `http-${status}` });
    });
  }

  test("nothing listening: unavailable (69)", async () => {
    const s = setup();
    const ran = await runVerdict(s, `http://127.0.0.1:${closedPort()}/v1`, ["hello"]);
    expect(ran.code).toBe(69);
    expect(evidenceOf(s).outcome).toMatchObject({ status: "unavailable", reason: "unreachable" });
  });

  for (const [behaviour, reason] of [
    ["not-json", "malformed-response"],
    ["no-choices", "malformed-response"],
    ["tool-calls-without-calls", "malformed-response"],
    ["bad-arguments", "bad-arguments"],
    ["unknown-tool", "unknown-tool"],
  ] as const) {
    test(`${behaviour}: protocol-error (76), reason ${reason}, nothing runs`, async () => {
      fake = startFake({ behaviour });
      const s = setup();
      const ran = await runVerdict(s, fake.url, ["what files are in this folder?"]);
      expect(ran.code).toBe(76);
      const evidence = evidenceOf(s);
      expect(evidence.outcome).toMatchObject({ status: "protocol-error", exitCode: 76, reason });
      expect(evidence.steps).toEqual([expect.objectContaining({ kind: "request-failed", reason })]);
      if (behaviour === "unknown-tool") expect(evidence.outcome.message).toContain('"write_file"');
    });
  }
});

describe("verdict run: bounds", () => {
  test("more tool calls than allowed: budget-exhausted (75) before the extra call runs", async () => {
    fake = startFake({ script: [{ command: "echo again" }] });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["--max-tool-calls", "3", "loop forever"]);
    expect(ran.code).toBe(75);
    const evidence = evidenceOf(s);
    const tools = toolSteps(evidence);
    expect(tools.map((step: any) => step.decision)).toEqual(["ran", "ran", "ran", "not-run"]);
    expect(tools[3].checks).toEqual([{ name: "budget", passed: false, detail: "the run allows 3 tool calls" }]);
    expect(evidence.outcome).toMatchObject({ status: "budget-exhausted", reason: "tool-calls" });
    expect(evidence.bounds).toMatchObject({ maxToolCalls: 3, from: { max_tool_calls: "flag --max-tool-calls" } });
  });

  test("VERDICT_TASK_* variables set bounds; a flag overrides them; a bad value is a usage error", async () => {
    fake = startFake({ script: [{ command: "echo again" }] });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["loop forever"], {
      env: { VERDICT_TASK_MAX_TOOL_CALLS: "2", VERDICT_TASK_CALL_WITHIN: "5s" },
    });
    expect(ran.code).toBe(75);
    expect(evidenceOf(s).bounds).toMatchObject({
      maxToolCalls: 2,
      callWithinMs: 5000,
      from: { max_tool_calls: "env VERDICT_TASK_MAX_TOOL_CALLS" },
    });
    const s2 = setup();
    await runVerdict(s2, fake.url, ["--max-tool-calls=3", "loop forever"], { env: { VERDICT_TASK_MAX_TOOL_CALLS: "2" } });
    expect(evidenceOf(s2).bounds).toMatchObject({ maxToolCalls: 3, from: { max_tool_calls: "flag --max-tool-calls" } });
    const bad = await runVerdict(setup(), fake.url, ["loop"], { env: { VERDICT_TASK_EFFECTS: "everything" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("VERDICT_TASK_EFFECTS");
  });

  test("a tool call that never ends: stopped at its limit, its process group killed, budget-exhausted (75)", async () => {
    fake = startFake({ script: [{ command: "sleep 41.7" }] });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["--call-within", "400ms", "--grace", "200ms", "wait"]);
    expect(ran.code).toBe(75);
    expect(ran.durationMs).toBeLessThan(5000);
    const evidence = evidenceOf(s);
    const [sleep] = toolSteps(evidence);
    expect(sleep.receipt).toMatchObject({ timedOut: true, status: 124, signal: "SIGTERM", exitCode: null });
    expect(sleep.receipt.durationMs).toBeGreaterThanOrEqual(350);
    expect(sleep.toolResult).toContain("Exit Code: 124");
    expect(evidence.outcome).toMatchObject({ status: "budget-exhausted", reason: "call-timeout" });
    expect(processAlive("sleep 41.7")).toBe(false);
  });

  test("a call that ignores SIGTERM is killed after the grace period, with whatever it started", async () => {
    fake = startFake({ script: [{ command: "./stubborn.sh" }] });
    const s = setup({ "stubborn.sh": "#!/bin/sh\ntrap '' TERM\nsleep 44.25 &\nsleep 44.5\n" });
    chmodSync(join(s.cwd, "stubborn.sh"), 0o755);
    const ran = await runVerdict(s, fake.url, ["--effects", "any", "--call-within", "300ms", "--grace", "300ms", "be stubborn"]);
    expect(ran.code).toBe(75);
    const [call] = toolSteps(evidenceOf(s));
    expect(call.receipt).toMatchObject({ timedOut: true, signal: "SIGKILL", status: 124 });
    expect(call.receipt.durationMs).toBeGreaterThanOrEqual(550);
    expect(processAlive("sleep 44.25")).toBe(false);
    expect(processAlive("sleep 44.5")).toBe(false);
  });

  test("a hung request: unavailable at the request limit, budget-exhausted when the run's time is what ran out", async () => {
    fake = startFake({ behaviour: "hang" });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["--request-within", "300ms", "hello"]);
    expect(ran.code).toBe(69);
    expect(evidenceOf(s).outcome).toMatchObject({ status: "unavailable", reason: "request-timeout" });
    const s2 = setup();
    const ran2 = await runVerdict(s2, fake.url, ["--run-within", "300ms", "hello"]);
    expect(ran2.code).toBe(75);
    expect(evidenceOf(s2).outcome).toMatchObject({ status: "budget-exhausted", reason: "run-time" });
  });

  test("huge output: kept head and tail per stream with a marker, in the receipt and the tool message", async () => {
    fake = startFake({ script: [{ command: "seq 1 200000" }, { answer: "counted" }] });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["--max-output", "4KB", "count"]);
    expect(ran.code).toBe(0);
    const [seq] = toolSteps(evidenceOf(s));
    expect(seq.receipt).toMatchObject({ stdoutBytes: 1288895, truncated: { stdout: true, stderr: false } });
    const sent = fake.requests[1]!.body.messages.at(-1).content as string;
    expect(sent).toStartWith("Command: seq 1 200000\n");
    expect(sent).toContain("Output: 1\n2\n3\n");
    expect(sent).toContain("[… truncated: 1284895 bytes dropped; kept the first 2000 and the last 2000 of 1288895 bytes …]");
    expect(sent).toContain("199999\n200000\nError: (none)\nExit Code: 0");
    expect(ran.stdout).toContain("output truncated to 4000 bytes per stream");
  });
});
