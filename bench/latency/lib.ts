/**
 * Shared by the latency benchmarks (run.ts, and model.ts for the model
 * path): a timing loop over whole processes, the reference programs, and
 * the environment commands run in.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist", "verdict");

export type Timing = { name: string; runs: number; min: number; median: number; p90: number };

/** An environment with no model key and a throwaway home, so the rule engine answers and nothing is logged. */
export function benchEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "verdict-bench-home-"));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(VERDICT_|TYPESAFE_|OPENAI_|XDG_)/.test(key)) env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    ...extra,
  };
}

/**
 * One run of a command, in ms. Bun.spawnSync, not node:child_process: the
 * latter adds several milliseconds of its own to every spawn, which would
 * make every ratio against the print-a-line program look better than it is.
 */
function spawnOnce(argv: string[], stdin: string | undefined, options: { env?: Record<string, string>; cwd?: string }): number {
  const started = performance.now();
  const result = Bun.spawnSync(argv, {
    env: options.env,
    cwd: options.cwd,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "ignore",
    stderr: "ignore",
  });
  const ms = performance.now() - started;
  if (result.exitCode === null) throw new Error(`${argv[0]} did not exit`);
  return ms;
}

/** Runs a command `runs` times after `warmup` runs and reports min, median and 90th percentile wall time in ms. */
export function time(
  name: string,
  argv: string[],
  options: { runs: number; warmup: number; env?: Record<string, string>; cwd?: string; stdin?: string },
): Timing {
  const once = () => spawnOnce(argv, options.stdin, options);
  for (let i = 0; i < options.warmup; i++) once();
  const samples: number[] = [];
  for (let i = 0; i < options.runs; i++) samples.push(once());
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] as number;
  return { name, runs: options.runs, min: samples[0] as number, median: at(0.5), p90: at(0.9) };
}

/** Runs the same cases interleaved (a round of each, `runs` times), so load on the machine falls on all of them alike. */
export function timeInterleaved(
  cases: { name: string; argv: string[]; stdin?: string }[],
  options: { runs: number; warmup: number; env?: Record<string, string>; cwd?: string },
): Timing[] {
  const samples = cases.map(() => [] as number[]);
  for (let round = 0; round < options.warmup + options.runs; round++) {
    cases.forEach((c, i) => {
      const ms = spawnOnce(c.argv, c.stdin, options);
      if (round >= options.warmup) (samples[i] as number[]).push(ms);
    });
  }
  return cases.map((c, i) => {
    const sorted = (samples[i] as number[]).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return { name: c.name, runs: options.runs, min: sorted[0] as number, median: at(0.5), p90: at(0.9) };
  });
}

/** The print-a-line floor: the same program the start-up bench compares with. */
export { buildNoop as buildPrintLine } from "../support/timing.ts";

/** dist/verdict, built first when it is missing. */
export function ensureBinary(): string {
  if (!existsSync(BINARY)) {
    const built = spawnSync(process.execPath, [join(ROOT, "build.ts")], { cwd: ROOT, stdio: "inherit" });
    if (built.status !== 0) throw new Error("cannot build dist/verdict");
  }
  return BINARY;
}

/** Whether hyperfine is installed (apt-get install -y hyperfine). */
export function hasHyperfine(): boolean {
  return spawnSync("hyperfine", ["--version"], { stdio: "ignore" }).status === 0;
}

export const fmt = (ms: number) => ms.toFixed(1);
