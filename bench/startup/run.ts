/**
 * Start-up benchmark: the compiled binary loading the embedded default plus a
 * repository policy and printing the effective policy, against a compiled Bun
 * program that only prints a line.
 *
 *   bun bench/startup/run.ts [runs]
 *
 * Build dist/verdict first (bun build.ts). Prints a Markdown table of min and
 * median milliseconds and ratios against the noop.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildNoop, table, timeAll } from "../support/timing.ts";

const binary = resolve(import.meta.dir, "../../dist/verdict");
const runs = Number(process.argv[2] ?? 40);
const repo = mkdtempSync(join(tmpdir(), "verdict-bench-repo-"));
mkdirSync(join(repo, ".git"));
mkdirSync(join(repo, ".verdict"));
writeFileSync(
  join(repo, ".verdict", "policy.yaml"),
  [
    "judge:",
    "  thresholds:",
    "    ask_at_undo: 1.5",
    "rules:",
    "  - id: no-prod-deploy",
    "    match: { program: kubectl, subcommand: apply, args_any: ['*prod*'] }",
    "    act: remote",
    "    undo: 3",
    "    decision: deny",
    "    reason: Deploys to production go through the release pipeline.",
    "",
  ].join("\n"),
);
const home = mkdtempSync(join(tmpdir(), "verdict-bench-home-"));
const env = { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
const noop = buildNoop();

const timings = timeAll(
  [
    { name: "noop (compiled Bun, prints a line)", argv: [noop], env },
    { name: "verdict --version", argv: [binary, "--version"], env },
    { name: "verdict policy show (default + repo layer)", argv: [binary, "policy", "show"], cwd: repo, env },
    { name: "verdict policy show --effective", argv: [binary, "policy", "show", "--effective"], cwd: repo, env },
  ],
  runs,
);
console.log(`Start-up, ${runs} runs each, interleaved (${new Date().toISOString()}, bun ${Bun.version}):\n`);
console.log(table(timings, "noop (compiled Bun, prints a line)"));
