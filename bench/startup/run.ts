/**
 * Start-up benchmark: the compiled binary on its short paths, against a
 * compiled Bun program that only prints a line.
 *
 *   bun bench/startup/run.ts [runs] [other-binary ...]
 *
 * Build dist/verdict first (bun build.ts). Every case runs in a scratch
 * repository with a policy layer, under a scratch HOME. Prints a Markdown
 * table of min and median milliseconds and ratios against the noop. Other
 * binaries (e.g. a build of another commit) are timed in the same interleaved
 * batch, so their ratios can be compared with dist/verdict's.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_LAYER } from "../support/layers.ts";
import { buildNoop, table, timeAll, type Case } from "../support/timing.ts";

const binary = resolve(import.meta.dir, "../../dist/verdict");
const runs = Number(process.argv[2] ?? 40);
const others = process.argv.slice(3).map((path) => resolve(path));
const repo = mkdtempSync(join(tmpdir(), "verdict-bench-repo-"));
mkdirSync(join(repo, ".git"));
mkdirSync(join(repo, ".verdict"));
writeFileSync(join(repo, ".verdict", "policy.yaml"), REPO_LAYER);
const home = mkdtempSync(join(tmpdir(), "verdict-bench-home-"));
const env = { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_STATE_HOME: join(home, ".state") };
/** A repository with no policy of its own: with `env`, a run has no layer at all (the default's hot path). */
const plain = mkdtempSync(join(tmpdir(), "verdict-bench-plain-"));
mkdirSync(join(plain, ".git"));
/** A home whose user policy holds 50 rules, each with examples: what loading (and proving) a layer costs. */
const userHome = mkdtempSync(join(tmpdir(), "verdict-bench-user-"));
mkdirSync(join(userHome, ".config", "verdict"), { recursive: true });
writeFileSync(join(userHome, ".config", "verdict", "policy.yaml"), userLayer(50));
const userEnv = { PATH: env.PATH, HOME: userHome, XDG_CONFIG_HOME: join(userHome, ".config"), XDG_STATE_HOME: join(userHome, ".state") };

function userLayer(count: number): string {
  const lines = ["rules:"];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  - id: team-tool-${i}`,
      `    match: { program: team-tool-${i}, subcommand: [deploy, "release *"], args_any: ['/^--env=prod/', '*-force'] }`,
      "    act: remote",
      "    undo: 2",
      "    decision: ask",
      `    reason: Team tool ${i} changes a shared environment.`,
      "    examples:",
      `      match: ["team-tool-${i} deploy --env=prod", "sudo team-tool-${i} release now --now-force"]`,
      `      not_match: ["team-tool-${i} status", "team-tool-${i} deploy --env=dev"]`,
    );
  }
  return `${lines.join("\n")}\n`;
}
const noop = buildNoop();

/** What Claude Code sends before running `git status` (shape as in tests/hosts/samples/claude-pretooluse.json). */
const payload = JSON.stringify({
  session_id: "330baa91-d01e-4bf6-8b68-efd504af763f",
  transcript_path: join(home, ".claude", "projects", "bench", "330baa91-d01e-4bf6-8b68-efd504af763f.jsonl"),
  cwd: repo,
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "git status", description: "Show working tree status" },
  tool_use_id: "toolu_bench_1",
});

function casesFor(path: string, label: string): Case[] {
  return [
    { name: `${label} --version`, argv: [path, "--version"], env },
    { name: `${label} policy show (default + repo layer)`, argv: [path, "policy", "show"], cwd: repo, env },
    { name: `${label} check --rules-only -- git status`, argv: [path, "check", "--rules-only", "--", "git", "status"], cwd: repo, env },
    { name: `${label} hook claude (PreToolUse, git status)`, argv: [path, "hook", "claude"], cwd: repo, env, stdin: payload },
    {
      name: `${label} hook claude, no layer (default only)`,
      argv: [path, "hook", "claude"],
      cwd: plain,
      env,
      stdin: payload.replace(JSON.stringify(repo), JSON.stringify(plain)),
    },
    {
      name: `${label} hook claude, user layer of 50 rules`,
      argv: [path, "hook", "claude"],
      cwd: plain,
      env: userEnv,
      stdin: payload.replace(JSON.stringify(repo), JSON.stringify(plain)),
    },
  ];
}

const baseline = "noop (compiled Bun, prints a line)";
const timings = timeAll(
  [
    { name: baseline, argv: [noop], env },
    ...casesFor(binary, "verdict"),
    ...others.flatMap((path, index) => casesFor(path, `other${others.length > 1 ? index + 1 : ""} (${path.split("/").pop()})`)),
  ],
  runs,
);
console.log(`Start-up, ${runs} runs each, interleaved (${new Date().toISOString()}, bun ${Bun.version}):\n`);
console.log(table(timings, baseline));
