/**
 * Rolling verdict out to a team, through the compiled binary: project hooks that travel (portable command,
 * repository root, --local, what they cover), settings with comments, a doctor that changes nothing and
 * says FIX when it should, self-tests kept out of the log, a keyless local model.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { labelOrder, defaultPolicy, runAsync } from "../model/helpers.ts";
import { openaiReply, startFake } from "../model/fakes.ts";
import { isolatedEnv, run, tempDir, withVerdictOnPath } from "../support/binary.ts";

function repo(): { root: string; sub: string } {
  const root = tempDir("verdict-team-");
  mkdirSync(join(root, ".git"));
  const sub = join(root, "pkg", "app");
  mkdirSync(sub, { recursive: true });
  return { root, sub };
}

function sh(command: string, env: Record<string, string>, stdin = "{}") {
  const r = Bun.spawnSync(["/bin/sh", "-c", command], { env, stdin: Buffer.from(stdin), stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe("install --project: hooks that travel", () => {
  test("from a subfolder it writes the repository root, a command that finds verdict on PATH, and says what it covers", () => {
    const { root, sub } = repo();
    const env = withVerdictOnPath(isolatedEnv());
    const ran = run(["install", "claude", "--project"], { cwd: sub, env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(sub, ".claude"))).toBe(false);
    const settings = JSON.parse(readFileSync(join(root, ".claude", "settings.json"), "utf8"));
    const command: string = settings.hooks.PreToolUse[0].hooks[0].command;
    expect(command).toStartWith("command -v verdict >/dev/null 2>&1 && exec verdict hook claude ||");
    expect(command).not.toContain(tempDir("x").slice(0, 5) + "verdict-bin"); // no personal path
    expect(ran.stdout).toContain(`Written at the repository root ${root}`);
    expect(ran.stdout).toContain("Covers: Claude Code sessions started in");
    expect(ran.stdout).toContain("Checked:");
  });

  test("on a machine without verdict the command gives no decision, exit 0, and says how to get verdict", () => {
    const { root } = repo();
    const env = withVerdictOnPath(isolatedEnv());
    for (const host of ["claude", "codex", "gemini", "cursor"])
      expect(run(["install", host, "--project"], { cwd: root, env }).code).toBe(0);
    const bare = { ...isolatedEnv(), PATH: "/usr/bin:/bin" };
    const command = (file: string, pick: (s: any) => string) => pick(JSON.parse(readFileSync(join(root, file), "utf8")));
    const claude = sh(
      command(".claude/settings.json", (s) => s.hooks.PreToolUse[0].hooks[0].command),
      bare,
    );
    expect(claude.code).toBe(0);
    expect(JSON.parse(claude.stdout).systemMessage).toContain("verdict is not installed on this machine");
    expect(JSON.parse(claude.stdout).hookSpecificOutput).toBeUndefined();
    const gemini = sh(
      command(".gemini/settings.json", (s) => s.hooks.BeforeTool[0].hooks[0].command),
      bare,
    );
    expect(gemini.code).toBe(0);
    expect(JSON.parse(gemini.stdout).decision).toBeUndefined();
    const codex = sh(
      command(".codex/hooks.json", (s) => s.hooks.PreToolUse[0].hooks[0].command),
      bare,
    );
    expect(codex).toMatchObject({ code: 0, stdout: "" });
    expect(codex.stderr).toContain("npm install -g");
    const cursor = sh(
      command(".cursor/hooks.json", (s) => s.hooks.beforeShellExecution[0].command),
      bare,
    );
    expect(cursor).toMatchObject({ code: 0, stdout: "{}\n" });
  });

  test("install --project where verdict is not on PATH writes the file but says the hook does nothing here (exit 1)", () => {
    const { root } = repo();
    const ran = run(["install", "claude", "--project"], { cwd: root, env: { ...isolatedEnv(), PATH: "/usr/bin:/bin" } });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("verdict is not on PATH here");
    expect(existsSync(join(root, ".claude", "settings.json"))).toBe(true);
  });

  test("--local writes Claude Code's settings.local.json; other hosts have none (usage error)", () => {
    const { root } = repo();
    const env = withVerdictOnPath(isolatedEnv());
    const ran = run(["install", "claude", "--local"], { cwd: root, env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(root, ".claude", "settings.local.json"))).toBe(true);
    expect(existsSync(join(root, ".claude", "settings.json"))).toBe(false);
    const codex = run(["install", "codex", "--local"], { cwd: root, env });
    expect(codex.code).toBe(2);
    expect(codex.stderr).toContain("no personal settings file");
  });

  test("install gemini keeps a settings file with // comments, comments included", () => {
    const home = tempDir("verdict-home-");
    mkdirSync(join(home, ".gemini"));
    const file = join(home, ".gemini", "settings.json");
    const text = `{\n  // my theme\n  "ui": { "theme": "GitHub" }, /* kept */\n  "general": { "vimMode": true },\n}\n`;
    writeFileSync(file, text);
    const env = isolatedEnv(home);
    const ran = run(["install", "gemini"], { cwd: home, env });
    expect(ran.code, ran.stderr).toBe(0);
    const after = readFileSync(file, "utf8");
    expect(after).toContain("// my theme");
    expect(after).toContain("/* kept */");
    expect(after).toContain("BeforeTool");
    const removed = run(["uninstall", "gemini"], { cwd: home, env });
    expect(removed.code).toBe(0);
    const { parse } = require("jsonc-parser") as typeof import("jsonc-parser");
    expect(parse(readFileSync(file, "utf8"))).toEqual(parse(text));
    expect(readFileSync(file, "utf8")).toContain("// my theme");
    expect(readFileSync(file, "utf8")).not.toContain("BeforeTool");
  });

  test("Claude Code's settings with comments: kept, with a warning that Claude Code ignores such a file", () => {
    const { root } = repo();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude", "settings.json"), `{\n  // team\n  "permissions": { "allow": [] }\n}\n`);
    const ran = run(["install", "claude", "--project"], { cwd: root, env: withVerdictOnPath(isolatedEnv()) });
    expect(ran.stderr).toContain("reads only plain JSON");
  });
});

describe("doctor", () => {
  test("in a subfolder it names the root hook this session would not load", () => {
    const { root, sub } = repo();
    const env = withVerdictOnPath(isolatedEnv());
    run(["install", "claude", "--project"], { cwd: root, env });
    const ran = run(["doctor"], { cwd: sub, env });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain(
      `${join(root, ".claude", "settings.json")} has verdict's hook, but a Claude Code session started here (${sub}) does not load it`,
    );
    expect(ran.stdout).toContain(`fix: start Claude Code in ${root}`);
    // at the root it is covered
    const atRoot = run(["doctor", "--json"], { cwd: root, env });
    const claude = JSON.parse(atRoot.stdout).hosts.find((h: any) => h.host === "claude");
    expect(claude.checks.every((c: any) => c.ok)).toBe(true);
  });

  test("no host found is something to fix, not all good; --json has schema_version", () => {
    const home = tempDir("verdict-home-");
    const env = { ...isolatedEnv(home), PATH: "/usr/bin:/bin" };
    const ran = run(["doctor"], { cwd: home, env });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("FIX  no host found");
    expect(ran.stdout).not.toContain("all good");
    const json = JSON.parse(run(["doctor", "--json"], { cwd: home, env }).stdout);
    expect(json).toMatchObject({ schema_version: 1, ok: false });
    expect(run(["doctor", "--policy", join(home, "missing.yaml")], { cwd: home, env }).code).toBe(2);
  });

  test("--policy: an unreachable configured model is FIX with the reason", () => {
    const home = tempDir("verdict-home-");
    const policy = join(home, "model.yaml");
    writeFileSync(
      policy,
      "judge:\n  answerer: model\n  answer_within: 1s\nmodel:\n  provider: openai\n  openai:\n    base_url: http://127.0.0.1:9/v1\n    model: local\n",
    );
    const ran = run(["doctor", "--policy", policy], { cwd: home, env: isolatedEnv(home) });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/FIX +the openai model local at http:\/\/127\.0\.0\.1:9\/v1 cannot be used/);
  });
});

describe("a keyless local model", () => {
  const fake = startFake(openaiReply({ act: "read", undo: 0, load: 0 }, labelOrder(defaultPolicy())));
  afterAll(() => fake.stop());

  test("a loopback OpenAI-compatible endpoint is asked without OPENAI_API_KEY, and doctor says it answers", async () => {
    const home = tempDir("verdict-home-");
    const policy = join(home, "local.yaml");
    writeFileSync(
      policy,
      `judge:\n  answerer: auto\n  answer_within: 5s\nmodel:\n  provider: openai\n  openai:\n    base_url: ${fake.url}/v1\n    model: local\n    key_env: OPENAI_API_KEY\n`,
    );
    const env = isolatedEnv(home);
    fake.requests.length = 0;
    const checked = await runAsync(["check", "--json", "--policy", policy, "--", "cat README.md | wc -l"], { cwd: home, env });
    expect(JSON.parse(checked.stdout).answerer).toBe("openai");
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(fake.requests.every((r: any) => r.headers.authorization === undefined)).toBe(true);
    const doctor = await runAsync(["doctor", "--policy", policy], { cwd: home, env });
    expect(doctor.stdout).toMatch(/ok +the openai model \S+ at .* answered in \d+ ms/);
  });
});

describe("self-tests", () => {
  test("install's round trip is logged as a self-test: left out of log and log --stats unless --self-tests", () => {
    const { root } = repo();
    const env = withVerdictOnPath(isolatedEnv());
    expect(run(["install", "claude", "--project"], { cwd: root, env }).code).toBe(0);
    expect(run(["log", "--json"], { env }).stdout.trim()).toBe("");
    expect(JSON.parse(run(["log", "--stats", "--json"], { env }).stdout).decisions).toBe(0);
    const all = run(["log", "--json", "--self-tests"], { env })
      .stdout.trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((record) => record.self_test === true)).toBe(true);
    expect(all[0].text).toBe("rm -rf ~");
  });
});
