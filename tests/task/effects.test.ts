/** verdict run's effect policy, the judge, and readback, through the compiled binary. */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, type FakeServer } from "./fake-formal-ai.ts";
import { check, evidenceOf, runVerdict, setup, toolSteps } from "./helpers.ts";

let fake: FakeServer | undefined;
afterEach(() => fake?.stop());

/** Runs a scripted sequence of commands, then a final answer. */
async function scripted(commands: string[], files: Record<string, string> = {}, args: string[] = []) {
  fake = startFake({ script: [...commands.map((command) => ({ command })), { answer: "done" }] });
  const s = setup(files);
  const ran = await runVerdict(s, fake.url, [...args, "do the scripted thing"]);
  return { s, ran, evidence: evidenceOf(s) };
}

describe("verdict run: the effect policy", () => {
  test("shell syntax is refused with what to send instead; the refusal goes back as a JSON status; nothing after it runs", async () => {
    const { s, ran, evidence } = await scripted(["printf x >> README.md && tail -n 2 README.md", "echo never"], { "README.md": "# r\n" });
    expect(ran.code).toBe(77);
    expect(readFileSync(join(s.cwd, "README.md"), "utf8")).toBe("# r\n");
    const [step] = toolSteps(evidence);
    expect(step).toMatchObject({ decision: "refused", command: "printf x >> README.md && tail -n 2 README.md" });
    expect(check(step, "syntax")).toMatchObject({ passed: false, reason: "shell-syntax" });
    expect(evidence.outcome).toMatchObject({ status: "refused", exitCode: 77, reason: "shell-syntax" });
    expect(evidence.outcome.message).toContain("cannot honour an output redirection (>>)");
    expect(evidence.outcome.remainingObligations[0]).toBe("the refused call did not run, and nothing after it ran");
    expect(JSON.parse(step.toolResult)).toEqual({
      status: "refused",
      reason: "shell-syntax",
      message: expect.stringContaining("the runner captures output itself"),
      command: "printf x >> README.md && tail -n 2 README.md",
    });
    // The server was told, and read it as an expected stop; its reply ran nothing.
    expect(fake!.requests[1]!.body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call1_0", content: step.toolResult });
    expect(evidence.steps.at(-1)).toMatchObject({
      kind: "response",
      afterRefusal: true,
      content: expect.stringContaining("refused (shell-syntax)"),
    });
    expect(toolSteps(evidence)).toHaveLength(1);
  });

  for (const [command, what] of [
    ["cat a.txt | wc -l", "a pipe (|)"],
    ["echo $(date)", "a command substitution ($(…))"],
    ["ls *.txt", "a glob pattern (*)"],
    ["echo $HOME", "a parameter expansion ($HOME)"],
    ["ls; pwd", "a list (;)"],
    ["sudo ls", "through sudo"],
    ["cd sub", "shell builtin"],
  ] as const) {
    test(`refused: ${command}`, async () => {
      const { ran, evidence } = await scripted([command], { "a.txt": "a\n" });
      expect(ran.code).toBe(77);
      expect(evidence.outcome.message).toContain(what);
    });
  }

  test("a write outside the working directory in workspace mode is refused", async () => {
    const { s, ran, evidence } = await scripted(["cp a.txt ../outside.txt"], { "a.txt": "a\n" });
    expect(ran.code).toBe(77);
    expect(existsSync(join(s.cwd, "../outside.txt"))).toBe(false);
    const [step] = toolSteps(evidence);
    expect(check(step, "effects-mode")).toMatchObject({ passed: false, reason: "path-outside-workspace" });
    expect(step.targets).toEqual([{ path: "../outside.txt", absolute: join(s.cwd, "../outside.txt"), kind: "create" }]);
    expect(evidence.outcome).toMatchObject({ status: "refused", reason: "path-outside-workspace" });
  });

  test("a write through a link that leaves the working directory is refused", async () => {
    const { s, ran, evidence } = await scripted(["ln -s .. up", "cp a.txt up/escaped.txt"], { "a.txt": "a\n" });
    expect(ran.code).toBe(77);
    expect(existsSync(join(s.cwd, "../escaped.txt"))).toBe(false);
    expect(toolSteps(evidence).map((step: any) => step.decision)).toEqual(["ran", "refused"]);
    expect(evidence.outcome.reason).toBe("path-outside-workspace");
  });

  test("read-only mode refuses writes and runs reads", async () => {
    const { s, ran, evidence } = await scripted(["cat a.txt", "cp a.txt b.txt"], { "a.txt": "a\n" }, ["--effects", "read-only"]);
    expect(ran.code).toBe(77);
    expect(existsSync(join(s.cwd, "b.txt"))).toBe(false);
    expect(toolSteps(evidence).map((step: any) => step.decision)).toEqual(["ran", "refused"]);
    expect(evidence.outcome).toMatchObject({ reason: "write-not-allowed" });
    expect(evidence.outcome.remainingObligations[1]).toContain("1 call ran before the end");
  });

  test("a program no rule knows is refused in workspace mode and runs in any mode", async () => {
    const files = { "probe.sh": "#!/bin/sh\necho probed\n" };
    const refused = await scripted(["./probe.sh"], files);
    expect(refused.ran.code).toBe(77);
    expect(refused.evidence.outcome.reason).toBe("unknown-program");
    expect(refused.evidence.outcome.message).toContain("no rule of the policy knows ./probe.sh");
    fake?.stop();
    fake = startFake({ script: [{ command: "./probe.sh" }, { answer: "done" }] });
    const s = setup(files);
    chmodSync(join(s.cwd, "probe.sh"), 0o755);
    const ran = await runVerdict(s, fake.url, ["--effects", "any", "probe"]);
    expect(ran.code).toBe(0);
    expect(toolSteps(evidenceOf(s))[0]).toMatchObject({ decision: "ran", effectClass: "unknown", stdout: "probed\n" });
  });

  test("overwriting an existing file no call read is refused; after a read the same write runs", async () => {
    // The target is in build output: overwriting an untracked file elsewhere in the project is a delete the judge asks about.
    const refused = await scripted(["cp a.txt out/b.txt"], { "a.txt": "new\n", "out/b.txt": "old\n" });
    expect(refused.ran.code).toBe(77);
    expect(readFileSync(join(refused.s.cwd, "out/b.txt"), "utf8")).toBe("old\n");
    expect(refused.evidence.outcome.reason).toBe("target-not-observed");
    expect(refused.evidence.outcome.message).toContain("read it first (for example test -e out/b.txt or cat out/b.txt)");

    const allowed = await scripted(["cat out/b.txt", "cp a.txt out/b.txt"], { "a.txt": "new\n", "out/b.txt": "old\n" });
    expect(allowed.ran.code).toBe(0);
    expect(readFileSync(join(allowed.s.cwd, "out/b.txt"), "utf8")).toBe("new\n");
    const copy = toolSteps(allowed.evidence)[1];
    expect(copy.targets[0]).toMatchObject({ path: "out/b.txt", kind: "overwrite" });
    expect(check(copy, "observed-before-change").detail).toBe("out/b.txt: read earlier in this run");
    expect(copy.effects.changed).toEqual(["out/b.txt"]);
  });

  test("a delete the judge flags (ask) waits on its approval; an approval that expires refuses it", async () => {
    fake = startFake({ script: [{ command: "test -e old.txt" }, { command: "rm old.txt" }, { answer: "done" }] });
    const s = setup({ "old.txt": "keep me\n" });
    appendFileSync(s.policy, "approvals:\n  wait_at_most: 500ms\n");
    const ran = await runVerdict(s, fake.url, ["delete old.txt"]);
    expect(ran.code).toBe(77);
    expect(existsSync(join(s.cwd, "old.txt"))).toBe(true);
    const evidence = evidenceOf(s);
    const rm = toolSteps(evidence)[1];
    expect(rm.decision).toBe("refused");
    expect(check(rm, "judge")).toMatchObject({ passed: true, verdict: "ask", rule: "task-test-delete" });
    expect(check(rm, "approval")).toMatchObject({ passed: false, decision: "refused", reason: "expired" });
    expect(evidence.outcome).toMatchObject({ status: "refused", reason: "expired" });
    expect(evidence.outcome.message).toContain("Deletes files nothing regenerates");
  });

  test("an approval wait counts against the run's time: budget-exhausted when it runs out", async () => {
    fake = startFake({ script: [{ command: "test -e old.txt" }, { command: "rm old.txt" }, { answer: "done" }] });
    const s = setup({ "old.txt": "keep me\n" });
    const ran = await runVerdict(s, fake.url, ["--run-within", "800ms", "delete old.txt"]);
    expect(ran.code).toBe(75);
    expect(ran.durationMs).toBeLessThan(5000);
    expect(existsSync(join(s.cwd, "old.txt"))).toBe(true);
    const evidence = evidenceOf(s);
    expect(check(toolSteps(evidence)[1], "approval")).toMatchObject({
      passed: false,
      detail: "the run's time ran out while waiting for approval",
    });
    expect(evidence.outcome).toMatchObject({ status: "budget-exhausted", reason: "run-time" });
  });

  test("a call the judge denies is refused", async () => {
    const { ran, evidence } = await scripted(["cat a.txt", "chmod 600 a.txt"], { "a.txt": "a\n" }, ["--effects", "any"]);
    expect(ran.code).toBe(77);
    const chmod = toolSteps(evidence)[1];
    expect(check(chmod, "judge")).toMatchObject({ passed: false, verdict: "deny", rule: "task-test-deny" });
    expect(evidence.outcome).toMatchObject({ status: "refused", reason: "judge-deny" });
  });
});

describe("verdict run: readback", () => {
  test("a write that exits 0 but changes nothing is unverified (66)", async () => {
    const { s, ran, evidence } = await scripted(["cat a.txt", "sed -i s/zzz/yyy/ a.txt", "echo never"], { "a.txt": "abc\n" });
    expect(ran.code).toBe(66);
    expect(readFileSync(join(s.cwd, "a.txt"), "utf8")).toBe("abc\n");
    const sed = toolSteps(evidence)[1];
    expect(sed.receipt.exitCode).toBe(0);
    expect(sed.verification).toMatchObject({ verified: false, detail: "a.txt did not change" });
    expect(evidence.outcome).toMatchObject({ status: "unverified", exitCode: 66, reason: "readback-failed" });
    expect(toolSteps(evidence)).toHaveLength(2);
  });

  test("a write that changes its target is verified", async () => {
    const { s, ran, evidence } = await scripted(["cat a.txt", "sed -i s/abc/xyz/ a.txt"], { "a.txt": "abc\n" });
    expect(ran.code).toBe(0);
    expect(readFileSync(join(s.cwd, "a.txt"), "utf8")).toBe("xyz\n");
    expect(toolSteps(evidence)[1].verification).toMatchObject({ verified: true, detail: "a.txt changed" });
    expect(evidence.effects.changed).toEqual(["a.txt"]);
  });

  test("a read-only call that changed files is flagged in the evidence and left as an obligation", async () => {
    const { ran, evidence } = await scripted(["gzip -k a.txt"], { "a.txt": "a\n" });
    expect(ran.code).toBe(0);
    const gzip = toolSteps(evidence)[0];
    expect(gzip).toMatchObject({ effectClass: "read", unexpectedEffects: true, effects: { added: ["a.txt.gz"] } });
    expect(evidence.outcome.remainingObligations).toEqual(["review what the read-only call gzip -k a.txt changed: added a.txt.gz"]);
    expect(ran.stdout).toContain("warning: the working directory changed during a read-only call");
  });

  test("the task's variables reach the tools; the endpoint's key does not", async () => {
    // `env` itself asks now (it would print every key into the model's context): name the variables.
    fake = startFake({ script: [{ command: "printenv VERDICT_RUN_ID VERDICT_RUN_CALL TASK_TEST_VAR" }, { answer: "done" }] });
    const s = setup();
    const ran = await runVerdict(s, fake.url, ["--effects", "any", "show the environment"], { env: { VERDICT_TASK_API_KEY: "sekret" } });
    expect(ran.code).toBe(0);
    const evidence = evidenceOf(s);
    const sent = fake.requests[1]!.body.messages.at(-1).content as string;
    expect(sent).toContain(`${evidence.runId}\n1\nfrom-policy\n`);
    expect(sent).not.toContain("sekret");
  });
});
