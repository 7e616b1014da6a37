/**
 * Latency of the rule path, as a hook pays it: `verdict check --rules-only`
 * run as a whole process on a spread of commands, as a ratio against
 * `dist/verdict --version` and against a compiled Bun program that only
 * prints a line (both measured in the same run, interleaved); then the
 * throughput of one process judging many lines (`--stdin`) and of the rule
 * engine in-process.
 *
 *   npx bun bench/latency/run.ts [--runs N] [--warmup N] [--hyperfine] [--json]
 *
 * Own timing loop by default (min, median and 90th percentile of wall time);
 * --hyperfine also runs hyperfine on the same commands when it is installed.
 * A model-path section lives in bench/latency/model.ts when present: its
 * `main(context)` runs after this one.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answerCommandByRules } from "../../src/answerers/rules.ts";
import { loadPolicy } from "../../src/policy/index.ts";
import { benchEnv, buildPrintLine, ensureBinary, fmt, hasHyperfine, timeInterleaved, type Timing } from "./lib.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const runs = option("--runs", 40);
const warmup = option("--warmup", 5);

/** The commands judged: from a one-word line to a 100 KB one. */
export function cases(): { name: string; command: string }[] {
  const heredoc = `cat <<'EOF' > notes.md\n${"- rm -rf / is only text here; git push --force too.\n".repeat(100).slice(0, 5 * 1024)}EOF`;
  return [
    { name: "simple", command: "git status" },
    { name: "piped", command: "git log --oneline -50 | grep -i fix | sort | uniq -c | head -5" },
    { name: "nested bash -c", command: `bash -c "sh -c 'bash -c \\"rm -rf build && ls -la\\"'"` },
    { name: "5 KB here-document", command: heredoc },
    { name: "100 KB line", command: `echo ${"word ".repeat(20 * 1024)}| wc -w` },
  ];
}

async function main(): Promise<void> {
  const binary = ensureBinary();
  const noop = buildPrintLine();
  const env = benchEnv({ VERDICT_MODE: "rules" });
  const cwd = mkdtempSync(join(tmpdir(), "verdict-bench-cwd-"));
  const list = cases();

  const timings = timeInterleaved(
    [
      { name: "print a line (compiled Bun)", argv: [noop] },
      { name: "verdict --version", argv: [binary, "--version"] },
      ...list.map((c) => ({ name: `check: ${c.name}`, argv: [binary, "check", "--rules-only", "--", c.command] })),
    ],
    { runs, warmup, env, cwd },
  );
  const [printLine, version] = timings as [Timing, Timing];
  console.log(`## Whole process, ${runs} runs each after ${warmup} warm-up runs, interleaved (ms)\n`);
  console.log("| command | min | median | p90 | min / print a line | min / --version | median / print a line |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const t of timings) {
    console.log(
      `| ${t.name} | ${fmt(t.min)} | ${fmt(t.median)} | ${fmt(t.p90)} | ${(t.min / printLine.min).toFixed(2)} | ${(t.min / version.min).toFixed(2)} | ${(t.median / printLine.median).toFixed(2)} |`,
    );
  }

  // One process, many lines.
  const lines = 2000;
  const batch = Array.from({ length: lines }, (_, i) => (list[i % 3] as { command: string }).command).join("\n");
  const started = performance.now();
  const ran = spawnSync(binary, ["check", "--stdin", "--rules-only", "--json"], { env, cwd, input: batch, maxBuffer: 1 << 30 });
  const batchMs = performance.now() - started;
  if (ran.status === null) throw new Error("check --stdin did not finish");
  const perLine = (batchMs - version.median) / lines;
  console.log(
    `\n## One process, --stdin\n\n${lines} lines (simple, piped, nested, in turn) in ${fmt(batchMs)} ms: ${(perLine * 1000).toFixed(0)} µs a line after start-up, ${Math.round(lines / (batchMs / 1000))} lines/s overall.`,
  );

  // The rule engine alone, in this process.
  const loaded = loadPolicy({ cwd, only: [] });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const policy = loaded.loaded.policy;
  console.log("\n## The rule engine in-process (µs a line, after 200 warm-up lines)\n\n| command | median | min |\n|---|---:|---:|");
  for (const c of list) {
    for (let i = 0; i < 200; i++) answerCommandByRules(c.command, { cwd }, policy);
    const samples: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t0 = performance.now();
      answerCommandByRules(c.command, { cwd }, policy);
      samples.push((performance.now() - t0) * 1000);
    }
    samples.sort((a, b) => a - b);
    console.log(`| ${c.name} | ${(samples[150] as number).toFixed(0)} | ${(samples[0] as number).toFixed(0)} |`);
  }

  if (args.includes("--hyperfine")) {
    if (!hasHyperfine()) console.log("\nhyperfine is not installed (apt-get install -y hyperfine); skipped.");
    else {
      console.log("\n## hyperfine\n");
      const quoted = (argv: string[]) => argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
      const commands = [
        [noop],
        [binary, "--version"],
        [binary, "check", "--rules-only", "--", (list[0] as { command: string }).command],
        [binary, "check", "--rules-only", "--", (list[2] as { command: string }).command],
      ];
      spawnSync("hyperfine", ["-N", "--warmup", String(warmup), "--runs", String(runs), ...commands.map(quoted)], {
        stdio: "inherit",
        env,
        cwd,
      });
    }
  }

  const modelBench = join(import.meta.dir, "model.ts");
  if (existsSync(modelBench)) {
    const model = (await import(modelBench)) as {
      main?: (context: {
        binary: string;
        noop: string;
        env: Record<string, string>;
        cwd: string;
        runs: number;
        warmup: number;
      }) => Promise<void>;
    };
    await model.main?.({ binary, noop, env, cwd, runs, warmup });
  }
}

if (import.meta.main) await main();
