// Test-side harness: builds a throwaway home and project for one host, registers hooks, runs the host
// headless against the fake model (in a loopback-only network namespace when the machine allows it), and
// reports what happened: whether the marker command ran, what the model was sent, the hook payloads.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Step } from "./fake-model.ts";
import type { RecordedRequest } from "./fake-model.ts";
import type { RunResult, RunSpec } from "./runner.ts";
import { afterAll, beforeAll } from "bun:test";
import { ensureHost, type HostName, type InstalledHost } from "./install.ts";

export const RUNNER = join(import.meta.dir, "runner.ts");
export const PROMPT = "Run the scripted test command.";

let netnsChecked: boolean | undefined;
/** Whether hosts run in a private network namespace with only loopback (root, or unprivileged userns). */
export function netnsAvailable(): boolean {
  if (process.env.VERDICT_E2E_NETNS === "0") return false;
  if (netnsChecked === undefined) {
    const r = spawnSync("unshare", [...unshareArgs(), "--", "sh", "-c", "ip link set lo up && true"], { timeout: 10_000 });
    netnsChecked = r.status === 0;
  }
  return netnsChecked;
}
function unshareArgs(): string[] {
  const root = process.getuid?.() === 0;
  return [...(root ? [] : ["-r"]), "-n", "-p", "-f", "-m", "--mount-proc", "--kill-child"];
}

export interface Sandbox {
  root: string;
  home: string;
  project: string;
  /** where stub hooks record their payloads */
  hookDir: string;
  marker: string;
  cleanup(): void;
}

/**
 * A describe block's host: installed once before its tests (after checking that the built verdict is
 * there, when `verdict` names it), handed to `onReady`; the sandboxes pushed on the returned list are
 * cleaned up after the block.
 */
export function suiteHost(name: HostName, onReady: (host: InstalledHost) => void, verdict?: string): Sandbox[] {
  const boxes: Sandbox[] = [];
  beforeAll(async () => {
    if (verdict && !existsSync(verdict)) throw new Error(`${verdict} is missing: build it first (npx bun build.ts)`);
    onReady(await ensureHost(name));
  }, 16 * 60_000);
  afterAll(() => boxes.forEach((b) => b.cleanup()));
  return boxes;
}

export function makeSandbox(label: string): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `verdict-e2e-${label}-`));
  const home = join(root, "home");
  const project = join(root, "project");
  const hookDir = join(root, "hooks");
  for (const d of [home, project, hookDir, join(root, "tmp")]) mkdirSync(d, { recursive: true });
  return {
    root,
    home,
    project,
    hookDir,
    marker: join(project, "hook-e2e-marker"),
    cleanup: () => {
      if (process.env.VERDICT_E2E_KEEP !== "1") rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * A stub hook: records each payload as <hookDir>/<label>.<n>.json and answers with <hookDir>/<label>.reply.<n>
 * if it exists, else <hookDir>/<label>.reply (empty if absent), exiting with <hookDir>/<label>.exit (0).
 * Anything on <label>.stderr goes to stderr.
 */
export function writeStubHook(sb: Sandbox): string {
  const path = join(sb.hookDir, "stub-hook.sh");
  writeFileSync(
    path,
    `#!/bin/bash
label="$1"; dir="${sb.hookDir}"
n=$(ls "$dir" | grep -c "^$label\\.[0-9]*\\.json$")
n=$((n+1))
cat > "$dir/$label.$n.json"
if [ -f "$dir/$label.reply.$n" ]; then cat "$dir/$label.reply.$n"; elif [ -f "$dir/$label.reply" ]; then cat "$dir/$label.reply"; fi
[ -f "$dir/$label.stderr" ] && cat "$dir/$label.stderr" >&2
code=0; [ -f "$dir/$label.exit" ] && code=$(cat "$dir/$label.exit")
exit $code
`,
  );
  chmodSync(path, 0o755);
  return path;
}

export function setStub(sb: Sandbox, label: string, reply: string | object, opts: { call?: number; exit?: number; stderr?: string } = {}) {
  const text = typeof reply === "string" ? reply : JSON.stringify(reply);
  writeFileSync(join(sb.hookDir, opts.call ? `${label}.reply.${opts.call}` : `${label}.reply`), text);
  if (opts.exit !== undefined) writeFileSync(join(sb.hookDir, `${label}.exit`), String(opts.exit));
  if (opts.stderr !== undefined) writeFileSync(join(sb.hookDir, `${label}.stderr`), opts.stderr);
}

export function stubPayloads(sb: Sandbox, label: string): any[] {
  return readdirSync(sb.hookDir)
    .filter((f) => new RegExp(`^${label}\\.\\d+\\.json$`).test(f))
    .sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]))
    .map((f) => JSON.parse(readFileSync(join(sb.hookDir, f), "utf8")));
}

/** Hook commands for each event: PRE before a shell command, STOP at a turn's end. */
export interface HookCommands {
  pre?: string;
  stop?: string;
}

export interface HostSetup {
  argv: string[];
  env: Record<string, string>;
  files: Record<string, string>;
}

function basePath(): string {
  const node = Bun.which("node");
  const dirs = [node ? dirname(node) : "", "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
  return [...new Set(dirs.filter(Boolean))].join(":");
}

function baseEnv(sb: Sandbox): Record<string, string> {
  // VERDICT_RESIDENT_IDLE: the resident judge a host's hooks start ends soon after the test.
  return {
    PATH: basePath(),
    HOME: sb.home,
    TMPDIR: join(sb.root, "tmp"),
    LANG: "C.UTF-8",
    TERM: "dumb",
    USER: "dev",
    VERDICT_RESIDENT_IDLE: "5s",
  };
}

/** Hook settings in Claude Code's / Codex's shape. */
function claudeStyleHooks(cmds: HookCommands, timeoutSeconds = 30) {
  const hooks: Record<string, unknown> = {};
  if (cmds.pre) hooks.PreToolUse = [{ matcher: "Bash", hooks: [{ type: "command", command: cmds.pre, timeout: timeoutSeconds }] }];
  if (cmds.stop) hooks.Stop = [{ hooks: [{ type: "command", command: cmds.stop, timeout: timeoutSeconds }] }];
  return { hooks };
}

export const CODEX_CONFIG = (project: string) => `model = "gpt-fake"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake loopback provider"
base_url = "http://127.0.0.1:{{PORT}}/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false

[projects."${project}"]
trust_level = "trusted"
`;

/**
 * Everything one host needs to run headless against the fake: argv, environment, settings files.
 * With `hooks` the stub/explicit hook commands are registered in the host's settings; without, the caller
 * registers them (e.g. with `verdict install` as a pre-run step).
 */
export function hostSetup(
  host: InstalledHost,
  sb: Sandbox,
  hooks?: HookCommands,
  opts: { codexBypassTrust?: boolean; claudePermissionMode?: string } = {},
): HostSetup {
  const env = baseEnv(sb);
  const files: Record<string, string> = {};
  if (host.name === "claude") {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: "http://127.0.0.1:{{PORT}}",
      ANTHROPIC_API_KEY: "sk-fake-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_BUG_COMMAND: "1",
      CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
    });
    if (hooks) files[join(sb.project, ".claude", "settings.json")] = JSON.stringify(claudeStyleHooks(hooks), null, 2);
    return {
      argv: [
        ...host.argv,
        "-p",
        PROMPT,
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        opts.claudePermissionMode ?? "default",
      ],
      env,
      files,
    };
  }
  if (host.name === "codex") {
    const codexHome = join(sb.home, ".codex");
    Object.assign(env, { CODEX_HOME: codexHome, FAKE_OPENAI_API_KEY: "sk-fake-key" });
    files[join(codexHome, "config.toml")] = CODEX_CONFIG(sb.project);
    if (hooks) files[join(codexHome, "hooks.json")] = JSON.stringify(claudeStyleHooks(hooks), null, 2);
    const argv = [
      ...host.argv,
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--sandbox",
      "danger-full-access",
      "-o",
      join(sb.root, "codex-last-message.txt"),
    ];
    if (opts.codexBypassTrust !== false) argv.push("--dangerously-bypass-hook-trust");
    argv.push(PROMPT);
    return { argv, env, files };
  }
  // gemini
  Object.assign(env, {
    GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:{{PORT}}",
    GEMINI_API_KEY: "fake-key",
    GEMINI_CLI_NO_RELAUNCH: "true",
    NO_BROWSER: "true",
  });
  files[join(sb.home, ".gemini", "settings.json")] = JSON.stringify(
    {
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: "gemini-api-key" } },
    },
    null,
    2,
  );
  files[join(sb.home, ".gemini", "trustedFolders.json")] = JSON.stringify({ [sb.project]: "TRUST_FOLDER" }, null, 2);
  if (hooks) {
    const h: Record<string, unknown> = {};
    if (hooks.pre)
      h.BeforeTool = [{ matcher: "run_shell_command", hooks: [{ type: "command", name: "e2e-pre", command: hooks.pre, timeout: 30000 }] }];
    if (hooks.stop) h.AfterAgent = [{ hooks: [{ type: "command", name: "e2e-stop", command: hooks.stop, timeout: 30000 }] }];
    files[join(sb.project, ".gemini", "settings.json")] = JSON.stringify({ hooks: h }, null, 2);
  }
  return { argv: [...host.argv, "-p", PROMPT, "--output-format", "json", "--approval-mode", "yolo"], env, files };
}

export interface Outcome extends RunResult {
  markerExists: boolean;
  /** main-loop requests after the first, serialised, for "the model was told …" checks */
  followUps: string[];
  mainRequests: RecordedRequest[];
  netns: boolean;
}

/** Runs the host; bounded by timeoutMs (plus a margin for the runner), cleans up every process it started. */
export async function runHost(
  sb: Sandbox,
  setup: HostSetup,
  steps: Step[],
  opts: { timeoutMs?: number; pre?: string[][] } = {},
): Promise<Outcome> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const resultPath = join(sb.root, `result-${Date.now()}.json`);
  const spec: RunSpec = {
    argv: setup.argv,
    cwd: sb.project,
    env: setup.env,
    files: setup.files,
    pre: opts.pre ?? [],
    steps,
    timeoutMs,
    resultPath,
  };
  const specPath = join(sb.root, "spec.json");
  writeFileSync(specPath, JSON.stringify(spec));
  const netns = netnsAvailable();
  const argv = netns
    ? ["unshare", ...unshareArgs(), "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", process.execPath, RUNNER, specPath]
    : [process.execPath, RUNNER, specPath];
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
      env: { PATH: process.env.PATH ?? basePath(), HOME: sb.home },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, timeoutMs + 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      resolve({ code, stderr });
    });
  });
  if (!existsSync(resultPath)) throw new Error(`runner failed (exit ${code}) without a result:\n${stderr}`);
  const result: RunResult = JSON.parse(readFileSync(resultPath, "utf8"));
  const mainRequests = result.requests.filter((r) => r.main);
  return {
    ...result,
    netns,
    markerExists: existsSync(sb.marker),
    mainRequests,
    followUps: mainRequests.slice(1).map((r) => JSON.stringify(r.body)),
  };
}

/** Human-readable summary of a run for failure messages. */
export function describe(o: Outcome): string {
  return JSON.stringify(
    {
      exitCode: o.exitCode,
      timedOut: o.timedOut,
      durationMs: o.durationMs,
      markerExists: o.markerExists,
      requests: o.requests.map((r) => `${r.method} ${r.path}${r.main ? " (main)" : ""}`),
      pre: o.pre,
      stdoutTail: o.stdout.slice(-1500),
      stderrTail: o.stderr.slice(-1500),
    },
    null,
    2,
  );
}

export type { HostName };
