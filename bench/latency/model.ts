/**
 * The model path's cost, against a local fake that answers at once.
 *
 *   bun bench/latency/model.ts [--runs N]
 *
 * 1. Whole processes: `verdict hook claude` with a PreToolUse payload, on the
 *    rule path (VERDICT_MODE=rules), the Jev path (cache off), the Jev path
 *    answered from the cache, and the OpenAI-compatible path (three
 *    concurrent completions, cache off); the binary printing its version is
 *    the floor. Runs are interleaved so a noisy neighbour hits all alike.
 * 2. In process: judgeCommand on the Jev path, split into the model's own
 *    time (the fetch, as the answerer measures it) and the rest (questions,
 *    redaction, cache, verdict math, log).
 *
 * The fake answers in well under a millisecond, so "model path minus rule
 * path" is what verdict itself adds around a model call: HTTP on loopback,
 * JSON both ways, the cache write and the log line.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { judgeCommand } from "../../src/judge/judge.ts";
import { loadPolicy } from "../../src/policy/load.ts";
import { jevReply, openaiReply, startFake } from "../../tests/model/fakes.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "verdict");
const at = process.argv.indexOf("--runs");
const runs = at >= 0 ? Number(process.argv[at + 1]) : 40;

const jev = startFake(jevReply({ act: "delete", undo: 3, load: 0 }));
const policy = loadPolicy({ cwd: tmpdir(), env: {}, only: ["default"] });
if (!policy.ok) throw policy.error;
const order = { act: Object.keys(policy.loaded.policy.acts), ending: Object.keys(policy.loaded.policy.endings) };
const openai = startFake(openaiReply({ act: "delete", undo: 3, load: 0 }, order));

function home(name: string, policyYaml?: string, extra: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), `verdict-bench-model-${name}-`));
  mkdirSync(join(dir, "work"), { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_STATE_HOME: join(dir, ".local/state"),
    XDG_CACHE_HOME: join(dir, ".cache"),
    ...extra,
  };
  if (policyYaml) {
    const file = join(dir, "policy.yaml");
    writeFileSync(file, policyYaml);
    env.VERDICT_POLICY = file;
  }
  return env;
}

const KEY = { TYPESAFE_API_KEY: "apikey_bench0000000000", TYPESAFE_BASE_URL: `${jev.url}/v1` };
const NO_CACHE = "model:\n  cache:\n    max_entries: 0\n";
type Case = { name: string; argv: string[]; env: Record<string, string>; stdin?: string };
const payload = (env: Record<string, string>) =>
  JSON.stringify({
    session_id: "b",
    transcript_path: "",
    cwd: join(env.HOME!, "work"),
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "rm -rf build/cache" },
    tool_use_id: "t",
  });
const hookCase = (name: string, env: Record<string, string>): Case => ({
  name,
  argv: [binary, "hook", "claude"],
  env,
  stdin: payload(env),
});

const cases: Case[] = [
  { name: "verdict --version (floor)", argv: [binary, "--version"], env: home("floor") },
  hookCase("hook, rule path", home("rules", undefined, { ...KEY, VERDICT_MODE: "rules" })),
  hookCase("hook, Jev path (cache off)", home("jev", NO_CACHE, KEY)),
  hookCase("hook, Jev path (cached)", home("cached", undefined, KEY)),
  hookCase(
    "hook, OpenAI-compatible path (cache off)",
    home(
      "openai",
      `${NO_CACHE}    max_age: 7d\n  provider: openai\n  openai:\n    base_url: ${openai.url}/v1\n    key_env: ''\njudge:\n  answerer: model\n`,
    ),
  ),
];

async function once(item: Case): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn(item.argv, {
    env: item.env,
    cwd: item.env.HOME,
    stdin: item.stdin ? new Blob([item.stdin]) : "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  await child.exited;
  return performance.now() - started;
}

const samples = cases.map(() => [] as number[]);
for (let round = 0; round < 5; round += 1) for (const item of cases) await once(item);
// The warm-up hooks started a resident judge for each case (docs/resident.md); let each warm its engine.
await Bun.sleep(1000);
for (let round = 0; round < runs; round += 1) {
  for (const [index, item] of cases.entries()) samples[index]!.push(await once(item));
}
const stat = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    min: sorted[0]!,
    median: sorted[Math.floor(sorted.length / 2)]!,
    p90: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)]!,
  };
};
const rulesMedian = stat(samples[1]!).median;
console.log(`Whole process, ${runs} interleaved runs each (ms):\n`);
console.log("| case | min | median | p90 | median minus rule path |");
console.log("|---|---|---|---|---|");
cases.forEach((item, index) => {
  const s = stat(samples[index]!);
  const extra = index >= 2 ? `${(s.median - rulesMedian).toFixed(1)}` : "";
  console.log(`| ${item.name} | ${s.min.toFixed(1)} | ${s.median.toFixed(1)} | ${s.p90.toFixed(1)} | ${extra} |`);
});

// In process: the model's own time against the rest of the judgment.
const inProcess = home("inproc", NO_CACHE, KEY);
const noCache = loadPolicy({ cwd: tmpdir(), env: inProcess, file: inProcess.VERDICT_POLICY, only: ["default", "command-line"] });
if (!noCache.ok) throw noCache.error;
const totals: number[] = [];
const models: number[] = [];
for (let index = 0; index < runs * 5; index += 1) {
  const started = performance.now();
  const judged = await judgeCommand({ command: "rm -rf build/cache", cwd: join(inProcess.HOME!, "work"), env: inProcess }, noCache.loaded);
  totals.push(performance.now() - started);
  models.push(judged.model?.latencyMs ?? NaN);
}
const cached = loadPolicy({ cwd: tmpdir(), env: inProcess, only: ["default"] });
if (!cached.ok) throw cached.error;
const hits: number[] = [];
await judgeCommand({ command: "rm -rf build/cache", cwd: join(inProcess.HOME!, "work"), env: inProcess }, cached.loaded);
for (let index = 0; index < runs * 5; index += 1) {
  const started = performance.now();
  await judgeCommand({ command: "rm -rf build/cache", cwd: join(inProcess.HOME!, "work"), env: inProcess }, cached.loaded);
  hits.push(performance.now() - started);
}
const total = stat(totals);
const model = stat(models);
console.log(`\nIn process, judgeCommand on the Jev path, ${runs * 5} judgments (ms):\n`);
console.log("| measure | min | median | p90 |");
console.log("|---|---|---|---|");
console.log(`| whole judgment (cache off) | ${total.min.toFixed(2)} | ${total.median.toFixed(2)} | ${total.p90.toFixed(2)} |`);
console.log(
  `| of which the model call (loopback fetch) | ${model.min.toFixed(1)} | ${model.median.toFixed(1)} | ${model.p90.toFixed(1)} |`,
);
const hit = stat(hits);
console.log(`| whole judgment answered from the cache | ${hit.min.toFixed(2)} | ${hit.median.toFixed(2)} | ${hit.p90.toFixed(2)} |`);

await jev.stop();
await openai.stop();
