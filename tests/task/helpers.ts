/** Running `verdict run` (the compiled binary) against the fake Formal AI server, and reading its evidence. */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, isolatedEnv, tempDir } from "../support/binary.ts";

/** A policy layer that classifies the tools the tests use, so they do not depend on the default rule set. */
export const TEST_POLICY = `
rules:
  - id: task-test-reads
    match: { program: [test, ls, cat, pwd, stat, wc, head, tail, seq, sleep, echo, "true", "false"] }
    act: read
    undo: 0
    reason: Only looks.
  - id: task-test-misread
    match: { program: gzip }
    act: read
    undo: 0
    reason: Classified as a read on purpose, to test what a read that writes does.
  - id: task-test-edits
    match: { program: [cp, mv, mkdir, touch, sed, tee, ln] }
    act: edit
    undo: 1
    reason: Edits files in the working directory.
  - id: task-test-deny
    match: { program: chmod }
    act: system
    undo: 2
    decision: deny
    reason: Permission changes are denied in these tests.
  - id: task-test-delete
    match: { program: [rm, rmdir] }
    act: delete
    undo: 3
    decision: ask
    reason: Deletes files nothing regenerates.
task:
  env:
    TASK_TEST_VAR: from-policy
`;

export type Setup = {
  /** The working directory the run starts in (realpath'd). */
  cwd: string;
  home: string;
  policy: string;
  env: Record<string, string>;
};

/** A fresh home, state directory and working directory holding `files`. */
export function setup(files: Record<string, string> = {}, extraEnv: Record<string, string> = {}): Setup {
  const root = tempDir("verdict-task-");
  const home = join(root, "home");
  const cwd = join(root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(cwd, name, ".."), { recursive: true });
    writeFileSync(join(cwd, name), content);
  }
  const policy = join(root, "policy.yaml");
  writeFileSync(policy, TEST_POLICY);
  const env = isolatedEnv(home, { VERDICT_MODE: "rules", VERDICT_TASK_MIRROR: "off", ...extraEnv });
  return { cwd, home, policy, env };
}

export type Ran = { code: number; stdout: string; stderr: string; durationMs: number };

export type RunOptions = {
  /** Called once the process has started, with its pid; may send it signals. */
  during?: (pid: number, output: () => string) => Promise<void>;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** false: no test policy layer, the embedded default (and the home's layers) alone. */
  policy?: boolean;
};

/** Runs dist/verdict run with the test policy against `endpoint`; never waits longer than timeoutMs. */
export async function runVerdict(s: Setup, endpoint: string, args: string[], options: RunOptions = {}): Promise<Ran> {
  const started = performance.now();
  const policy = options.policy === false ? [] : ["--policy", s.policy];
  const proc = Bun.spawn([BINARY, "run", ...policy, "--endpoint", endpoint, ...args], {
    cwd: s.cwd,
    env: { ...s.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stdout = "";
  let stderr = "";
  const pump = async (stream: ReadableStream<Uint8Array>, into: (text: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) into(decoder.decode(chunk, { stream: true }));
  };
  const reading = Promise.all([pump(proc.stdout, (t) => (stdout += t)), pump(proc.stderr, (t) => (stderr += t))]);
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 15_000);
  try {
    if (options.during) await options.during(proc.pid, () => stdout);
    const code = await proc.exited;
    await reading;
    return { code, stdout, stderr, durationMs: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

/** The run's evidence: the only file in the state directory's runs folder. */
export function evidenceOf(s: Setup): any {
  const dir = join(s.home, ".local/state/verdict/runs");
  const files = readdirSync(dir).filter((name) => name.endsWith(".json"));
  if (files.length !== 1) throw new Error(`expected one evidence file in ${dir}, found ${files.join(", ") || "none"}`);
  return JSON.parse(readFileSync(join(dir, files[0]!), "utf8"));
}

export function toolSteps(evidence: any): any[] {
  return evidence.steps.filter((step: any) => step.kind === "tool");
}

export function check(step: any, name: string): any {
  return step.checks.find((c: any) => c.name === name);
}

/** Waits until `predicate` holds, polling; throws after `ms`. */
export async function until(predicate: () => boolean, ms = 5000, what = "the condition"): Promise<void> {
  const end = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Whether a process whose command line contains `marker` is alive. */
export function processAlive(marker: string): boolean {
  const found = Bun.spawnSync(["pgrep", "-f", marker], { stdout: "pipe" });
  return found.exitCode === 0 && found.stdout.toString().trim().length > 0;
}

/** A port nothing listens on. */
export function closedPort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port!;
  server.stop(true);
  return port;
}
