/**
 * The approvals journal under contention and crashes, through the compiled binary.
 *
 *   npx bun build.ts && npx bun bench/journal/run.ts [--seconds 60] [--writers 20]
 *
 * `writers` loops each run `verdict hook codex` with an ask (a force push), which opens an approval
 * task under the journal's lock; meanwhile a killer sends SIGKILL to a random running writer every
 * few hundred milliseconds (some die holding the lock, some mid-append). Counted: requests that
 * failed although they had time left (a denial that says the journal cannot be used, or no answer),
 * records lost (a surviving writer's task missing from the journal), and whether `approvals verify`
 * still passes. The figures go to docs/security.md.
 */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BINARY = resolve(import.meta.dir, "../../dist/verdict");
const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const SECONDS = flag("--seconds", 60);
const WRITERS = flag("--writers", 20);
const KILL_EVERY_MS = flag("--kill-every", 300);

const home = mkdtempSync(join(tmpdir(), "verdict-journal-bench-"));
const project = join(home, "project");
mkdirSync(join(project, ".git"), { recursive: true });
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  XDG_STATE_HOME: join(home, "state"),
  XDG_CONFIG_HOME: join(home, "config"),
  XDG_CACHE_HOME: join(home, "cache"),
  VERDICT_MODE: "rules",
};
const journal = join(home, "state", "verdict", "approvals.jsonl");

let requests = 0;
let killed = 0;
let failedWithTimeLeft = 0;
const failures: string[] = [];
const survivors: string[] = [];
const running = new Set<ReturnType<typeof Bun.spawn>>();
const end = Date.now() + SECONDS * 1000;
let n = 0;

async function writer(w: number): Promise<void> {
  while (Date.now() < end) {
    const branch = `w${w}-${n++}`;
    const payload = JSON.stringify({
      session_id: `s-${branch}`,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: `git push --force origin ${branch}` },
      cwd: project,
    });
    const started = performance.now();
    const proc = Bun.spawn([BINARY, "hook", "codex"], { cwd: project, env, stdin: Buffer.from(payload), stdout: "pipe", stderr: "pipe" });
    running.add(proc);
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    running.delete(proc);
    const ms = performance.now() - started;
    requests++;
    if (proc.signalCode === "SIGKILL") continue;
    if (out.includes("approval task")) survivors.push(branch);
    else if (ms < 7500) {
      failedWithTimeLeft++;
      failures.push(`${Math.round(ms)} ms: ${(out + err).slice(0, 300)}`);
    }
  }
}

async function killer(): Promise<void> {
  while (Date.now() < end) {
    await Bun.sleep(KILL_EVERY_MS * (0.5 + Math.random()));
    const all = [...running];
    const victim = all[Math.floor(Math.random() * all.length)];
    if (victim && victim.exitCode === null) {
      victim.kill(9);
      killed++;
    }
  }
}

const started = performance.now();
await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), killer()]);
const text = readFileSync(journal, "utf8");
const lost = survivors.filter((branch) => !text.includes(`origin ${branch}"`));
const verify = Bun.spawnSync([BINARY, "approvals", "verify"], { env, cwd: project });
console.log(`journal bench: ${WRITERS} writers for ${SECONDS} s, SIGKILL about every ${KILL_EVERY_MS} ms`);
console.log(`| requests | killed | answered with a task | failed with time left | records lost | verify |`);
console.log(`|---:|---:|---:|---:|---:|---|`);
console.log(
  `| ${requests} | ${killed} | ${survivors.length} | ${failedWithTimeLeft} | ${lost.length} | ${verify.exitCode === 0 ? "ok" : `exit ${verify.exitCode}`} |`,
);
console.log(verify.stdout.toString().trim());
for (const f of failures.slice(0, 10)) console.log(`failed: ${f}`);
for (const l of lost.slice(0, 10)) console.log(`lost: ${l}`);
console.log(`(${Math.round((performance.now() - started) / 1000)} s)`);
