// Runs one host against the fake model. Started by harness.ts, normally inside a private network
// namespace (only loopback up) and PID namespace, so the host can reach nothing but the fake, and nothing
// it started outlives the run. Usage: bun runner.ts <spec.json>; writes the spec's resultPath.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { startFakeModel, type RecordedRequest, type Step } from "./fake-model.ts";

export interface RunSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** files written before the run; "{{PORT}}" is replaced by the fake model's port */
  files: Record<string, string>;
  /** commands run (in order, same env and cwd) after the files are written and before the host */
  pre: string[][];
  steps: Step[];
  timeoutMs: number;
  resultPath: string;
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  pre: Array<{ argv: string[]; exitCode: number | null; stdout: string; stderr: string }>;
  /** commands run by steps while the host ran */
  stepRuns: Array<{ argv: string[]; exitCode: number | null; stdout: string; stderr: string }>;
  requests: RecordedRequest[];
  port: number;
}

function run(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number) {
  return new Promise<{ exitCode: number | null; signal: string | null; timedOut: boolean; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.on("error", (e) => {
      stderr += `\n[runner] spawn error: ${e.message}`;
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      killGroup(); // whatever the host left behind (hooks, helpers)
      resolve({ exitCode, signal, timedOut, stdout, stderr });
    });
  });
}

async function main() {
  const spec: RunSpec = JSON.parse(readFileSync(process.argv[2]!, "utf8"));
  let env: Record<string, string> = {};
  const stepRuns: RunResult["pre"] = [];
  const fake = startFakeModel(spec.steps, undefined, async (step, body) => {
    const approval = /verdict approvals approve ([A-Za-z0-9_-]+)/.exec(JSON.stringify(body))?.[1] ?? "NO-APPROVAL-ID-SEEN";
    for (const argv of step.run ?? []) {
      const r = await run(
        argv.map((word) => word.replaceAll("{{APPROVAL}}", approval)),
        spec.cwd,
        env,
        60_000,
      );
      stepRuns.push({ argv, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });
    }
  });
  const sub = (s: string) => s.replaceAll("{{PORT}}", String(fake.port));
  env = Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, sub(v)]));
  for (const [path, content] of Object.entries(spec.files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, sub(content));
  }
  const t0 = Date.now();
  const pre: RunResult["pre"] = [];
  for (const argv of spec.pre) {
    const r = await run(argv.map(sub), spec.cwd, env, 60_000);
    pre.push({ argv, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });
  }
  const r = await run(spec.argv.map(sub), spec.cwd, env, spec.timeoutMs);
  const result: RunResult = { ...r, durationMs: Date.now() - t0, pre, stepRuns, requests: fake.requests, port: fake.port };
  fake.stop();
  writeFileSync(spec.resultPath, JSON.stringify(result));
}

await main();
process.exit(0);
