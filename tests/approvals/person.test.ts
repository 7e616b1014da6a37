import { afterEach, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { decideTask } from "../../src/approvals/decide.ts";
import { journalPath, readJournal } from "../../src/approvals/journal.ts";
import { askPerson, askQuestion, type AskContext } from "../../src/approvals/person.ts";
import { fold } from "../../src/approvals/state.ts";
import { judgment, policyWith, sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
afterEach(() => box?.cleanup());

function terminal(answers: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk) => (shown += chunk.toString()));
  for (const line of answers) input.write(`${line}\n`);
  return { terminal: { input, output }, shown: () => shown };
}

function context(extra: Partial<AskContext> = {}, approvals: Parameters<typeof policyWith>[0] = {}): AskContext & { lines: string[] } {
  const lines: string[] = [];
  return {
    policy: policyWith(approvals),
    env: box.env,
    budget: { used: 0 },
    notify: (line) => lines.push(line),
    pollMs: 20,
    lines,
    ...extra,
  };
}

/** Decides the first open task from "another shell" once it appears. */
async function decideWhenOpen(request: Parameters<typeof decideTask>[0]): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = fold(readJournal(journalPath(box.env)).records).order.find((e) => !e.decision);
    if (open) {
      const result = decideTask(request, { journal: journalPath(box.env), id: open.task.id, via: "command-line", env: box.env });
      if (!result.ok) throw new Error(result.message);
      return;
    }
    await Bun.sleep(10);
  }
  throw new Error("no task opened");
}

const call = () => ({ command: "rm -rf build", cwd: box.project, host: "run", session: "run-1" });

describe("askPerson (verdict run)", () => {
  test("at a terminal: the call, the line and the options; the answer is journaled with who and the digest", async () => {
    box = sandbox();
    const tty = terminal(["r", "only build/"]);
    const ctx = context({ terminal: tty.terminal });
    const outcome = await askPerson(call(), judgment(), ctx);
    expect(outcome).toMatchObject({
      decision: "allow",
      scope: "run",
      via: "terminal",
      note: "only build/",
      by: { name: "Dana Tester", via: "terminal" },
    });
    expect(tty.shown()).toContain("rm -rf build");
    expect(tty.shown()).toContain(judgment().line);
    expect(tty.shown()).toContain("[r] this run");
    expect(ctx.budget.used).toBe(1);
    const entry = fold(readJournal(journalPath(box.env)).records).tasks.get(outcome.task!.id)!;
    expect(entry.decision?.reviewed).toBe(outcome.task!.digest);
    // The same call again in this run: the run approval stands, nobody is asked.
    const again = await askPerson(call(), judgment(), context({ terminal: terminal([]).terminal }));
    expect(again).toMatchObject({ decision: "allow", via: "standing-approval", scope: "run" });
  });

  test("a rejection at the terminal carries its reason", async () => {
    box = sandbox();
    const outcome = await askPerson(call(), judgment(), context({ terminal: terminal(["n", "keep the build"]).terminal }));
    expect(outcome).toMatchObject({ decision: "deny", via: "terminal" });
    expect(outcome.reason).toContain("keep the build");
  });

  test("past the prompt budget the call waits in the batch, and a decision from another shell lets it run", async () => {
    box = sandbox();
    const ctx = context({ terminal: terminal([]).terminal }, { prompts_per_run: 0 });
    const [outcome] = await Promise.all([askPerson(call(), judgment(), ctx), decideWhenOpen({ kind: "approve", note: "fine" })]);
    expect(outcome).toMatchObject({ decision: "allow", via: "journal", scope: "once", by: { via: "command-line" } });
    expect(ctx.lines.join("\n")).toContain("prompts used in this run");
    expect(ctx.lines.join("\n")).toContain("verdict approvals approve");
    const entry = fold(readJournal(journalPath(box.env)).records).tasks.get(outcome.task!.id)!;
    expect(entry.task.batched).toBe(true);
    expect(entry.used).toBe(1);
  });

  test("without a terminal: prints the id and the command, waits, and a rejection refuses", async () => {
    box = sandbox();
    const ctx = context();
    const [outcome] = await Promise.all([askPerson(call(), judgment(), ctx), decideWhenOpen({ kind: "reject", reason: "not now" })]);
    expect(outcome.decision).toBe("deny");
    expect(outcome.reason).toContain("not now");
    expect(ctx.lines[0]).toContain(outcome.task!.id.slice(0, 12));
  });

  test("an expired task refuses, with nobody as the decider", async () => {
    box = sandbox();
    const outcome = await askPerson(call(), judgment(), context({}, { wait_at_most: "200ms" }));
    expect(outcome).toMatchObject({ decision: "deny", expired: true, by: null });
  });

  test("a cancelled run stops waiting at once", async () => {
    box = sandbox();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const outcome = await askPerson(call(), judgment(), context({ signal: controller.signal, pollMs: 5000 }));
    expect(outcome).toMatchObject({ decision: "deny", via: "cancelled" });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("askQuestion", () => {
  test("answered at the terminal", async () => {
    box = sandbox();
    const outcome = await askQuestion(
      { session: "run-1", cwd: box.project },
      "Which time zone?",
      context({ terminal: terminal(["UTC"]).terminal }),
    );
    expect(outcome).toMatchObject({ answered: true, text: "UTC", by: { name: "Dana Tester" } });
  });
  test("answered from another shell", async () => {
    box = sandbox();
    const [outcome] = await Promise.all([
      askQuestion({ session: "run-1", cwd: box.project }, "Which time zone?", context()),
      decideWhenOpen({ kind: "answer", text: "Europe/Berlin" }),
    ]);
    expect(outcome).toMatchObject({ answered: true, text: "Europe/Berlin" });
  });
});
