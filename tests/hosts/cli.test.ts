// verdict hook / install / uninstall / doctor through the compiled binary (dist/verdict).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replyEffect } from "../../src/hosts/roundtrip.ts";
import { BINARY, isolatedEnv, run, tempDir, withVerdictOnPath } from "../support/binary.ts";
import { portableHookCommand } from "../../src/hosts/settings.ts";
import { PRE, prePayload, sample } from "./helpers.ts";

const STOP = { claude: "claude-stop.json", codex: "codex-stop.json", gemini: "gemini-afteragent.json" } as const;
const HOSTS = ["claude", "codex", "gemini", "cursor"] as const;
type Host = (typeof HOSTS)[number];

function brokenPolicyEnv(): { env: Record<string, string>; dir: string } {
  const dir = tempDir("verdict-broken-");
  const file = join(dir, "broken.yaml");
  writeFileSync(file, "judge:\n  tresholds: {}\nrules: [[[\n");
  return { env: isolatedEnv(undefined, { VERDICT_POLICY: file }), dir };
}

const ON_ERROR: Record<Host, ReturnType<typeof replyEffect>> = { claude: "asks", codex: "blocks", gemini: "blocks", cursor: "asks" };

describe("verdict hook through the binary", () => {
  test("the binary exists (npx bun build.ts)", () => {
    expect(existsSync(BINARY)).toBe(true);
  });

  for (const host of HOSTS) {
    test(`${host}: a broken policy still gets a valid, safe decision with the error, exit 0`, () => {
      const { env, dir } = brokenPolicyEnv();
      const started = performance.now();
      const ran = run(["hook", host], { env, cwd: dir, stdin: prePayload(host, "rm -rf ~", dir) });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(ran.code).toBe(0);
      expect(replyEffect(host, ran.stdout, ran.code)).toBe(ON_ERROR[host]);
      expect(ran.stdout).toContain("the policy cannot be used");
      expect(ran.stderr).toContain("the policy cannot be used");
      const logged = readFileSync(join(env.XDG_STATE_HOME!, "verdict", "decisions.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(logged.at(-1)).toMatchObject({ host, subject: "command", text: "rm -rf ~", answerer: "none" });
      expect(logged.at(-1).model_not_used).toContain("the policy cannot be used");
    });

    test(`${host}: a malformed payload gets a valid decision, exit 0`, () => {
      const dir = tempDir();
      const ran = run(["hook", host], { cwd: dir, stdin: prePayload(host, "ls", dir).slice(0, -7) });
      expect(ran.code).toBe(0);
      expect(replyEffect(host, ran.stdout, ran.code)).toBe(ON_ERROR[host]);
    });
  }

  test("a turn's end with a broken policy ends normally (no output, exit 0)", () => {
    for (const host of ["claude", "codex", "gemini"] as const) {
      const { env, dir } = brokenPolicyEnv();
      const ran = run(["hook", host], { env, cwd: dir, stdin: JSON.stringify({ ...sample(STOP[host]), cwd: dir }) });
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe("");
    }
  });

  test("no time left: past hosts.respond_within the host gets on_error, not silence", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "fast.yaml"), "hosts:\n  respond_within: 1000ms\n");
    for (const host of ["claude", "codex", "gemini"] as const) {
      // The payload starts to arrive and never ends: the deadline answers.
      const child = Bun.spawn([BINARY, "hook", host], {
        cwd: dir,
        env: isolatedEnv(undefined, { VERDICT_POLICY: join(dir, "fast.yaml") }),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      child.stdin.write(prePayload(host, "rm -rf ~", dir).slice(0, -10));
      child.stdin.flush();
      const started = performance.now();
      const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
      const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      clearTimeout(killer);
      expect(performance.now() - started).toBeLessThan(2500);
      expect(code).toBe(0);
      expect(replyEffect(host, stdout, code)).toBe(ON_ERROR[host]);
      expect(stdout).toContain("no answer within hosts.respond_within (1000ms)");
    }
  });

  test("stdin a pipe (as Codex gives it), a file, or a socket (as Claude Code gives it): the same decision", async () => {
    const dir = tempDir();
    const payload = prePayload("claude", "rm -rf ~", dir);
    const env = isolatedEnv();
    const decisions: string[] = [];
    // A pipe that delivers the payload in two parts, the second after a pause: read without blocking.
    const file = join(dir, "payload.json");
    writeFileSync(file, payload);
    const half = Math.floor(payload.length / 2);
    const piped = Bun.spawnSync(
      ["sh", "-c", '{ head -c "$2" "$1"; sleep 0.3; tail -c +"$(($2 + 1))" "$1"; } | "$0" hook claude', BINARY, file, String(half)],
      { cwd: dir, env, stdout: "pipe", stderr: "pipe" },
    );
    decisions.push(piped.stdout.toString());
    // A file on stdin.
    decisions.push(Bun.spawnSync([BINARY, "hook", "claude"], { cwd: dir, env, stdin: Bun.file(file), stdout: "pipe" }).stdout.toString());
    // A socket (Bun's and Node's spawn with a piped stdin).
    const child = Bun.spawn([BINARY, "hook", "claude"], { cwd: dir, env, stdin: "pipe", stdout: "pipe" });
    child.stdin.write(payload);
    child.stdin.end();
    decisions.push(await new Response(child.stdout).text());
    for (const out of decisions) expect(JSON.parse(out).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  test("a pipe whose payload never ends: the deadline answers, as on a socket", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "fast.yaml"), "hosts:\n  respond_within: 1000ms\n");
    const head = join(dir, "head.json");
    writeFileSync(head, prePayload("claude", "rm -rf ~", dir).slice(0, -10));
    const out = join(dir, "out.json");
    const started = performance.now();
    // The hook reads a pipe whose writer sends the payload's head and then holds it open for 3 s.
    const child = Bun.spawn(["sh", "-c", '{ cat "$1"; sleep 3; } | "$0" hook claude > "$2"', BINARY, head, out], {
      cwd: dir,
      env: isolatedEnv(undefined, { VERDICT_POLICY: join(dir, "fast.yaml") }),
      stdout: "ignore",
      stderr: "ignore",
    });
    while (!(existsSync(out) && readFileSync(out, "utf8").trim()) && performance.now() - started < 5000) await Bun.sleep(20);
    const took = performance.now() - started;
    child.kill("SIGKILL"); // the writer's sleep ends on its own
    expect(took).toBeLessThan(2500);
    expect(replyEffect("claude", readFileSync(out, "utf8"), 0)).toBe(ON_ERROR.claude);
  });

  test("an ask carries the matched rule's safer form (suggest:), from the embedded default and from a layer", () => {
    const dir = tempDir("verdict-suggest-");
    const ran = run(["hook", "claude"], { env: isolatedEnv(), cwd: dir, stdin: prePayload("claude", "git push --force origin main", dir) });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.permissionDecisionReason).toContain("Instead: git push --force-with-lease");
    const layer = join(dir, "house.yaml");
    writeFileSync(
      layer,
      "rules:\n  - id: house-deploy\n    match: { program: deploytool }\n    act: remote\n    undo: 3\n    decision: ask\n    reason: Deploys.\n    suggest: Run deploytool --dry-run and show it.\n",
    );
    const layered = run(["hook", "claude"], {
      env: isolatedEnv(undefined, { VERDICT_POLICY: layer }),
      cwd: dir,
      stdin: prePayload("claude", "deploytool prod", dir),
    });
    expect(JSON.parse(layered.stdout).hookSpecificOutput.permissionDecisionReason).toContain(
      "Instead: Run deploytool --dry-run and show it.",
    );
  });

  test("other tools and events: no opinion", () => {
    const dir = tempDir();
    const ran = run(["hook", "claude"], {
      cwd: dir,
      stdin: JSON.stringify({ ...sample(PRE.claude), cwd: dir, tool_name: "Glob", tool_input: { pattern: "*" } }),
    });
    expect(ran).toMatchObject({ code: 0, stdout: "" });
    const later = run(["hook", "claude"], {
      cwd: dir,
      stdin: JSON.stringify({
        ...sample(PRE.claude),
        cwd: dir,
        hook_event_name: "PostToolUse",
        tool_name: "Write",
        tool_input: { file_path: "x" },
      }),
    });
    expect(later).toMatchObject({ code: 0, stdout: "" });
  });

  test("an unknown host is a usage error", () => {
    const ran = run(["hook", "vim"], { stdin: "{}" });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("claude, codex, gemini, cursor");
  });
});

describe("verdict install / uninstall / doctor", () => {
  const others = {
    permissions: { allow: ["Bash(ls:*)"], deny: ["Read(.env)"] },
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "node audit.mjs", timeout: 5 }] }],
      Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
      PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "prettier --write" }] }],
    },
    env: { FOO: "1" },
  };

  test("install claude --project keeps other hooks in meaning, a second install changes nothing, uninstall restores", () => {
    const project = tempDir("verdict-project-");
    const env = withVerdictOnPath(isolatedEnv());
    mkdirSync(join(project, ".claude"));
    const file = join(project, ".claude", "settings.json");
    writeFileSync(file, JSON.stringify(others, null, 4));
    const first = run(["install", "claude", "--project"], { cwd: project, env });
    expect(first.stdout).toContain("verdict's hooks written to");
    const installed = readFileSync(file, "utf8");
    const parsed = JSON.parse(installed);
    expect(parsed.permissions).toEqual(others.permissions);
    expect(parsed.env).toEqual(others.env);
    expect(parsed.hooks.PostToolUse).toEqual(others.hooks.PostToolUse);
    expect(parsed.hooks.PreToolUse[0]).toEqual(others.hooks.PreToolUse[0]);
    expect(parsed.hooks.PreToolUse[1].hooks[0].command).toBe(portableHookCommand("claude"));
    expect(parsed.hooks.Stop[0]).toEqual(others.hooks.Stop[0]);
    expect(readdirSync(join(project, ".claude")).some((name) => name.startsWith("settings.json.verdict-backup-"))).toBe(true);

    const second = run(["install", "claude", "--project"], { cwd: project, env });
    expect(second.stdout).toContain("nothing changed");
    expect(readFileSync(file, "utf8")).toBe(installed);

    const dry = run(["uninstall", "claude", "--project", "--dry-run"], { cwd: project, env });
    expect(dry.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(installed);
    const removed = run(["uninstall", "claude", "--project"], { cwd: project, env });
    expect(removed.stdout).toContain("removed 2 verdict hooks");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(others);
  });

  test("install --dry-run writes nothing", () => {
    const project = tempDir("verdict-project-");
    const ran = run(["install", "gemini", "--project", "--dry-run"], { cwd: project });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("Would write");
    expect(existsSync(join(project, ".gemini"))).toBe(false);
  });

  test("install codex tells about the /hooks trust step; gemini --project about trusted folders", () => {
    const home = tempDir("verdict-home-");
    const env = isolatedEnv(home, { CODEX_HOME: join(home, ".codex") });
    const codex = run(["install", "codex"], { cwd: home, env });
    expect(codex.stdout).toContain("/hooks");
    expect(existsSync(join(home, ".codex", "hooks.json"))).toBe(true);
    const gemini = run(["install", "gemini", "--project"], { cwd: home, env });
    expect(gemini.stdout).toContain("trusted folder");
  });

  test("a settings file that is not JSON is left alone", () => {
    const project = tempDir("verdict-project-");
    mkdirSync(join(project, ".claude"));
    writeFileSync(join(project, ".claude", "settings.json"), "{ oops");
    const ran = run(["install", "claude", "--project"], { cwd: project });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("not valid JSON");
    expect(readFileSync(join(project, ".claude", "settings.json"), "utf8")).toBe("{ oops");
  });

  test("doctor finds the installed host, checks the binary and the round trip, reports the policy", () => {
    const project = tempDir("verdict-project-");
    const env = withVerdictOnPath(isolatedEnv());
    run(["install", "claude", "--project"], { cwd: project, env });
    const ran = run(["doctor", "--json"], { cwd: project, env });
    const report = JSON.parse(ran.stdout);
    expect(report.policy[0]).toMatchObject({ ok: true });
    const claude = report.hosts.find((h: any) => h.host === "claude");
    expect(claude.checks.map((c: any) => c.what).join("\n")).toContain("registered in");
    expect(claude.checks.map((c: any) => c.what).join("\n")).toContain("the hook runs this binary");
    expect(claude.checks.map((c: any) => c.what).join("\n")).toContain("rm -rf ~");
  });

  test("doctor says what to fix when the hook points at a missing binary", () => {
    const project = tempDir("verdict-project-");
    const env = isolatedEnv();
    run(["install", "claude", "--project", "--bin", "/nonexistent/verdict"], { cwd: project, env });
    const ran = run(["doctor"], { cwd: project, env });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("the hook runs /nonexistent/verdict, which is not found here");
    expect(ran.stdout).toContain("fix: verdict install claude --project");
  });
});
