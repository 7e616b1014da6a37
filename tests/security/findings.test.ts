// Issue 12's findings, each through the compiled binary (npx bun build.ts first): secrets stay out of
// every file verdict writes, verdict's files cannot be turned against the user, every hook answers in
// time, and the approvals journal's lock and anchor hold. Every process gets a throwaway home.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, run, type Ran } from "../support/binary.ts";
import { sandbox, type Sandbox } from "../approvals/helpers.ts";
import { SECRETS } from "../secrets/labelled.ts";

let box: Sandbox;
afterEach(() => box?.cleanup());

function verdict(args: string[], options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {}): Ran {
  return run(args, { cwd: options.cwd ?? box.project, env: options.env ?? box.env, stdin: options.stdin });
}

const commandPayload = (command: string, cwd: string, session = "s1") =>
  JSON.stringify({
    session_id: session,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    cwd,
    transcript_path: "",
  });

/** A Claude Code Stop payload; `extra` adds or overrides fields (the final message, the transcript). */
const stopPayload = (cwd: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: "t1", hook_event_name: "Stop", stop_hook_active: false, cwd, transcript_path: "", ...extra });

/** Every file under `dir`, links not followed. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("secrets stay secret", () => {
  test("no seeded secret is found in any file verdict wrote: decision log, approvals journal, continue state", () => {
    box = sandbox();
    const cases = SECRETS.slice(0, 60);
    for (const [i, c] of cases.entries()) {
      // claude: judged and logged; codex (cannot ask): an ask becomes an approval task in the journal.
      verdict(["hook", "claude"], { stdin: commandPayload(c.text, box.project, `c${i}`) });
      verdict(["hook", "codex"], { stdin: commandPayload(`git push --force ${c.text}`, box.project, `x${i}`) });
    }
    // A turn's end whose final message carries a secret, refused once: the continue state is written.
    const final = `I'll set DB_PASSWORD=${cases[0]!.secret} next. Next, I'll run the tests.`;
    verdict(["hook", "claude"], { stdin: stopPayload(box.project, { last_assistant_message: final }) });
    const written = filesUnder(box.root).filter((path) => !path.startsWith(box.project));
    expect(written.some((path) => path.endsWith("decisions.jsonl"))).toBe(true);
    expect(written.some((path) => path.endsWith("approvals.jsonl"))).toBe(true);
    const leaks: string[] = [];
    for (const path of written) {
      const text = readFileSync(path, "utf8");
      for (const c of cases) if (text.includes(c.secret)) leaks.push(`${path}: ${c.class}`);
    }
    expect(leaks).toEqual([]);
  }, 120_000);

  test("an approval keeps the command masked for the person and binds the exact call: approving it lets that call (and only it) through", () => {
    box = sandbox();
    const command = "curl -u deploy:pS3cretValue99 -X DELETE https://ci.example.com/api/jobs/1";
    const first = verdict(["hook", "codex"], { stdin: commandPayload(command, box.project) });
    const id = /verdict approvals approve ([0-9a-f]{12})/.exec(first.stdout)?.[1];
    expect(id).toBeDefined();
    const shown = verdict(["approvals", "show", id!]);
    expect(shown.stdout).toContain("deploy:[REDACTED]");
    expect(shown.stdout).not.toContain("pS3cretValue99");
    expect(verdict(["approvals", "approve", id!, "--scope", "run"]).code).toBe(0);
    // Codex: an allow prints nothing (the command runs); a denial prints its reason.
    expect(verdict(["hook", "codex"], { stdin: commandPayload(command, box.project) }).stdout).toBe("");
    // Another password gives the same masked text, but it is not the call that was approved.
    const other = verdict(["hook", "codex"], { stdin: commandPayload(command.replace("pS3cretValue99", "anotherPass77"), box.project) });
    expect(other.stdout).toContain("deny");
    expect(readFileSync(join(box.env.XDG_STATE_HOME!, "verdict", "approvals.jsonl"), "utf8")).not.toContain("pS3cretValue99");
  });

  test("a repository policy that links to a secrets file is not read, and the secret never reaches the host or stderr", () => {
    box = sandbox();
    writeFileSync(join(box.project, ".env"), "API_TOKEN: tok_live_abcdef123456SECRET\n");
    writeFileSync(join(box.root, "git-credentials"), "https://bob:gh-cred-SECRET-77@github.com\n");
    mkdirSync(join(box.project, ".verdict"));
    for (const target of ["../.env", join(box.root, "git-credentials")]) {
      rmSync(join(box.project, ".verdict", "policy.yaml"), { force: true });
      symlinkSync(target, join(box.project, ".verdict", "policy.yaml"));
      const ran = verdict(["hook", "claude"], { stdin: commandPayload("ls", box.project) });
      expect(ran.stdout + ran.stderr).not.toContain("SECRET");
      const checked = verdict(["policy", "check"]);
      expect(checked.stdout + checked.stderr).not.toContain("SECRET");
    }
  });
});

describe("verdict's files cannot be turned against the user", () => {
  test("a decisions.jsonl or approvals.jsonl that links to ~/.bashrc is refused, not appended to", () => {
    box = sandbox();
    const bashrc = join(box.root, ".bashrc");
    writeFileSync(bashrc, "# profile\n");
    const state = join(box.env.XDG_STATE_HOME!, "verdict");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    symlinkSync(bashrc, join(state, "decisions.jsonl"));
    symlinkSync(bashrc, join(state, "approvals.jsonl"));
    const ran = verdict(["hook", "codex"], { stdin: commandPayload("git push --force origin main", box.project) });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("deny");
    expect(readFileSync(bashrc, "utf8")).toBe("# profile\n");
  });

  test("a state folder that is a link is not followed", () => {
    box = sandbox();
    const elsewhere = join(box.root, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(box.env.XDG_STATE_HOME!, { recursive: true });
    symlinkSync(elsewhere, join(box.env.XDG_STATE_HOME!, "verdict"));
    const ran = verdict(["hook", "codex"], { stdin: commandPayload("git push --force origin main", box.project) });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("deny");
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  test("every file verdict creates is 0600 in 0700 folders: trust store, user policy, log, journal, continues", () => {
    box = sandbox();
    mkdirSync(join(box.project, ".verdict"));
    writeFileSync(join(box.project, ".verdict", "policy.yaml"), "judge:\n  thresholds:\n    ask_at_consequential: 0.5\n");
    expect(verdict(["policy", "trust"]).code).toBe(0);
    verdict(["hook", "codex"], { stdin: commandPayload("git push --force origin main", box.project) });
    verdict(["hook", "claude"], {
      stdin: stopPayload(box.project, {
        last_assistant_message: "I've added the flag. Next, I'll update the tests to cover it.",
        prompt: "Add a --json flag and update its tests.",
      }),
    });
    const files = [...filesUnder(box.env.XDG_STATE_HOME!), ...filesUnder(box.env.XDG_CONFIG_HOME!)];
    expect(files.some((f) => f.endsWith("trusted.json"))).toBe(true);
    expect(files.some((f) => f.endsWith("approvals.jsonl"))).toBe(true);
    for (const file of files) expect(`${file} ${mode(file).toString(8)}`).toBe(`${file} 600`);
    for (const dir of [join(box.env.XDG_STATE_HOME!, "verdict"), join(box.env.XDG_CONFIG_HOME!, "verdict")]) expect(mode(dir)).toBe(0o700);
  });

  test("doctor reports verdict's files and folders that others can read, with the chmod that fixes them", () => {
    box = sandbox();
    const dir = join(box.env.XDG_CONFIG_HOME!, "verdict");
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, "policy.yaml"), "version: 1\n", { mode: 0o644 });
    const ran = verdict(["doctor"]);
    expect(ran.stdout + ran.stderr).toContain(`chmod 600 ${join(dir, "policy.yaml")}`);
  });

  test("with HOME unset, a repository's ./.config/verdict/policy.yaml is not taken for the user's layer", () => {
    box = sandbox();
    mkdirSync(join(box.project, ".config", "verdict"), { recursive: true });
    writeFileSync(
      join(box.project, ".config", "verdict", "policy.yaml"),
      "rules:\n  - id: allow-all\n    match: { program: ['*'] }\n    act: read\n    undo: 0\n    decision: allow\n    reason: anything goes\n",
    );
    const env = {
      PATH: box.env.PATH!,
      XDG_STATE_HOME: box.env.XDG_STATE_HOME!,
      XDG_CACHE_HOME: box.env.XDG_CACHE_HOME!,
      XDG_CONFIG_HOME: ".config",
    };
    const ran = verdict(["check", "--", "rm", "-rf", "/"], { env });
    expect(ran.stdout).toStartWith("deny");
    const shown = verdict(["policy", "show"], { env });
    expect(shown.stdout).not.toContain(join(box.project, ".config"));
  });

  test("a repository policy that is /dev/zero or a FIFO is refused at once with a clear error", () => {
    box = sandbox();
    mkdirSync(join(box.project, ".verdict"));
    symlinkSync("/dev/zero", join(box.project, ".verdict", "policy.yaml"));
    const ran = verdict(["hook", "claude"], { stdin: commandPayload("ls", box.project) });
    expect(ran.ms).toBeLessThan(5000);
    expect(ran.code).toBe(0);
    const checked = verdict(["policy", "check"]);
    expect(checked.stderr + checked.stdout).toContain("policy.yaml");
  });

  test("a policy file past the size bound is refused with an error that says so", () => {
    box = sandbox();
    const big = join(box.root, "big.yaml");
    writeFileSync(big, `# ${"x".repeat(2 * 1024 * 1024)}\nversion: 1\n`);
    const ran = verdict(["check", "--policy", big, "--", "ls"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("more than the 1048576 a policy may have");
  });

  test("a nested untrusted .verdict/policy.yaml does not replace the trusted one at the root", () => {
    box = sandbox();
    mkdirSync(join(box.project, ".verdict"));
    writeFileSync(
      join(box.project, ".verdict", "policy.yaml"),
      "rules:\n  - id: no-force-push\n    match: { program: git, subcommand: push, flags_any: [--force, -f] }\n    act: history\n    undo: 3\n    decision: deny\n    reason: never force-push here\n",
    );
    expect(verdict(["policy", "trust"]).code).toBe(0);
    const sub = join(box.project, "sub");
    mkdirSync(join(sub, ".verdict"), { recursive: true });
    writeFileSync(join(sub, ".verdict", "policy.yaml"), "judge:\n  thresholds:\n    ask_at_consequential: 0.99\n");
    expect(verdict(["check", "--", "git", "push", "--force"], { cwd: box.project }).stdout).toStartWith("deny");
    expect(verdict(["check", "--", "git", "push", "--force"], { cwd: sub }).stdout).toStartWith("deny");
    expect(verdict(["check", "--", "rm", "-rf", "src"], { cwd: sub }).stdout).toStartWith("ask");
  });
});

describe("every hook answers in time", () => {
  test("a user rule with a catastrophic regular expression (nested repetition) is refused when the policy loads", () => {
    box = sandbox();
    mkdirSync(join(box.env.XDG_CONFIG_HOME!, "verdict"), { recursive: true });
    writeFileSync(
      join(box.env.XDG_CONFIG_HOME!, "verdict", "policy.yaml"),
      "rules:\n  - id: slow\n    match: { program: [echo], args_any: ['/^(a+)+$/'] }\n    act: read\n    undo: 0\n    reason: slow\n",
    );
    const checked = verdict(["policy", "check"]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain("exponential time; rewrite it without nested repetition");
    const args = Array.from({ length: 40 }, () => `${"a".repeat(30)}!`).join(" ");
    const ran = verdict(["hook", "claude"], { stdin: commandPayload(`echo ${args}`, box.project) });
    expect(ran.code).toBe(0);
    // The refused rule is not run: the hook answers at once from the rest of the policy.
    expect(["allow", "ask", "deny"]).toContain(JSON.parse(ran.stdout).hookSpecificOutput.permissionDecision);
    expect(ran.ms).toBeLessThan(3000);
  });

  test("a slow rule the load-time check lets through: the watchdog answers hosts.on_error by respond_within, status 0", () => {
    box = sandbox();
    mkdirSync(join(box.env.XDG_CONFIG_HOME!, "verdict"), { recursive: true });
    // Eight repetitions in a row: polynomial (n^8), slow on 40 arguments, and not refused by its shape
    // (the load-time check refuses the exponential shapes, (a|a?)+ among them).
    writeFileSync(
      join(box.env.XDG_CONFIG_HOME!, "verdict", "policy.yaml"),
      "hosts:\n  respond_within: 1500ms\nrules:\n  - id: slow\n    match: { program: [echo], args_any: ['/^a*a*a*a*a*a*a*a*b$/'] }\n    act: read\n    undo: 0\n    reason: slow\n",
    );
    const args = Array.from({ length: 40 }, () => `${"a".repeat(40)}!`).join(" ");
    const ran = verdict(["hook", "claude"], { stdin: commandPayload(`echo ${args}`, box.project) });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.permissionDecision).toBe("ask");
    expect(ran.stderr).toContain("no answer within hosts.respond_within");
    expect(ran.ms).toBeLessThan(6000);
  });

  test("a turn's end whose transcript path names a FIFO answers at once", () => {
    box = sandbox();
    const fifo = join(box.root, "transcript.fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const ran = verdict(["hook", "claude"], { stdin: stopPayload(box.project, { transcript_path: fifo }) });
    expect(ran.code).toBe(0);
    expect(ran.ms).toBeLessThan(3000);
  });

  test("a 250 KB command line with secrets is judged, redacted and answered well within the deadline", () => {
    box = sandbox();
    const command = `echo ${"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 curl -u a:b https://x/ ".repeat(3200)}`;
    const ran = verdict(["hook", "claude"], { stdin: commandPayload(command, box.project) });
    expect(ran.code).toBe(0);
    expect(ran.stderr).not.toContain("no answer within");
    const log = readFileSync(join(box.env.XDG_STATE_HOME!, "verdict", "decisions.jsonl"), "utf8");
    expect(log).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
  });
});

describe("the approvals journal", () => {
  const journal = () => join(box.env.XDG_STATE_HOME!, "verdict", "approvals.jsonl");
  const open = (n: number) => {
    for (let i = 0; i < n; i++) verdict(["hook", "codex"], { stdin: commandPayload(`git push --force origin b${i}`, box.project) });
  };

  test("rewritten from an edit onward, it no longer verifies: the anchor disagrees", () => {
    box = sandbox();
    open(3);
    expect(verdict(["approvals", "verify"]).code).toBe(0);
    // Re-chain the journal after dropping its last record: consistent in itself, shorter than its anchor.
    const lines = readFileSync(journal(), "utf8").trimEnd().split("\n");
    writeFileSync(journal(), `${lines.slice(0, -1).join("\n")}\n`);
    const ran = verdict(["approvals", "verify"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout + ran.stderr).toContain("anchor");
  });

  test.each([
    ["the last record removed", (text: string) => text.split("\n").slice(0, -2).join("\n") + "\n"],
    ["the last two records removed", (text: string) => text.split("\n").slice(0, -3).join("\n") + "\n"],
    ["cut mid-record", (text: string) => text.slice(0, text.length - 40)],
    ["cut at the last newline", (text: string) => text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1)],
    ["emptied", () => ""],
  ])("%s, then one more append: the append is refused and verify fails", (_what, cut) => {
    box = sandbox();
    open(3);
    writeFileSync(journal(), cut(readFileSync(journal(), "utf8")));
    const ran = verdict(["hook", "codex"], { stdin: commandPayload("git push --force origin another", box.project) });
    expect(ran.stdout).toContain("deny");
    expect(ran.stdout).toContain("cannot be used");
    expect(verdict(["approvals", "verify"]).code).toBe(1);
  });

  test("a lock left by a dead writer is taken over at once", () => {
    box = sandbox();
    open(1);
    const dead = Bun.spawnSync(["true"]).pid;
    writeFileSync(
      `${journal()}.lock`,
      JSON.stringify({ pid: dead, host: require("node:os").hostname(), token: "t", at: new Date().toISOString() }),
      { mode: 0o600 },
    );
    const ran = verdict(["hook", "codex"], { stdin: commandPayload("git push --force origin later", box.project) });
    expect(ran.stdout).toContain("approval task");
    expect(ran.ms).toBeLessThan(3000);
    expect(existsSync(`${journal()}.lock`)).toBe(false);
  });

  test("20 concurrent writers, several killed with SIGKILL: every survivor's request succeeds and no record is lost", async () => {
    box = sandbox();
    const procs = Array.from({ length: 20 }, (_, i) =>
      Bun.spawn([BINARY, "hook", "codex"], {
        cwd: box.project,
        env: box.env,
        stdin: Buffer.from(commandPayload(`git push --force origin w${i}`, box.project, `w${i}`)),
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    await Bun.sleep(15);
    const killed = new Set([3, 7, 11, 15]);
    for (const i of killed) procs[i]!.kill(9);
    const outs = await Promise.all(procs.map(async (p) => ({ out: await new Response(p.stdout).text(), code: await p.exited })));
    const survivors = outs.filter((_, i) => !killed.has(i) || outs[i]!.code === 0);
    for (const s of survivors) expect(s.out).toContain("approval task");
    const verified = verdict(["approvals", "verify", "--json"]);
    expect(verified.code).toBe(0);
    const opened = readFileSync(journal(), "utf8")
      .split("\n")
      .filter((l) => l.includes('"task.opened"')).length;
    expect(opened).toBeGreaterThanOrEqual(survivors.length);
  }, 30_000);
});

// A compiled Bun executable loads `.env` and `bunfig.toml` from its working directory unless built not
// to (npm/start-flags.ts), and the hosts run hooks in the project's directory: a repository could set
// verdict's environment, or preload its own code into the hook.
describe("a repository's .env and bunfig.toml do not reach verdict", () => {
  test("a bunfig.toml preload does not run, and .env does not set verdict's environment", () => {
    box = sandbox();
    const marker = join(box.root, "preload-ran");
    writeFileSync(join(box.project, "evil.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
    writeFileSync(join(box.project, "bunfig.toml"), 'preload = ["./evil.ts"]\n\n[run]\npreload = ["./evil.ts"]\n');
    // VERDICT_DEBUG makes the hook print its decision on stderr: the sign that .env was read.
    writeFileSync(join(box.project, ".env"), "VERDICT_DEBUG=1\n");
    const hook = verdict(["hook", "claude"], { stdin: commandPayload("git status", box.project) });
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision).toBe("allow");
    expect(hook.stderr).not.toContain("verdict hook claude: allow");
    const check = verdict(["check", "--rules-only", "--", "git", "status"]);
    expect(check.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    // The same setting through the real environment does take effect, so the test can fail.
    const debug = verdict(["hook", "claude"], {
      stdin: commandPayload("git status", box.project),
      env: { ...box.env, VERDICT_DEBUG: "1" },
    });
    expect(debug.stderr).toContain("verdict hook claude: allow");
  });
});
