/**
 * The hook's whole round trip on the rule path, against an empty compiled Bun program and the peers.
 *
 *   bun build.ts && bun bench/hook/run.ts [--runs 40] [--warmup 5] [--stdin socket|file] [--dir DIR] [--codex PATH] [--safety-net PATH] [--baseline PATH]
 *
 * Cases, each a whole process, interleaved (a round of every case, `runs` rounds after `warmup`), so load
 * on the machine falls on all of them alike; min, median and p90 in ms, and the ratios to the print-a-line
 * program's median and to `codex execpolicy check`'s, from the same run:
 *   - a compiled Bun program that prints a line (built with verdict's flags);
 *   - `verdict --version`;
 *   - `verdict hook claude` on a Claude Code PreToolUse payload for `git status`, in a git repository:
 *     with no policy layer; with a 50-rule user layer (the layer cache warm); with a trusted repository
 *     layer (warm); and on the model path answered from a warm model-answer cache (`rm -rf build/cache`,
 *     which no rule decides outright, through a Jev endpoint on loopback that the timed runs never reach);
 *   - peers when installed: Codex's `codex execpolicy check` (native) on the same command with two
 *     prefix rules (found in the e2e host cache, tests/e2e/lib/install.ts, or --codex), and
 *     cc-safety-net's `hook --claude-code` on the same payload (--safety-net, or on PATH).
 * Then, for one run of each hook case: peak memory (max RSS), whether the layer cache was used, and the
 * file-system calls it made beyond the print-a-line program's (strace -f, when installed).
 *
 * Scratch files go under --dir (default: a new folder in /var/tmp, else the system temp folder). Where
 * mattered while Bun looked for `.env` files at start: it read every entry of every folder above the
 * working directory (getdents64 on /, /tmp, ...), so a /tmp of thousands of entries added milliseconds
 * to every case. verdict and the print-a-line program are now built without that (npm/start-flags.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { jevReply, startFake } from "../../tests/model/fakes.ts";
import { REPO_LAYER } from "../support/layers.ts";
import { buildNoop } from "../support/timing.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "verdict");
if (!existsSync(binary)) throw new Error("build dist/verdict first: bun build.ts");
const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const runs = Number(option("--runs") ?? 40);
const warmup = Number(option("--warmup") ?? 5);
const base = option("--dir") ?? (existsSync("/var/tmp") ? "/var/tmp" : tmpdir());
// Short names: a resident judge's socket path must fit in about 100 bytes (src/resident/address.ts).
const scratch = mkdtempSync(join(base, "vbh-"));

// --- the places and the environments -----------------------------------------------------------------
const home = (name: string) => {
  const dir = join(scratch, `h-${name}`);
  mkdirSync(join(dir, ".config", "verdict"), { recursive: true });
  return dir;
};
const envOf = (dir: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, ".config"),
  XDG_STATE_HOME: join(dir, ".local", "state"),
  XDG_CACHE_HOME: join(dir, ".cache"),
  VERDICT_MODE: "rules",
  ...extra,
});
const repo = (name: string) => {
  const dir = join(scratch, `repo-${name}`);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
};

/** A user layer of 50 rules, of the kinds people write: their own tools, deploys, house rules. */
function fiftyRules(): string {
  const lines = ["rules:"];
  for (let i = 0; i < 50; i++) {
    const kind = i % 5;
    lines.push(`  - id: house-rule-${i}`);
    if (kind === 0)
      lines.push(
        `    match: { program: tool${i}, subcommand: deploy, args_any: ['*prod*'] }`,
        "    act: remote",
        "    undo: 3",
        "    decision: deny",
      );
    else if (kind === 1)
      lines.push(`    match: { program: [tool${i}, tool${i}-cli], subcommand: [status, list, show] }`, "    act: read", "    undo: 0");
    else if (kind === 2) lines.push(`    match: { program: make, subcommand: target${i} }`, "    act: build", "    undo: 0");
    else if (kind === 3)
      lines.push(`    match: { program: kubectl, subcommand: apply, args_any: ['*ns${i}*'] }`, "    act: remote", "    undo: 2");
    else lines.push(`    match: { program: 'script${i}*', flags_any: [--force] }`, "    act: delete", "    undo: 2");
    lines.push(`    reason: House rule ${i}.`);
  }
  return `${lines.join("\n")}\n`;
}

const payload = (cwd: string, command: string) =>
  JSON.stringify({
    session_id: "330baa91-d01e-4bf6-8b68-efd504af763f",
    transcript_path: join(cwd, ".claude-transcript.jsonl"),
    cwd,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command, description: "bench" },
    tool_use_id: "toolu_bench_1",
  });

type Case = { name: string; argv: string[]; cwd: string; env: Record<string, string>; stdin?: string; hook?: boolean; resident?: boolean };

const plainHome = home("plain");
const plainRepo = repo("plain");
const userHome = home("user");
writeFileSync(join(userHome, ".config", "verdict", "policy.yaml"), fiftyRules());
const trustHome = home("trust");
const trustRepo = repo("trusted");
mkdirSync(join(trustRepo, ".verdict"));
writeFileSync(join(trustRepo, ".verdict", "policy.yaml"), REPO_LAYER);
const trusted = Bun.spawnSync([binary, "policy", "trust", join(trustRepo, ".verdict", "policy.yaml")], {
  cwd: trustRepo,
  env: envOf(trustHome),
  stderr: "pipe",
});
if (trusted.exitCode !== 0) throw new Error(`cannot trust the bench's repository layer: ${trusted.stderr.toString()}`);

const jev = startFake(jevReply({ act: "delete", undo: 3, load: 0 }));
const modelHome = home("model");
const modelEnv = envOf(modelHome, { VERDICT_MODE: "", TYPESAFE_API_KEY: "apikey_bench0000000000", TYPESAFE_BASE_URL: `${jev.url}/v1` });

const noop = buildNoop();
const gitStatus = (cwd: string) => payload(cwd, "git status");
const cases: Case[] = [
  { name: "print a line (compiled Bun)", argv: [noop], cwd: plainRepo, env: envOf(plainHome) },
  { name: "verdict --version", argv: [binary, "--version"], cwd: plainRepo, env: envOf(plainHome) },
  {
    name: "hook claude, no layers",
    argv: [binary, "hook", "claude"],
    cwd: plainRepo,
    env: envOf(plainHome),
    stdin: gitStatus(plainRepo),
    hook: true,
  },
  {
    name: "hook claude, 50-rule user layer (cached)",
    argv: [binary, "hook", "claude"],
    cwd: plainRepo,
    env: envOf(userHome),
    stdin: gitStatus(plainRepo),
    hook: true,
  },
  {
    name: "hook claude, trusted repo layer (cached)",
    argv: [binary, "hook", "claude"],
    cwd: trustRepo,
    env: envOf(trustHome),
    stdin: gitStatus(trustRepo),
    hook: true,
  },
  {
    name: "hook claude, model answer cached",
    argv: [binary, "hook", "claude"],
    cwd: plainRepo,
    env: modelEnv,
    stdin: payload(plainRepo, "rm -rf build/cache"),
    hook: true,
  },
];
// Each hook case twice: answered by a resident judge (the default: the judge a hook starts for the hooks
// after it, src/cli/resident.ts), and in the hook's own process (VERDICT_RESIDENT=off, as every hook was
// before the resident judge, and as a hook is when no judge runs yet or the work is not bounded).
for (const item of cases.filter((c) => c.hook)) {
  const own = { ...item, name: `${item.name}, own process`, env: { ...item.env, VERDICT_RESIDENT: "off" } };
  item.name = `${item.name}, resident judge`;
  item.resident = true;
  cases.splice(cases.indexOf(item) + 1, 0, own);
}
// Another build of verdict (--baseline PATH, e.g. main's), timed in the same rounds: before and after a change.
const baseline = option("--baseline");
if (baseline) {
  cases.push(
    {
      name: "baseline: hook claude, no layers",
      argv: [resolve(baseline), "hook", "claude"],
      cwd: plainRepo,
      env: envOf(plainHome, { VERDICT_RESIDENT: "off" }),
      stdin: gitStatus(plainRepo),
      hook: true,
    },
    {
      name: "baseline: hook claude, 50-rule user layer (cached)",
      argv: [resolve(baseline), "hook", "claude"],
      cwd: plainRepo,
      env: envOf(userHome, { VERDICT_RESIDENT: "off" }),
      stdin: gitStatus(plainRepo),
      hook: true,
    },
  );
}

// --- peers --------------------------------------------------------------------------------------------
function findCodex(): string | undefined {
  const given = option("--codex");
  if (given) return given;
  const cache = process.env.VERDICT_E2E_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? "", ".cache"), "verdict-e2e");
  if (!existsSync(cache)) return undefined;
  for (const entry of readdirSync(cache)
    .filter((name) => name.startsWith("@openai_codex@"))
    .sort()
    .reverse()) {
    const vendor = join(cache, entry, "node_modules", "@openai");
    for (const pkg of existsSync(vendor) ? readdirSync(vendor).filter((name) => name.startsWith("codex-")) : []) {
      const triples = join(vendor, pkg, "vendor");
      for (const triple of existsSync(triples) ? readdirSync(triples) : []) {
        const exe = join(triples, triple, "bin", "codex");
        if (existsSync(exe)) return exe;
      }
    }
  }
  return undefined;
}
const codex = findCodex();
const codexName = "codex execpolicy check (native)";
if (codex) {
  const rules = join(scratch, "codex.rules");
  writeFileSync(
    rules,
    'prefix_rule(pattern=["git", "status"], decision="allow")\nprefix_rule(pattern=["rm", "-rf"], decision="forbidden")\n',
  );
  const codexHome = home("codex");
  mkdirSync(join(codexHome, ".codex"), { recursive: true });
  cases.push({
    name: codexName,
    argv: [codex, "execpolicy", "check", "--rules", rules, "git", "status"],
    cwd: plainRepo,
    env: envOf(codexHome, { CODEX_HOME: join(codexHome, ".codex") }),
  });
}
const safetyNet = option("--safety-net") ?? Bun.which("cc-safety-net") ?? undefined;
if (safetyNet)
  cases.push({
    name: "cc-safety-net hook --claude-code (Node)",
    argv: [safetyNet, "hook", "--claude-code"],
    cwd: plainRepo,
    env: envOf(plainHome),
    stdin: gitStatus(plainRepo),
  });

// --- warm the caches: the layer cache by one run each, the model's answer through the fake ----------
for (const item of cases.filter((c) => c.hook)) {
  const child = Bun.spawn(item.argv, { cwd: item.cwd, env: item.env, stdin: new Blob([item.stdin ?? ""]), stdout: "pipe", stderr: "pipe" });
  const out = await new Response(child.stdout).text();
  await child.exited;
  if (!out.includes("permissionDecision") && !out.trim().startsWith("{")) throw new Error(`${item.name} gave no decision: ${out}`);
}
// The resident judges: a hook starts one for the hooks after it (the second hook like it, not the first).
const judgeStatus = (item: Case) => Bun.spawnSync([binary, "resident"], { cwd: item.cwd, env: item.env, stdout: "pipe" }).stdout.toString();
for (const item of cases.filter((c) => c.resident)) {
  for (let i = 0; i < 2; i++)
    Bun.spawnSync(item.argv, { cwd: item.cwd, env: item.env, stdin: Buffer.from(item.stdin ?? ""), stdout: "ignore", stderr: "ignore" });
  for (let i = 0; i < 200 && !judgeStatus(item).includes("(this environment's)"); i++) await Bun.sleep(10);
  if (!judgeStatus(item).includes("(this environment's)")) throw new Error(`${item.name}: no resident judge started`);
}
jev.stop();

// --- timing -------------------------------------------------------------------------------------------
// The payload reaches the hook as the host gives it (--stdin): `socket` (the default) as Claude Code and
// Gemini CLI give it, through Node's child_process (Bun.spawn's "pipe" is a socket too), written and
// closed at once; `file` as Bun.spawnSync gives a buffer, a memory file, which verdict reads the way it
// reads a pipe (Codex's hooks get a pipe): without Bun's stream (src/hosts/stdin.ts).
const stdinKind = option("--stdin") ?? "socket";
if (stdinKind !== "socket" && stdinKind !== "file") throw new Error("--stdin is socket or file");
async function once(item: Case): Promise<{ ms: number; rss: number }> {
  const started = performance.now();
  if (stdinKind === "file" || item.stdin === undefined) {
    const result = Bun.spawnSync(item.argv, {
      cwd: item.cwd,
      env: item.env,
      stdin: item.stdin === undefined ? "ignore" : Buffer.from(item.stdin),
      stdout: "ignore",
      stderr: "ignore",
    });
    const ms = performance.now() - started;
    if (result.exitCode !== 0) throw new Error(`${item.name} exited with ${result.exitCode}`);
    return { ms, rss: result.resourceUsage?.maxRSS ?? 0 };
  }
  const child = Bun.spawn(item.argv, { cwd: item.cwd, env: item.env, stdin: "pipe", stdout: "ignore", stderr: "ignore" });
  child.stdin.write(item.stdin);
  await child.stdin.end();
  const code = await child.exited;
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${item.name} exited with ${code}`);
  return { ms, rss: child.resourceUsage()?.maxRSS ?? 0 };
}
const samples = cases.map(() => [] as number[]);
const rss = cases.map(() => 0);
for (let round = 0; round < warmup; round++) for (const item of cases) await once(item);
for (let round = 0; round < runs; round++) {
  for (const [index, item] of cases.entries()) {
    const { ms, rss: peak } = await once(item);
    samples[index]!.push(ms);
    rss[index] = Math.max(rss[index]!, peak);
  }
}
const stats = samples.map((values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { min: sorted[0]!, median: at(0.5), p90: at(0.9) };
});
const floor = stats[0]!.median;
const peerAt = cases.findIndex((item) => item.name === codexName);
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(
  `Hook round trip, ${runs} interleaved runs after ${warmup} warm-up runs, stdin a ${stdinKind} (${new Date().toISOString()}, bun ${Bun.version}, load average ${load}), ms:\n`,
);
console.log(`| case | min | median | p90 | median / print a line |${peerAt >= 0 ? " median / codex |" : ""} peak RSS MB |`);
console.log(`|---|---:|---:|---:|---:|${peerAt >= 0 ? "---:|" : ""}---:|`);
cases.forEach((item, index) => {
  const s = stats[index]!;
  const peer = peerAt >= 0 ? ` ${(s.median / stats[peerAt]!.median).toFixed(2)} |` : "";
  console.log(
    `| ${item.name} | ${s.min.toFixed(1)} | ${s.median.toFixed(1)} | ${s.p90.toFixed(1)} | ${(s.median / floor).toFixed(2)} |${peer} ${(rss[index]! / 1024 / 1024).toFixed(0)} |`,
  );
});

// --- what one hook run does on disk -------------------------------------------------------------------
const FS_CALLS = [
  "openat",
  "open",
  "stat",
  "lstat",
  "newfstatat",
  "statx",
  "access",
  "faccessat",
  "faccessat2",
  "readlink",
  "getdents64",
  "mkdir",
  "unlink",
  "rename",
];
function fsCalls(item: Case): Map<string, number> | undefined {
  const out = join(scratch, "strace.txt");
  const traced = Bun.spawnSync(["strace", "-f", "-qq", "-o", out, "-e", `trace=${FS_CALLS.join(",")}`, ...item.argv], {
    cwd: item.cwd,
    env: item.env,
    stdin: item.stdin === undefined ? "ignore" : Buffer.from(item.stdin),
    stdout: "ignore",
    stderr: "ignore",
  });
  if (traced.exitCode !== 0 || !existsSync(out)) return undefined;
  const counts = new Map<string, number>();
  for (const line of readFileSync(out, "utf8").split("\n")) {
    const name = /^\d+\s+(\w+)\(/.exec(line)?.[1];
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}
const hasStrace = Bun.which("strace") !== null;
const floorCalls = hasStrace ? fsCalls(cases[0]!) : undefined;
console.log(
  `\nOne run of each hook case: file-system calls beyond the print-a-line program's${hasStrace ? "" : " (strace not installed: not counted)"} (a resident judge's are its own, not counted here), and the layer cache's state after it.\n`,
);
console.log("| case | stat-like calls | opens | other | layer cache entries |");
console.log("|---|---:|---:|---:|---:|");
for (const item of cases.filter((c) => c.hook)) {
  const counts = hasStrace ? fsCalls(item) : undefined;
  const beyond = (names: string[]) =>
    counts && floorCalls ? names.reduce((sum, name) => sum + (counts.get(name) ?? 0) - (floorCalls.get(name) ?? 0), 0) : NaN;
  const statLike = beyond(["stat", "lstat", "newfstatat", "statx", "access", "faccessat", "faccessat2"]);
  const opens = beyond(["openat", "open"]);
  const other = beyond(["readlink", "getdents64", "mkdir", "unlink", "rename"]);
  const cacheDir = join(item.env.XDG_CACHE_HOME!, "verdict", "policy");
  const entries = existsSync(cacheDir) ? readdirSync(cacheDir).filter((name) => name.endsWith(".json")).length : 0;
  console.log(
    `| ${item.name} | ${Number.isNaN(statLike) ? "-" : statLike} | ${Number.isNaN(opens) ? "-" : opens} | ${Number.isNaN(other) ? "-" : other} | ${entries} |`,
  );
}
// What the judges answered (each timed run of a resident case should be one) and their peak memory: a
// judge is a process that stays, so its memory counts beside the hook's.
console.log("");
for (const item of cases.filter((c) => c.resident)) {
  const line = judgeStatus(item)
    .split("\n")
    .find((l) => l.includes("(this environment's)"));
  const pid = /pid (\d+)/.exec(line ?? "")?.[1];
  const hwm = pid ? /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] : undefined;
  console.log(
    `${item.name}: ${/(\d+) answered, (\d+) handed back/.exec(line ?? "")?.[0] ?? "no judge"}, judge's peak RSS ${hwm ? (Number(hwm) / 1024).toFixed(0) : "?"} MB`,
  );
  Bun.spawnSync([binary, "resident", "stop"], { cwd: item.cwd, env: item.env, stdout: "ignore" });
}

console.log(`\nScratch folder: ${scratch}`);
