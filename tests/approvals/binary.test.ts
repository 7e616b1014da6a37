// Approvals end to end through the compiled binary (build it first: npx bun build.ts): a waiter in one
// process, decisions from another, scopes, "always", expiry, a changed call, concurrent appends, and
// verify on a torn and an edited journal. Every process gets temp XDG folders.
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alwaysSupported, EXACT_FIELD } from "../../src/approvals/always.ts";
import { BINARY } from "../support/binary.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
afterEach(() => box?.cleanup());

type Ran = { code: number; stdout: string; stderr: string };

function verdict(args: string[], env: Record<string, string> = box.env): Ran {
  const result = Bun.spawnSync([BINARY, ...args], { cwd: box.project, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

function background(args: string[], env: Record<string, string> = box.env) {
  const proc = Bun.spawn([BINARY, ...args], { cwd: box.project, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return {
    proc,
    done: async (): Promise<Ran> => {
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
  };
}

type Listed = {
  id: string;
  status: string;
  task: { digest: string; action: { command: string } };
  decision: null | { outcome: string; by: null | { name: string; via: string }; reviewed: string; scope: string };
};

function tasks(all = true): Listed[] {
  const ran = verdict(["approvals", "list", "--json", ...(all ? ["--all"] : [])]);
  expect(ran.code).toBe(0);
  return JSON.parse(ran.stdout).tasks as Listed[];
}

async function firstOpenTask(): Promise<Listed> {
  for (let i = 0; i < 150; i++) {
    const open = tasks(false);
    if (open.length > 0) return open[0]!;
    await Bun.sleep(40);
  }
  throw new Error("no task was opened");
}

const journal = () => join(box.env.XDG_STATE_HOME!, "verdict", "approvals.jsonl");
const request = (command: string, session = "s1", extra: string[] = []) =>
  verdict(["approvals", "request", "--host", "codex", "--session", session, ...extra, "--", ...command.split(" ")]);
const idIn = (text: string) => /verdict approvals approve ([0-9a-f]{12})/.exec(text)?.[1];

describe("verdict approvals through the binary", () => {
  test("a run waits; approve from another shell lets it run; the journal shows who approved which digest", async () => {
    box = sandbox();
    const waiter = background(["approvals", "request", "--wait", "--host", "run", "--session", "run-1", "--", "rm", "-rf", "build"]);
    const task = await firstOpenTask();
    const shown = verdict(["approvals", "show", task.id.slice(0, 12)]);
    expect(shown.stdout).toContain("rm -rf build");
    expect(shown.stdout).toContain(task.task.digest);
    const approved = verdict([
      "approvals",
      "approve",
      task.id.slice(0, 12),
      "--note",
      "the build folder only",
      "--digest",
      task.task.digest.slice(0, 16),
    ]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("approved by Dana Tester (asserted, command-line)");
    const ran = await waiter.done();
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("approved by Dana Tester");
    expect(ran.stderr).toContain(`verdict approvals approve ${task.id.slice(0, 12)}`);
    const [after] = tasks();
    expect(after!.decision).toMatchObject({
      outcome: "approved",
      by: { name: "Dana Tester", via: "command-line" },
      reviewed: task.task.digest,
    });
    const records = readFileSync(journal(), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.kind)).toEqual(["task.opened", "task.decided", "grant.used"]);
    expect(records[1].body.decision.reviewed).toBe(records[0].body.task.digest);
  });

  test("a rejection from another shell refuses the waiting call with its reason", async () => {
    box = sandbox();
    const waiter = background(["approvals", "request", "--wait", "--host", "run", "--session", "run-1", "--", "rm", "-rf", "build"]);
    const task = await firstOpenTask();
    expect(verdict(["approvals", "reject", task.id.slice(0, 12)]).code).toBe(2);
    expect(verdict(["approvals", "reject", task.id.slice(0, 12), "--reason", "keep the build"]).code).toBe(0);
    const ran = await waiter.done();
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("rejected by Dana Tester (asserted, command-line): keep the build");
    expect(verdict(["approvals", "approve", task.id.slice(0, 12)]).code).toBe(3);
  });

  test("scopes: once lets the next identical call through, run every one in the session; neither another session", () => {
    box = sandbox();
    const first = request("rm -rf build");
    expect(first.code).toBe(1);
    const id = idIn(first.stderr)!;
    expect(first.stderr).toContain(`run: verdict approvals approve ${id}`);
    expect(verdict(["approvals", "approve", id, "--scope", "once"]).code).toBe(0);
    expect(request("rm -rf build").code).toBe(0);
    const third = request("rm -rf build");
    expect(third.code).toBe(1);
    const second = idIn(third.stderr)!;
    expect(second).not.toBe(id);
    expect(verdict(["approvals", "approve", second, "--scope", "run"]).code).toBe(0);
    expect(request("rm -rf build").code).toBe(0);
    expect(request("rm -rf build").code).toBe(0);
    expect(request("rm -rf build", "s2").code).toBe(1);
    expect(verdict(["approvals", "approve", id, "--scope", "sometimes"]).code).toBe(2);
  });

  test("always writes a rule into the chosen layer (or says why it cannot, recording nothing)", () => {
    box = sandbox();
    const id = idIn(request("rm -rf build").stderr)!;
    if (alwaysSupported())
      expect(verdict(["approvals", "show", id]).stdout).toContain(
        `--always also writes a rule allowing exactly this command in ${box.project}`,
      );
    const ran = verdict(["approvals", "approve", id, "--always", "--layer", "user", "--json"]);
    const file = join(box.env.XDG_CONFIG_HOME!, "verdict", "policy.yaml");
    if (alwaysSupported()) {
      expect(ran.code).toBe(0);
      const out = JSON.parse(ran.stdout);
      expect(out.decision.always).toMatchObject({ layer: "user", file });
      const text = readFileSync(file, "utf8");
      expect(text).toContain(`${EXACT_FIELD}: rm -rf build`);
      expect(text).toContain("decision: allow");
      expect(verdict(["policy", "check", file]).code).toBe(0);
      expect(readFileSync(journal(), "utf8")).toContain('"kind":"policy.amended"');
      // The rule decides exactly that line from now on, and nothing wider.
      const checked = (line: string) =>
        JSON.parse(verdict(["check", "--json", "--no-log", "--", line]).stdout) as { verdict: string; rule?: { id: string } };
      expect(checked("rm -rf build")).toMatchObject({ verdict: "allow", rule: { id: out.decision.always.rule_id } });
      for (const wider of ["sudo rm -rf build", "rm -rf build ~", "echo build | xargs rm -rf build"])
        expect(checked(wider).rule?.id).not.toBe(out.decision.always.rule_id);
      expect(checked("sudo rm -rf build").verdict).not.toBe("allow");
      // ...and only in the project where it was approved.
      expect(out.decision.always.where).toBe(box.project);
      const elsewhere = mkdtempSync(join(tmpdir(), "verdict-elsewhere-"));
      const there = JSON.parse(verdict(["check", "--json", "--no-log", "--cwd", elsewhere, "--", "rm -rf build"]).stdout) as {
        verdict: string;
        rule?: { id: string };
      };
      expect(there.rule?.id).not.toBe(out.decision.always.rule_id);
      expect(text).toContain(`where: ${box.project}`);
    } else {
      expect(ran.code).toBe(4);
      expect(JSON.parse(ran.stdout)).toMatchObject({ code: "ALWAYS", status: "error" });
      expect(existsSync(file)).toBe(false);
      expect(tasks()[0]!.status).toBe("open");
    }
  });

  test("expiry: a waiting run is refused when nobody decides in time, and the record names nobody", async () => {
    box = sandbox();
    const policy = join(box.root, "short.yaml");
    writeFileSync(policy, "approvals:\n  wait_at_most: 1s\n");
    const env = { ...box.env, VERDICT_POLICY: policy };
    const started = Date.now();
    const ran = await background(
      ["approvals", "request", "--wait", "--host", "run", "--session", "run-1", "--", "rm", "-rf", "build"],
      env,
    ).done();
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("nobody approved it before its deadline");
    expect(Date.now() - started).toBeLessThan(8000);
    const [task] = tasks();
    expect(task).toMatchObject({ status: "expired", decision: { outcome: "expired", by: null } });
    expect(verdict(["approvals", "approve", task!.id]).code).toBe(3);
  });

  test("a changed call is refused: another digest, another command, an edited task", () => {
    box = sandbox();
    const a = idIn(request("rm -rf build").stderr)!;
    const b = idIn(request("rm -rf build dist").stderr)!;
    const listed = tasks();
    const digestOf = (id: string) => listed.find((t) => t.id.startsWith(id))!.task.digest;
    const refused = verdict(["approvals", "approve", b, "--digest", digestOf(a).slice(0, 12), "--json"]);
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stdout).code).toBe("CALL-CHANGED");
    expect(verdict(["approvals", "approve", a, "--scope", "run"]).code).toBe(0);
    expect(request("rm -rf build dist").code).toBe(1);
    // Someone rewrites the waiting task's command in the journal: nothing can be decided on it.
    writeFileSync(journal(), readFileSync(journal(), "utf8").replace('"command":"rm -rf build dist"', '"command":"rm -rf bui1d dist"'));
    const edited = verdict(["approvals", "approve", b]);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain("damaged at line 2");
  });

  test("20 processes appending at once keep the chain intact", async () => {
    box = sandbox();
    const runs = Array.from({ length: 20 }, (_, i) =>
      background(["approvals", "request", "--host", "codex", "--session", `p${i}`, "--", "touch", `f${i}`]),
    );
    const results = await Promise.all(runs.map((r) => r.done()));
    expect(results.map((r) => r.code)).toEqual(Array(20).fill(1));
    const verified = verdict(["approvals", "verify", "--json"]);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout).records).toBe(20);
    const records = readFileSync(journal(), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(records.map((r) => r.body.task.session)).size).toBe(20);
    expect(existsSync(`${journal()}.lock`)).toBe(false);
  }, 30_000);

  test("verify reports a torn last line, which the next append keeps; and an edited record", () => {
    box = sandbox();
    request("rm -rf a");
    request("rm -rf b");
    expect(verdict(["approvals", "verify"]).code).toBe(0);
    appendFileSync(journal(), '{"at":"2026-');
    const torn = verdict(["approvals", "verify", "--json"]);
    expect(torn.code).toBe(1);
    expect(JSON.parse(torn.stdout)).toMatchObject({ code: "JOURNAL-TORN", damage: { line: 3, kind: "torn" }, records: 2 });
    request("rm -rf c");
    const kept = verdict(["approvals", "verify"]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain("torn write of 12 bytes found at line 3");
    const lines = readFileSync(journal(), "utf8").split("\n");
    lines[1] = lines[1]!.replace("rm -rf b", "rm -rf B");
    writeFileSync(journal(), lines.join("\n"));
    const broken = verdict(["approvals", "verify"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("line 2");
    expect(broken.stderr).toContain("broken");
    const listed = verdict(["approvals", "list", "--all"]);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain("damaged at line 2");
    expect(listed.stdout).toContain("rm -rf a");
  });

  test("usage errors exit 2; an unknown task exits 15", () => {
    box = sandbox();
    expect(verdict(["approvals"]).code).toBe(2);
    expect(verdict(["approvals", "frobnicate"]).code).toBe(2);
    expect(verdict(["approvals", "list", "--bogus"]).code).toBe(2);
    expect(verdict(["approvals", "show", "abcdef12"]).code).toBe(15);
    expect(verdict(["approvals", "--help"]).code).toBe(0);
    const id = idIn(request("rm -rf build").stderr)!;
    for (const marker of ["CLAUDECODE", "GEMINI_CLI", "CODEX_THREAD_ID", "VERDICT_RUN_CALL"]) {
      const inside = verdict(["approvals", "approve", id, "--json"], { ...box.env, [marker]: "1" });
      expect(inside.code).toBe(2);
      expect(JSON.parse(inside.stdout).code).toBe("ASSISTANT-SHELL");
    }
    expect(tasks()[0]!.status).toBe("open");
    const denied = request("rm -rf ~");
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("no approval overrides a deny");
  });
});
