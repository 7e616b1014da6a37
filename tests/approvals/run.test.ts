// `verdict run` with an asked-for delete: the run waits on its approval task, and a decision from another
// shell lets it run or refuses it; the run's evidence and the approvals journal both say who decided
// which digest. Uses the task loop's fake Formal AI server and test policy (rm is an ask there).
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ASSISTANT_SHELL_MARKERS } from "../../src/cli/approvals.ts";
import { BINARY } from "../support/binary.ts";
import { startFake, type FakeServer } from "../task/fake-formal-ai.ts";
import { check, evidenceOf, runVerdict, setup, toolSteps, type Setup } from "../task/helpers.ts";

let fake: FakeServer | undefined;
afterEach(() => fake?.stop());

/** A person's own shell: none of the variables an assistant's shell carries. */
function personEnv(env: Record<string, string>): Record<string, string> {
  const own = { ...env };
  for (const name of ASSISTANT_SHELL_MARKERS) delete own[name];
  return own;
}

function approvals(s: Setup, args: string[]) {
  const result = Bun.spawnSync([BINARY, "approvals", ...args], { cwd: s.cwd, env: personEnv(s.env), stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** Decides the run's task from "another shell" once it waits. */
async function decideWhenWaiting(s: Setup, decide: string[]): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const listed = approvals(s, ["list", "--json"]);
    const task = JSON.parse(listed.stdout).tasks?.[0];
    if (task) {
      const done = approvals(s, [...decide.map((arg) => (arg === "ID" ? task.id.slice(0, 12) : arg))]);
      if (done.code !== 0) throw new Error(done.stderr);
      return task.id;
    }
    await Bun.sleep(50);
  }
  throw new Error("the run opened no approval task");
}

async function deleteRun(decide: string[]) {
  fake = startFake({ script: [{ command: "test -e old.txt" }, { command: "rm old.txt" }, { answer: "done" }] });
  const s = setup({ "old.txt": "keep me?\n" });
  Bun.spawnSync(["git", "init", "-q", s.cwd]);
  Bun.spawnSync(["git", "config", "user.name", "Ada Lovelace"], { cwd: s.cwd });
  let id = "";
  const ran = await runVerdict(s, fake.url, ["delete old.txt"], {
    during: async () => {
      id = await decideWhenWaiting(s, decide);
    },
    timeoutMs: 20_000,
  });
  const journal = readFileSync(join(s.home, ".local/state/verdict/approvals.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  return { s, ran, id, evidence: evidenceOf(s), journal };
}

describe("verdict run waits on an approval task", () => {
  test("approved from another shell: the delete runs; evidence and journal show who approved which digest", async () => {
    const { s, ran, id, evidence, journal } = await deleteRun(["approve", "ID", "--note", "it is a scratch file"]);
    expect(ran.code).toBe(0);
    expect(existsSync(join(s.cwd, "old.txt"))).toBe(false);
    expect(ran.stderr).toContain(`verdict approvals approve ${id.slice(0, 12)}`);
    const approval = check(toolSteps(evidence)[1], "approval");
    const opened = journal.find((r) => r.kind === "task.opened").body.task;
    const decided = journal.find((r) => r.kind === "task.decided").body.decision;
    expect(approval).toMatchObject({
      passed: true,
      decision: "approved",
      by: "Ada Lovelace (command-line)",
      scope: "once",
      taskId: id,
      digest: opened.digest,
      note: "it is a scratch file",
    });
    expect(decided).toMatchObject({ outcome: "approved", by: { name: "Ada Lovelace", via: "command-line" }, reviewed: opened.digest });
    expect(opened.action).toMatchObject({ command: "rm old.txt", program: "rm" });
    expect(opened.before).toEqual([{ command: "test -e old.txt", outcome: "ran earlier in this run" }]);
  }, 30_000);

  test("rejected from another shell: the delete is refused with the reason", async () => {
    const { s, ran, evidence } = await deleteRun(["reject", "ID", "--reason", "keep it"]);
    expect(ran.code).toBe(77);
    expect(existsSync(join(s.cwd, "old.txt"))).toBe(true);
    expect(check(toolSteps(evidence)[1], "approval")).toMatchObject({
      passed: false,
      decision: "refused",
      reason: "rejected",
      by: "Ada Lovelace (command-line)",
    });
    expect(evidence.outcome.message).toContain("keep it");
  }, 30_000);
});
