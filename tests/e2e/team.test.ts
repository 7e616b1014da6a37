// verdict rolled out to a team, with the real pinned hosts (in loopback-only network namespaces):
// a project hook written by `verdict install --project` on one machine works on another that has verdict
// on PATH somewhere else; on a machine without verdict the host's own permission check applies (and the
// person is told); a Claude Code session started in a subfolder loads only that folder's .claude/ (as
// install and doctor say); doctor changes nothing in the hosts' homes.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { InstalledHost } from "./lib/install.ts";
import { markerRules } from "./lib/markers.ts";
import { e2eHosts } from "./lib/gate.ts";
import {
  CODEX_CONFIG,
  describe as summary,
  hostSetup,
  makeSandbox,
  runHost,
  suiteHost,
  stubPayloads,
  writeStubHook,
  type Sandbox,
} from "./lib/harness.ts";

const VERDICT = resolve(import.meta.dir, "../../dist/verdict");

const POLICY = markerRules("denied");

/** A folder holding a `verdict` (a copy of the binary, as another machine's install would be). */
function verdictBin(): string {
  const dir = mkdtempSync(join(tmpdir(), "verdict-e2e-bin-"));
  copyFileSync(VERDICT, join(dir, "verdict"));
  spawnSync("chmod", ["755", join(dir, "verdict")]);
  return dir;
}

/** Runs verdict as "machine A": its own HOME, verdict on PATH at `bin`. */
function verdictOn(bin: string, args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const home = mkdtempSync(join(tmpdir(), "verdict-e2e-machine-a-"));
  const r = spawnSync(join(bin, "verdict"), args, {
    cwd,
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_STATE_HOME: join(home, ".state") },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const hosts = e2eHosts();

if (hosts.includes("claude")) {
  describe("claude: a project hook that travels", () => {
    let host: InstalledHost;
    const boxes = suiteHost("claude", (installed) => (host = installed), VERDICT);

    /** A repository whose .claude/settings.json was written by `verdict install claude --project` on machine A. */
    function repository(opts: { from?: string; allowTouch?: boolean } = {}): { sb: Sandbox; install: ReturnType<typeof verdictOn> } {
      const sb = makeSandbox("claude-team");
      boxes.push(sb);
      spawnSync("git", ["init", "-q", sb.project]);
      const from = join(sb.project, opts.from ?? "");
      mkdirSync(from, { recursive: true });
      if (opts.allowTouch) {
        // the team's own permission rules, committed with the hook
        mkdirSync(join(sb.project, ".claude"), { recursive: true });
        writeFileSync(join(sb.project, ".claude", "settings.json"), `{\n  "permissions": { "allow": ["Bash(touch:*)"] }\n}\n`);
      }
      const install = verdictOn(verdictBin(), ["install", "claude", "--project"], from);
      return { sb, install };
    }

    test("written on machine A, it runs machine B's verdict from PATH: a deny holds", async () => {
      const { sb, install } = repository();
      expect(install.code, install.stderr + install.stdout).toBe(0);
      const settings = readFileSync(join(sb.project, ".claude", "settings.json"), "utf8");
      expect(settings).not.toContain(tmpdir()); // no personal path in the committed file
      const setup = hostSetup(host, sb);
      setup.env.PATH = `${verdictBin()}:${setup.env.PATH}`; // machine B: verdict elsewhere
      setup.files[join(sb.home, ".config", "verdict", "policy.yaml")] = POLICY;
      const marker = join(sb.project, "e2e-denied-marker");
      const o = await runHost(sb, setup, [{ command: `touch ${marker}` }, { text: "done" }], { timeoutMs: 90_000 });
      expect(existsSync(marker), summary(o)).toBe(false);
      expect(
        o.followUps.some((f) => f.includes("E2E_DENIED")),
        summary(o),
      ).toBe(true);
    }, 180_000);

    test("on a machine without verdict, Claude Code's own permission check applies and the person is told", async () => {
      const { sb, install } = repository({ allowTouch: true });
      expect(install.code, install.stderr + install.stdout).toBe(0);
      const settings = readFileSync(join(sb.project, ".claude", "settings.json"), "utf8");
      expect(JSON.parse(settings).permissions.allow).toEqual(["Bash(touch:*)"]); // the team's settings kept
      const setup = hostSetup(host, sb); // no verdict on PATH
      // a workspace this person has trusted, so the team's permission rules apply
      setup.files[join(sb.home, ".claude.json")] = JSON.stringify({ projects: { [sb.project]: { hasTrustDialogAccepted: true } } });
      expect(Bun.which("verdict", { PATH: setup.env.PATH })).toBeNull();
      const allowed = join(sb.project, "e2e-allowed-by-claude");
      const o = await runHost(sb, setup, [{ command: `touch ${allowed}` }, { command: "rm -f nothing-here" }, { text: "done" }], {
        timeoutMs: 90_000,
      });
      // allowed by the team's permission rule: runs (work is not blocked)
      expect(existsSync(allowed), summary(o)).toBe(true);
      // not allowed by any rule: the headless permission flow refuses it, as it would with no hook
      expect(o.stdout, summary(o)).toContain("permission");
      expect(o.stdout, summary(o)).toContain("verdict is not installed on this machine");
      expect(o.exitCode, summary(o)).toBe(0);
    }, 180_000);

    test("installed from a subfolder it goes to the repository root; a session started in the subfolder does not load it, as install and doctor say", async () => {
      const { sb, install } = repository({ from: "pkg/app", allowTouch: true });
      expect(install.code, install.stderr + install.stdout).toBe(0);
      expect(install.stdout).toContain(`Written at the repository root ${sb.project}`);
      expect(install.stdout).toContain("a session started in a subfolder does not load this hook");
      expect(existsSync(join(sb.project, ".claude", "settings.json"))).toBe(true);
      expect(existsSync(join(sb.project, "pkg", "app", ".claude"))).toBe(false);
      const sub = join(sb.project, "pkg", "app");
      // The subfolder session: the root's hook is not called, so the team's allow rule lets the touch run.
      const subBox = { ...sb, project: sub, marker: join(sub, "hook-e2e-marker") };
      const setup = hostSetup(host, subBox);
      setup.env.PATH = `${verdictBin()}:${setup.env.PATH}`;
      setup.files[join(sb.home, ".config", "verdict", "policy.yaml")] = POLICY;
      setup.files[join(sb.home, ".claude", "settings.json")] = JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] } });
      const inSub = join(sub, "e2e-denied-marker");
      const o = await runHost(subBox, setup, [{ command: `touch ${inSub}` }, { text: "done" }], { timeoutMs: 90_000 });
      expect(existsSync(inSub), summary(o)).toBe(true);
      // ...and a session at the root is covered: the same command is denied there.
      const setupRoot = hostSetup(host, sb);
      setupRoot.env.PATH = setup.env.PATH;
      setupRoot.files = { ...setup.files };
      const atRoot = join(sb.project, "e2e-denied-marker");
      const r = await runHost(sb, setupRoot, [{ command: `touch ${atRoot}` }, { text: "done" }], { timeoutMs: 90_000 });
      expect(existsSync(atRoot), summary(r)).toBe(false);
      expect(
        r.followUps.some((f) => f.includes("E2E_DENIED")),
        summary(r),
      ).toBe(true);
      // doctor in the subfolder names the root hook this session would not load
      const doctor = spawnSync(VERDICT, ["doctor"], {
        cwd: sub,
        encoding: "utf8",
        env: { PATH: setup.env.PATH, HOME: sb.home, XDG_CONFIG_HOME: join(sb.home, ".config"), XDG_STATE_HOME: join(sb.home, ".state") },
      });
      expect(doctor.stdout).toContain(
        `${join(sb.project, ".claude", "settings.json")} has verdict's hook, but a Claude Code session started here (${sub}) does not load it`,
      );
      expect(doctor.status).toBe(1);
    }, 300_000);
  });
}

if (hosts.includes("codex")) {
  describe("codex: doctor changes nothing", () => {
    let host: InstalledHost;
    const boxes = suiteHost("codex", (installed) => (host = installed), VERDICT);

    test("doctor reads Codex's hook trust (untrusted, then trusted) without writing to ~/.codex or any other home, connecting only to 127.0.0.1", async () => {
      const sb = makeSandbox("codex-doctor");
      boxes.push(sb);
      const setup = hostSetup(host, sb, undefined, { codexBypassTrust: true });
      const bin = join(sb.root, "bin");
      mkdirSync(bin);
      symlinkSync(host.argv[0]!, join(bin, "codex"));
      symlinkSync(VERDICT, join(bin, "verdict"));
      // the other hosts are "installed" too (doctor only reads their files; it runs none of them)
      for (const other of ["claude", "gemini"]) writeFileSync(join(bin, other), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      // a policy whose model cannot be reached: doctor must say FIX
      setup.files[join(sb.home, ".config", "verdict", "policy.yaml")] =
        "judge:\n  answerer: model\n  answer_within: 1s\nmodel:\n  provider: openai\n  openai:\n    base_url: http://127.0.0.1:9/v1\n    model: local\n";
      setup.env.PATH = `${bin}:${setup.env.PATH}`;
      setup.env.XDG_CONFIG_HOME = join(sb.home, ".config");
      setup.env.XDG_STATE_HOME = join(sb.home, ".local", "state");
      // every file and folder of the home but verdict's own state (its decision log records doctor's self-tests)
      const snapshot = [
        "/bin/sh",
        "-c",
        `cd "$HOME" && find . -path ./.local/state/verdict -prune -o -exec stat -c '%n %s %Y %a' {} + | sort && find . -path ./.local/state/verdict -prune -o -type f -exec sha256sum {} + | sort`,
      ];
      const o = await runHost(sb, { ...setup, argv: ["/bin/true"] }, [{ text: "done" }], {
        timeoutMs: 60_000,
        // doctor under strace where there is one: every connect() it or a child makes is recorded
        pre: [
          [VERDICT, "install", "codex"],
          [VERDICT, "install", "claude"],
          [VERDICT, "install", "gemini"],
          [VERDICT, "doctor", "--json"],
          // trust the hooks as /hooks does, then doctor again (under watch)
          [process.execPath, join(import.meta.dir, "lib", "codex-trust.ts"), host.argv[0]!, sb.project],
          snapshot,
          [
            "/bin/sh",
            "-c",
            `if command -v strace >/dev/null 2>&1; then exec strace -f -qq -e trace=connect -o ${join(sb.root, "connect.txt")} ${VERDICT} doctor --json; else exec ${VERDICT} doctor --json; fi`,
          ],
          snapshot,
        ],
      });
      const [install, , , untrusted, , before, doctor, after] = o.pre;
      const first = JSON.parse(untrusted!.stdout)
        .hosts.find((h: any) => h.host === "codex")
        .checks.map((c: any) => c.what)
        .join("\n");
      expect(first, first).toContain("codex has not trusted");
      expect(first).toContain("pre_tool_use");
      expect(install?.stdout, JSON.stringify(o.pre)).toContain("Codex CLI");
      expect(doctor?.exitCode, JSON.stringify(doctor)).toBe(1);
      expect(
        JSON.parse(doctor!.stdout).policy.some((c: any) => !c.ok && c.what.includes("cannot be used")),
        doctor!.stdout,
      ).toBe(true);
      expect(
        JSON.parse(doctor!.stdout)
          .hosts.map((h: any) => h.host)
          .sort(),
      ).toEqual(["claude", "codex", "gemini"]);
      expect(doctor?.stdout, JSON.stringify(doctor)).toContain("schema_version");
      const report = JSON.parse(doctor!.stdout);
      const codex = report.hosts.find((h: any) => h.host === "codex");
      const said = codex.checks.map((c: any) => c.what).join("\n");
      // trusted now: read from a throwaway home, compared with the real config.toml
      expect(said, said).toContain("codex trusts verdict's 2 hooks");
      expect(after?.stdout.length).toBeGreaterThan(0);
      expect(after?.stdout, "the home changed under doctor").toBe(before!.stdout);
      expect(o.netns).toBe(true);
      if (Bun.which("strace")) {
        const calls = readFileSync(join(sb.root, "connect.txt"), "utf8")
          .split("\n")
          .filter((line) => line.includes("connect("));
        const outside = calls.filter((line) => /AF_INET6?/.test(line) && !/127\.0\.0\.1|"::1"|::ffff:127\.0\.0\.1/.test(line));
        expect(outside, calls.join("\n")).toEqual([]);
        // it did try the configured model, on loopback
        expect(
          calls.some((line) => line.includes("htons(9)") && line.includes("127.0.0.1")),
          calls.join("\n"),
        ).toBe(true);
      }
    }, 180_000);
  });
}

for (const name of (["codex", "gemini"] as const).filter((h) => hosts.includes(h))) {
  describe(`${name}: a project hook on a machine without verdict`, () => {
    let host: InstalledHost;
    const boxes = suiteHost(name, (installed) => (host = installed), VERDICT);

    test("the host's own approval applies (here: it runs the command), the run is not broken", async () => {
      const sb = makeSandbox(`${name}-no-verdict`);
      boxes.push(sb);
      spawnSync("git", ["init", "-q", sb.project]);
      const install = verdictOn(verdictBin(), ["install", name, "--project"], sb.project);
      expect(install.code, install.stderr + install.stdout).toBe(0);
      const setup = hostSetup(host, sb);
      expect(Bun.which("verdict", { PATH: setup.env.PATH })).toBeNull();
      const marker = join(sb.project, "e2e-denied-marker");
      const o = await runHost(sb, setup, [{ command: `touch ${marker}` }, { text: "done" }], { timeoutMs: 90_000 });
      expect(o.exitCode, summary(o)).toBe(0);
      expect(existsSync(marker), summary(o)).toBe(true);
      expect(o.mainRequests.length, summary(o)).toBe(2);
    }, 180_000);
  });
}

// What the README's coverage table says for Codex CLI and Gemini CLI: a hook at the repository root, a
// session started in pkg/app (Claude Code's row is proved above with verdict itself).
for (const name of (["codex", "gemini"] as const).filter((h) => hosts.includes(h))) {
  describe(`${name}: which sessions a root project hook covers`, () => {
    let host: InstalledHost;
    const boxes = suiteHost(name, (installed) => (host = installed));

    const walksUp = name === "codex";
    test(`a session started in a subfolder ${walksUp ? "loads" : "does not load"} the root's hook`, async () => {
      const sb = makeSandbox(`${name}-coverage`);
      boxes.push(sb);
      spawnSync("git", ["init", "-q", sb.project]);
      const sub = join(sb.project, "pkg", "app");
      mkdirSync(sub, { recursive: true });
      const stub = writeStubHook(sb);
      const subBox = { ...sb, project: sub };
      const setup = hostSetup(host, subBox);
      const pre = `${stub} pre`;
      if (name === "codex") {
        setup.files[join(sb.project, ".codex", "hooks.json")] = JSON.stringify({
          hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: pre, timeout: 30 }] }] },
        });
        setup.files[join(sb.home, ".codex", "config.toml")] = CODEX_CONFIG(sb.project);
      } else {
        setup.files[join(sb.project, ".gemini", "settings.json")] = JSON.stringify({
          hooks: {
            BeforeTool: [{ matcher: "run_shell_command", hooks: [{ type: "command", name: "e2e-pre", command: pre, timeout: 30000 }] }],
          },
        });
        setup.files[join(sb.home, ".gemini", "trustedFolders.json")] = JSON.stringify({
          [sb.project]: "TRUST_FOLDER",
          [sub]: "TRUST_FOLDER",
        });
      }
      const o = await runHost(subBox, setup, [{ command: "true" }, { text: "done" }], { timeoutMs: 90_000 });
      expect(o.exitCode, summary(o)).toBe(0);
      expect(stubPayloads(sb, "pre").length > 0, summary(o)).toBe(walksUp);
    }, 180_000);
  });
}

void dirname;
