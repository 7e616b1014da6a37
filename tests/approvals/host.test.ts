import { afterEach, describe, expect, test } from "bun:test";
import { decideTask } from "../../src/approvals/decide.ts";
import { hostAsk, hostCannotAsk } from "../../src/approvals/host.ts";
import { endRun, endTask } from "../../src/approvals/person.ts";
import { journalPath, readJournal, verifyJournal } from "../../src/approvals/journal.ts";
import { fold } from "../../src/approvals/state.ts";
import { defaultPolicy, judgment, policyWith, sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
afterEach(() => box?.cleanup());

function setup() {
  box = sandbox();
  const policy = defaultPolicy();
  const ask = (command = "rm -rf build", session = "s1", extra: { task?: string; cwd?: string } = {}) =>
    hostAsk({ command, cwd: extra.cwd ?? box.project, host: "codex", session, ...(extra.task ? { task: extra.task } : {}) }, judgment(), {
      policy,
      env: box.env,
    });
  const decide = (id: string, request: Parameters<typeof decideTask>[0]) =>
    decideTask(request, { journal: journalPath(box.env), id, via: "command-line", env: box.env, policy });
  return { ask, decide };
}

describe("hostAsk", () => {
  test("Codex and Gemini CLI cannot ask by default; Claude Code and Cursor can", () => {
    const policy = defaultPolicy();
    expect(["claude", "codex", "gemini", "cursor"].filter((h) => hostCannotAsk(h, policy))).toEqual(["codex", "gemini"]);
  });

  test("opens a task and denies with the line and the exact approve command; a retry finds the same task", () => {
    const { ask } = setup();
    const first = ask();
    expect(first.decision).toBe("deny");
    expect(first.task).toBeDefined();
    expect(first.reason).toStartWith(judgment().line);
    expect(first.reason).toContain(`run: verdict approvals approve ${first.task!.slice(0, 12)}`);
    const again = ask();
    expect(again.task).toBe(first.task);
    expect(fold(readJournal(journalPath(box.env)).records).order.length).toBe(1);
  });

  test("once: the next identical call is allowed, the one after opens a new task", () => {
    const { ask, decide } = setup();
    const first = ask();
    expect(decide(first.task!, { kind: "approve", scope: "once" }).ok).toBe(true);
    const retry = ask();
    expect(retry).toMatchObject({ decision: "allow", scope: "once", task: first.task, by: "Dana Tester (asserted, command-line)" });
    const third = ask();
    expect(third.decision).toBe("deny");
    expect(third.task).not.toBe(first.task);
  });

  test("run: every identical call in the session, until the run ends; not another session, not a changed call", () => {
    const { ask, decide } = setup();
    const first = ask();
    decide(first.task!, { kind: "approve", scope: "run", note: "build only" });
    expect(ask().decision).toBe("allow");
    expect(ask().decision).toBe("allow");
    expect(ask("rm -rf build", "s2").decision).toBe("deny");
    expect(ask("rm -rf build ~").decision).toBe("deny");
    expect(ask("rm -rf build", "s1", { cwd: box.root }).decision).toBe("deny");
    endRun("s1", box.env);
    expect(ask().decision).toBe("deny");
  });

  test("task: identical calls in the same task only, until the task ends", () => {
    const { ask, decide } = setup();
    const first = ask("rm -rf build", "s1", { task: "t1" });
    decide(first.task!, { kind: "approve", scope: "task" });
    expect(ask("rm -rf build", "s1", { task: "t1" }).decision).toBe("allow");
    expect(ask("rm -rf build", "s1", { task: "t2" }).decision).toBe("deny");
    endTask("s1", "t1", box.env);
    expect(ask("rm -rf build", "s1", { task: "t1" }).decision).toBe("deny");
  });

  test("a rejection is told once with its reason; the retry after that opens a new task", () => {
    const { ask, decide } = setup();
    const first = ask();
    decide(first.task!, { kind: "reject", reason: "not the build folder" });
    const told = ask();
    expect(told.decision).toBe("deny");
    expect(told.reason).toContain("rejected it: not the build folder");
    const next = ask();
    expect(next.task).not.toBe(first.task);
  });

  test("an expired task is a refusal nobody made, recorded whenever verdict touches the journal", () => {
    box = sandbox();
    const policy = policyWith({ wait_at_most: "1s" });
    const t0 = new Date("2026-01-01T00:00:00Z");
    const call = { command: "rm -rf build", cwd: box.project, host: "codex", session: "s1" };
    const first = hostAsk(call, judgment(), { policy, env: box.env, now: () => t0 });
    const later = new Date(t0.getTime() + 1500);
    const told = hostAsk(call, judgment(), { policy, env: box.env, now: () => later });
    expect(told.reason).toContain("nobody approved it before its deadline");
    const entry = fold(readJournal(journalPath(box.env)).records).tasks.get(first.task!)!;
    expect(entry.decision).toMatchObject({ outcome: "expired", by: null });
    const late = decideTask(
      { kind: "approve" },
      { journal: journalPath(box.env), id: first.task!, via: "command-line", env: box.env, now: () => later },
    );
    expect(late).toMatchObject({ ok: false, code: "ALREADY-DECIDED" });
  });

  test("a damaged journal denies, saying so", () => {
    const { ask } = setup();
    ask();
    const path = journalPath(box.env);
    require("node:fs").writeFileSync(path, require("node:fs").readFileSync(path, "utf8").replace("rm -rf build", "rm -rf buildX"));
    const result = ask("echo hi");
    expect(result.decision).toBe("deny");
    expect(result.reason).toContain("journal");
    expect(verifyJournal(path).damage?.line).toBe(1);
  });
});
