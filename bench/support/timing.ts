/**
 * Timing whole processes for benchmarks: runs each command interleaved (so a
 * noisy neighbour hits all of them alike), and reports min and median. The
 * machine is shared, so compare ratios within one run, never across runs.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { START_FLAGS } from "../../npm/start-flags.ts";

export type Case = { name: string; argv: string[]; cwd?: string; env?: Record<string, string>; stdin?: string };
export type Timing = { name: string; min: number; median: number; runs: number };

function once(item: Case): number {
  const start = performance.now();
  const result = Bun.spawnSync(item.argv, {
    cwd: item.cwd,
    env: item.env ?? (process.env as Record<string, string>),
    stdin: item.stdin === undefined ? "ignore" : Buffer.from(item.stdin),
    stdout: "ignore",
    stderr: "ignore",
  });
  const took = performance.now() - start;
  if (result.exitCode === null) throw new Error(`${item.name} did not exit`);
  return took;
}

export function timeAll(cases: Case[], runs = 40, warmup = 5): Timing[] {
  const samples = cases.map(() => [] as number[]);
  for (let round = 0; round < warmup; round++) cases.forEach((item) => once(item));
  for (let round = 0; round < runs; round++) cases.forEach((item, index) => samples[index]!.push(once(item)));
  return cases.map((item, index) => {
    const sorted = samples[index]!.sort((a, b) => a - b);
    return { name: item.name, min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]!, runs };
  });
}

/** A compiled Bun program that only prints a line: the floor every figure is compared with. */
export function buildNoop(): string {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-noop-"));
  const source = join(dir, "noop.ts");
  writeFileSync(source, 'console.log("ok");\n');
  const outfile = join(dir, "noop");
  const built = Bun.spawnSync(
    [process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", ...START_FLAGS, "--outfile", outfile, source],
    { stdout: "ignore", stderr: "pipe" },
  );
  if (built.exitCode !== 0) throw new Error(`cannot build the noop program: ${built.stderr.toString()}`);
  return outfile;
}

export function table(timings: Timing[], baseline: string): string {
  const base = timings.find((timing) => timing.name === baseline)!;
  const rows = timings.map(
    (timing) =>
      `| ${timing.name} | ${timing.min.toFixed(1)} | ${timing.median.toFixed(1)} | ${(timing.min / base.min).toFixed(2)}× | ${(timing.median / base.median).toFixed(2)}× |`,
  );
  return ["| case | min ms | median ms | min ratio | median ratio |", "|---|---|---|---|---|", ...rows].join("\n");
}
