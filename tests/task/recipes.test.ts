/** verdict run against the fake Formal AI: its recipes, its reports and the wire shape, through the compiled binary. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, type FakeServer } from "./fake-formal-ai.ts";
import { loadPolicy } from "../../src/policy/load.ts";
import { evaluateEffects } from "../../src/task/effects.ts";
import { snakeKeys } from "../../src/cli/json.ts";
import { check, evidenceOf, runVerdict, setup, toolSteps } from "./helpers.ts";

/** Whether the embedded default's rules classify every command of the copy recipe, so it runs in workspace mode. */
function defaultRunsCopyRecipe(): boolean {
  const cwd = setup({ "a.txt": "a" }).cwd;
  const loaded = loadPolicy({ cwd, env: {}, only: ["default"] });
  if (!loaded.ok) return false;
  const context = {
    cwd,
    mode: "workspace" as const,
    observed: new Set([join(cwd, "a.txt"), join(cwd, "b.txt")]),
    policy: loaded.loaded.policy,
  };
  return ["test -e a.txt", "test ! -e b.txt", "mkdir -p -- .", "cp a.txt b.txt"].every(
    (command) => evaluateEffects(command, context).allowed,
  );
}

let fake: FakeServer | undefined;
afterEach(() => fake?.stop());

describe("verdict run: recipes", () => {
  test("copy a.txt to b.txt: every check, the copy and its verified effect, exit 0", async () => {
    fake = startFake();
    const s = setup({ "a.txt": "alpha\n" });
    const ran = await runVerdict(s, fake.url, ["copy a.txt to b.txt"]);
    expect(ran.code).toBe(0);
    expect(readFileSync(join(s.cwd, "b.txt"), "utf8")).toBe("alpha\n");
    expect(ran.stdout).toContain("completed (exit 0): finished after 6 tool calls; added b.txt");

    const evidence = evidenceOf(s);
    expect(ran.stdout).toContain(`evidence: ${evidence.evidencePath}`);
    expect(evidence.evidencePath.startsWith(join(s.home, ".local/state/verdict/runs/"))).toBe(true);
    expect(evidence).toMatchObject({
      version: 1,
      kind: "verdict-run",
      request: "copy a.txt to b.txt",
      cwd: s.cwd,
      endpoint: fake.url,
      model: "formal-ai",
      keyEnv: "VERDICT_TASK_API_KEY",
      keySent: false,
      effectsMode: "workspace",
      effects: { added: ["b.txt"], removed: [], changed: [], complete: true },
      fingerprint: { initial: { entries: 1, complete: true }, final: { entries: 2, complete: true } },
      outcome: { status: "completed", exitCode: 0, reason: "finished", remainingObligations: [] },
    });
    expect(evidence.bounds).toMatchObject({
      maxToolCalls: 16,
      callWithinMs: 120000,
      effects: "workspace",
      from: { endpoint: "flag --endpoint", model: "policy" },
    });
    expect(typeof evidence.runId).toBe("string");
    expect(Date.parse(evidence.endedAt)).toBeGreaterThanOrEqual(Date.parse(evidence.startedAt));
    expect(evidence.finalAnswer).toContain("Postconditions checked");

    const tools = toolSteps(evidence);
    expect(tools.map((step: any) => step.command)).toEqual([
      "test -e a.txt",
      "test ! -e b.txt",
      "mkdir -p -- .",
      "cp a.txt b.txt",
      "test -e b.txt",
      "test -e a.txt",
    ]);
    for (const step of tools) {
      expect(step.decision).toBe("ran");
      expect(check(step, "syntax").passed).toBe(true);
      expect(check(step, "effects-mode").passed).toBe(true);
      expect(check(step, "judge")).toMatchObject({ passed: true, verdict: "allow", answerer: "rules" });
      expect(step.receipt).toMatchObject({ exitCode: 0, status: 0, signal: null, timedOut: false, cancelled: false, spawnError: null });
      expect(step.toolResult).toStartWith(`Command: ${step.command}\nDirectory: ${s.cwd}\nOutput: (empty)\nError: (none)\nExit Code: 0`);
    }
    const [first, , mkdir, copy] = tools;
    expect(first).toMatchObject({ turn: 1, call: 1, argv: ["test", "-e", "a.txt"], effectClass: "read", act: "read" });
    expect(check(first, "class")).toMatchObject({ effectClass: "read", act: "read" });
    expect(mkdir.verification).toMatchObject({ verified: true });
    expect(copy).toMatchObject({
      argv: ["cp", "a.txt", "b.txt"],
      effectClass: "write",
      act: "edit",
      targets: [{ path: "b.txt", absolute: join(s.cwd, "b.txt"), kind: "create" }],
      effects: { added: ["b.txt"], removed: [], changed: [], complete: true },
      verification: { verified: true },
    });
    expect(copy.verification.claims.map((claim: any) => [claim.kind, claim.holds])).toEqual([
      ["exists", true],
      ["same-content", true],
    ]);
    expect(check(copy, "observed-before-change").detail).toContain("b.txt: does not exist yet");
    const responses = evidence.steps.filter((step: any) => step.kind === "response");
    expect(responses).toHaveLength(7);
    expect(responses[0]).toMatchObject({
      turn: 1,
      httpStatus: 200,
      finishReason: "tool_calls",
      toolCalls: [{ name: "shell", command: "test -e a.txt" }],
    });
    expect(responses[6]).toMatchObject({ turn: 7, finishReason: "stop", toolCalls: [] });
  });

  // Skipped while the embedded default's rule set does not yet classify test, mkdir and cp (the rule engine's issue).
  test.skipIf(!defaultRunsCopyRecipe())("copy a.txt to b.txt with the embedded default policy alone", async () => {
    fake = startFake();
    const s = setup({ "a.txt": "alpha\n" });
    const ran = await runVerdict(s, fake.url, ["copy a.txt to b.txt"], { policy: false });
    expect(ran.code).toBe(0);
    expect(readFileSync(join(s.cwd, "b.txt"), "utf8")).toBe("alpha\n");
    expect(evidenceOf(s).outcome).toMatchObject({ status: "completed", exitCode: 0 });
  });

  test("move a.txt to sub/b.txt: the source is gone, the destination added, both read back", async () => {
    fake = startFake();
    const s = setup({ "a.txt": "alpha\n", "sub/keep": "" });
    const ran = await runVerdict(s, fake.url, ["move a.txt to sub/b.txt"]);
    expect(ran.code).toBe(0);
    expect(existsSync(join(s.cwd, "a.txt"))).toBe(false);
    expect(readFileSync(join(s.cwd, "sub/b.txt"), "utf8")).toBe("alpha\n");
    const evidence = evidenceOf(s);
    expect(evidence.effects).toEqual({ added: ["sub/b.txt"], removed: ["a.txt"], changed: [], complete: true });
    const tools = toolSteps(evidence);
    expect(tools.map((step: any) => step.command)).toEqual([
      "test -e a.txt",
      "test ! -e sub/b.txt",
      "mkdir -p -- sub",
      "mv a.txt sub/b.txt",
      "test -e sub/b.txt",
      "test ! -e a.txt",
    ]);
    const move = tools[3];
    expect(move.targets.map((t: any) => [t.path, t.kind])).toEqual([
      ["sub/b.txt", "create"],
      ["a.txt", "remove"],
    ]);
    expect(check(move, "observed-before-change").detail).toContain("a.txt: read earlier in this run");
    expect(move.verification.claims.map((claim: any) => [claim.kind, claim.holds])).toEqual([
      ["exists", true],
      ["absent", true],
    ]);
    expect(evidence.outcome).toMatchObject({ status: "completed", exitCode: 0 });
  });

  test("a failed check stops the recipe: completed with the last call's exit status", async () => {
    fake = startFake();
    const s = setup({ "a.txt": "alpha\n", "b.txt": "beta\n" });
    const ran = await runVerdict(s, fake.url, ["copy a.txt to b.txt"]);
    expect(ran.code).toBe(1);
    expect(readFileSync(join(s.cwd, "b.txt"), "utf8")).toBe("beta\n");
    const evidence = evidenceOf(s);
    expect(toolSteps(evidence).map((step: any) => step.command)).toEqual(["test -e a.txt", "test ! -e b.txt"]);
    expect(evidence.finalAnswer).toContain("Blocked: the check `test ! -e b.txt` failed with exit code 1");
    expect(evidence.outcome).toMatchObject({ status: "completed", exitCode: 1, reason: "last-call-failed" });
    expect(evidence.outcome.message).toContain("the last (test ! -e b.txt) exited with 1; no file changed");
    expect(evidence.outcome.remainingObligations[0]).toBe("the last tool call failed: test ! -e b.txt exited with 1");
  });

  test("a final report: ls, then the model's answer; the status comes from the tools, not the text", async () => {
    fake = startFake();
    const s = setup({ "one.txt": "1", "two.txt": "2" });
    const ran = await runVerdict(s, fake.url, ["what files are in this folder?"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("model: The folder holds:");
    const evidence = evidenceOf(s);
    const [ls] = toolSteps(evidence);
    expect(ls).toMatchObject({ command: "ls", effectClass: "read", stdout: "one.txt\ntwo.txt\n", receipt: { stdoutBytes: 16 } });
    expect(ls.toolResult).toBe(`Command: ls\nDirectory: ${s.cwd}\nOutput: one.txt\ntwo.txt\nError: (none)\nExit Code: 0`);
    expect(evidence.finalAnswer).toBe("The folder holds:\none.txt\ntwo.txt");
    expect(evidence.outcome).toMatchObject({ status: "completed", exitCode: 0, message: "finished after 1 tool call; no file changed" });
  });

  test("answered: no tool, exit 0", async () => {
    fake = startFake();
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["hello there"]);
    expect(ran.code).toBe(0);
    const evidence = evidenceOf(s);
    expect(evidence.outcome).toEqual({
      status: "answered",
      exitCode: 0,
      message: "the model answered without calling a tool",
      reason: "answered",
      remainingObligations: [],
    });
    expect(evidence.finalAnswer).toBe("Hello! How can I help?");
    expect(evidence.steps).toHaveLength(1);
    expect(evidence.steps[0]).toMatchObject({ kind: "response", handler: "greeting", finishReason: "stop" });
  });

  test('unsupported: the "unknown" handler before any tool, exit 65', async () => {
    fake = startFake();
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["compose a sonnet about rust"]);
    expect(ran.code).toBe(65);
    const evidence = evidenceOf(s);
    expect(evidence.steps[0]).toMatchObject({ handler: "unknown", content: "I do not know how to help with that yet." });
    expect(evidence.outcome).toMatchObject({ status: "unsupported", exitCode: 65, reason: "not-understood" });
    expect(evidence.outcome.remainingObligations).toEqual(["rephrase the request, or carry it out another way"]);
  });

  test("--json prints the evidence document on stdout and no progress lines", async () => {
    fake = startFake();
    const s = setup({ "a.txt": "alpha\n" });
    const ran = await runVerdict(s, fake.url, ["--json", "copy a.txt to b.txt"]);
    expect(ran.code).toBe(0);
    const printed = JSON.parse(ran.stdout);
    // The --json convention of every command: schema_version first, snake_case keys; the file keeps its camelCase.
    expect(Object.keys(printed)[0]).toBe("schema_version");
    expect(printed).toEqual({ schema_version: 1, ...(snakeKeys(evidenceOf(s)) as Record<string, unknown>) });
    expect(printed).toMatchObject({ kind: "verdict-run", run_id: evidenceOf(s).runId, outcome: { status: "completed", exit_code: 0 } });
    expect(JSON.stringify(printed)).not.toMatch(/"[a-z]+[A-Z][A-Za-z]*":/);
    expect(ran.stdout).not.toContain("[1] test");
  });

  test("--mirror on copies tool output live to stderr; a capped fingerprint says so", async () => {
    fake = startFake({ script: [{ command: "echo mirrored-line" }, { answer: "done" }] });
    const s = setup({ "a.txt": "a", "b.txt": "b", "c.txt": "c" });
    const ran = await runVerdict(s, fake.url, ["--mirror", "on", "--max-fingerprint-entries", "2", "say something"]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain("mirrored-line\n");
    const evidence = evidenceOf(s);
    expect(evidence.fingerprint.initial).toMatchObject({ entries: 2, complete: false, problems: ["stopped at 2 entries"] });
    expect(evidence.effects.complete).toBe(false);
    expect(evidence.outcome.message).toBe("finished after 1 tool call; no file changed (fingerprint incomplete)");
    expect(evidence.outcome.remainingObligations).toEqual([
      "the working directory's fingerprint was incomplete: changes beyond it were not observed",
    ]);
  });

  test("the wire: one shell tool with a required command; ids carried from each assistant turn to its tool message", async () => {
    fake = startFake({ script: [{ commands: ["echo one", "echo two"] }, { answer: "done" }] });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["say one and two"], { env: { VERDICT_TASK_API_KEY: "sekret" } });
    expect(ran.code).toBe(0);
    const [first, second] = fake.requests;
    expect(first!.path).toBe("/api/openai/v1/chat/completions");
    expect(first!.authorization).toBe("Bearer sekret");
    expect(first!.body).toMatchObject({ model: "formal-ai", stream: false, messages: [{ role: "user", content: "say one and two" }] });
    expect(first!.body.tools).toEqual([
      expect.objectContaining({
        type: "function",
        function: expect.objectContaining({ name: "shell", parameters: expect.objectContaining({ required: ["command"] }) }),
      }),
    ]);
    const messages = second!.body.messages;
    expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(messages[1].tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments).command])).toEqual([
      ["call1_0", "shell", "echo one"],
      ["call1_1", "shell", "echo two"],
    ]);
    expect(messages[2]).toMatchObject({
      tool_call_id: "call1_0",
      content: `Command: echo one\nDirectory: ${s.cwd}\nOutput: one\nError: (none)\nExit Code: 0`,
    });
    expect(messages[3]).toMatchObject({ tool_call_id: "call1_1" });
    const evidence = evidenceOf(s);
    expect(evidence.keySent).toBe(true);
    expect(toolSteps(evidence).map((step: any) => [step.turn, step.call, step.id])).toEqual([
      [1, 1, "call1_0"],
      [1, 2, "call1_1"],
    ]);
    // The key never reaches a tool; the run's id does.
    expect(JSON.stringify(evidence)).not.toContain("sekret");
  });
});
