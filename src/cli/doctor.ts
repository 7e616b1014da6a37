/**
 * verdict doctor: for every host it finds, whether verdict's hook is registered and points at this binary,
 * whether a real payload for `rm -rf ~` round-trips to a blocking decision through the installed command,
 * and the host's own trust step; then whether the policy loads, which answerer is active and whether it
 * answers in time. Prints what to fix; exits 1 when something needs fixing.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { listCodexHooks } from "../hosts/codex-trust.ts";
import { DEFAULT_HOSTS } from "../hosts/hook.ts";
import { EFFECT_WORDS, roundTrip } from "../hosts/roundtrip.ts";
import { commandBinary, ownEvents, parseSettings, staleMatchers, registeredCommands, selfCommand, settingsPath, type Scope } from "../hosts/settings.ts";
import { HOST_NAMES, HOST_TITLES, type HostName } from "../hosts/types.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { durationMs } from "../core/units.ts";
import { usageError } from "./common.ts";

const HELP = `Usage: verdict doctor [--json]

Checks every host it finds (Claude Code, Codex CLI, Gemini CLI, Cursor): the hook is registered and
points at this binary, a real "rm -rf ~" payload round-trips to a blocking decision, the host's trust
step is done; and that the policy loads and its answerer answers in time.`;

type Check = { ok: boolean; what: string; fix?: string };
type HostReport = { host: HostName; found: string[]; checks: Check[] };

const HOST_BINARIES: Record<HostName, string[]> = { claude: ["claude"], codex: ["codex"], gemini: ["gemini"], cursor: ["cursor", "cursor-agent"] };
const HOST_DIRS: Record<HostName, (home: string) => string> = {
  claude: (home) => join(home, ".claude"),
  codex: (home) => process.env.CODEX_HOME || join(home, ".codex"),
  gemini: (home) => join(home, ".gemini"),
  cursor: (home) => join(home, ".cursor"),
};

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return parseSettings(readFileSync(file, "utf8"), file);
  } catch {
    return undefined;
  }
}

function executable(path: string | undefined): boolean {
  if (!path) return false;
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function checkHost(host: HostName, cwd: string, hosts: HostsSettings): Promise<HostReport | undefined> {
  const home = process.env.HOME || homedir();
  const found: string[] = [];
  const bin = HOST_BINARIES[host].map((name) => Bun.which(name)).find(Boolean) ?? undefined;
  if (bin) found.push(`${HOST_BINARIES[host][0]} at ${bin}`);
  if (existsSync(HOST_DIRS[host](home))) found.push(HOST_DIRS[host](home));
  const checks: Check[] = [];
  const registered: Array<{ scope: Scope; file: string; event: string; command: string }> = [];
  for (const scope of ["user", "project"] as Scope[]) {
    const file = settingsPath(host, scope, cwd);
    if (!existsSync(file)) continue;
    const settings = readJson(file);
    if (!settings) {
      checks.push({ ok: false, what: `${file} cannot be read as JSON`, fix: "fix the file; the host may be ignoring it" });
      continue;
    }
    for (const entry of registeredCommands(settings)) registered.push({ scope, file, event: entry.event, command: entry.command });
    const stale = staleMatchers(host, settings);
    if (stale.length > 0) checks.push({ ok: false, what: `${file} registers verdict for too few tools: ${stale.join("; ")}`, fix: `verdict install ${host}${scope === "project" ? " --project" : ""}` });
  }
  if (found.length === 0 && registered.length === 0) return undefined;
  if (registered.length === 0) {
    checks.push({ ok: false, what: "verdict's hook is not registered", fix: `verdict install ${host} (or --project for this project)` });
    return { host, found, checks };
  }
  for (const scope of new Set(registered.map((r) => r.scope))) {
    const here = registered.filter((r) => r.scope === scope);
    const file = here[0]!.file;
    const missing = ownEvents(host).filter((event) => !here.some((r) => r.event === event));
    checks.push(
      missing.length === 0
        ? { ok: true, what: `registered in ${file} for ${ownEvents(host).join(" and ")}` }
        : { ok: false, what: `registered in ${file} but not for ${missing.join(", ")}`, fix: `verdict install ${host}${scope === "project" ? " --project" : ""}` },
    );
    const self = selfCommand()[0];
    for (const command of new Set(here.map((r) => r.command))) {
      const binary = commandBinary(command);
      if (!executable(binary)) {
        checks.push({ ok: false, what: `the hook runs ${binary}, which is not an executable file`, fix: `verdict install ${host}${scope === "project" ? " --project" : ""} (from the verdict you mean to use)` });
        continue;
      }
      checks.push(binary === self ? { ok: true, what: `the hook runs this binary (${binary})` } : { ok: true, what: `the hook runs ${binary}, not this binary (${self}); reinstall from this one if that is not meant` });
      const trip = await roundTrip(host, command, cwd, durationMs(hosts.hook_timeout));
      checks.push(
        trip.ok
          ? { ok: true, what: `"rm -rf ~" round-trips to a blocking decision (${EFFECT_WORDS[trip.effect] ?? trip.effect}, ${trip.ms} ms)` }
          : { ok: false, what: `"rm -rf ~" did not round-trip to a blocking decision: it would be ${EFFECT_WORDS[trip.effect] ?? trip.effect} (exit ${trip.exitCode}, ${trip.ms} ms)${trip.stderr.trim() ? `: ${trip.stderr.trim().slice(0, 200)}` : ""}`, fix: "check the policy (verdict policy check) and the hook command" },
      );
    }
  }
  if (host === "codex") checks.push(...(await codexTrust(bin, cwd, registered.map((r) => r.file))));
  if (host === "gemini" && registered.some((r) => r.scope === "project")) checks.push(geminiTrust(home, cwd));
  return { host, found, checks };
}

async function codexTrust(bin: string | undefined, cwd: string, files: string[]): Promise<Check[]> {
  if (!bin) return [{ ok: true, what: "codex is not on PATH, so hook trust was not checked; trust verdict's hooks with /hooks in codex" }];
  try {
    const hooks = await listCodexHooks(bin, cwd, process.env);
    const ours = hooks.filter((hook) => files.some((file) => hook.key?.startsWith(`${file}:`)));
    if (ours.length === 0) return [{ ok: false, what: "codex does not list verdict's hooks", fix: "check that the hooks feature is on ([features] hooks) and the file is where codex reads it" }];
    const untrusted = ours.filter((hook) => hook.trustStatus !== "trusted");
    return untrusted.length === 0
      ? [{ ok: true, what: `codex trusts verdict's ${ours.length} hooks` }]
      : [{ ok: false, what: `codex has not trusted ${untrusted.map((h) => h.key).join(", ")} (${untrusted[0]!.trustStatus}); untrusted hooks are skipped silently`, fix: "start codex, type /hooks, and trust verdict's hooks" }];
  } catch (error) {
    return [{ ok: false, what: `codex hook trust could not be checked: ${(error as Error).message}`, fix: "start codex and check /hooks" }];
  }
}

function geminiTrust(home: string, cwd: string): Check {
  if (process.env.GEMINI_CLI_TRUST_WORKSPACE === "true") return { ok: true, what: "GEMINI_CLI_TRUST_WORKSPACE=true trusts this folder" };
  const trusted = readJson(join(home, ".gemini", "trustedFolders.json")) ?? {};
  for (let dir = cwd; ; dir = dirname(dir)) {
    const value = trusted[dir];
    if (value === "TRUST_FOLDER" || (value === "TRUST_PARENT" && dir !== cwd)) return { ok: true, what: `Gemini CLI trusts ${dir}, so project hooks load` };
    if (dirname(dir) === dir) break;
  }
  return { ok: false, what: `${cwd} is not a trusted folder, so Gemini CLI ignores its project hooks`, fix: `trust the folder when Gemini asks, or add "${cwd}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json` };
}

async function policyChecks(cwd: string): Promise<{ checks: Check[]; hosts: HostsSettings }> {
  const checks: Check[] = [];
  const { loadPolicy } = await import("../policy/index.ts");
  const result = loadPolicy({ cwd });
  if (!result.ok) {
    checks.push({ ok: false, what: `the policy cannot be used:\n${result.error.message}`, fix: "fix the policy; until then every hook answers with hosts.on_error" });
    return { checks, hosts: DEFAULT_HOSTS };
  }
  const { loaded } = result;
  checks.push({ ok: true, what: `the policy loads (${loaded.layers.filter((l) => !l.ignored).map((l) => l.name).join(" + ")}; digest ${loaded.digest})` });
  const { formatProblem } = await import("../policy/index.ts");
  for (const layer of loaded.ignored) {
    checks.push({
      ok: false,
      what: `the untrusted repository policy ${layer.file} is ignored for its problems:\n${layer.problems.map((problem) => formatProblem(problem).replace(/^/gm, "  ")).join("\n")}`,
      fix: "fix it (verdict policy check), then trust it if you mean it to loosen anything: verdict policy trust",
    });
  }
  const { judgeCommand } = await import("../judge/index.ts");
  const started = performance.now();
  try {
    const judgment = await judgeCommand({ command: "ls -la", cwd, host: "doctor", event: "doctor", startedAt: started }, loaded);
    const ms = Math.round(performance.now() - started);
    const limit = durationMs(loaded.policy.judge.answer_within);
    const why = judgment.modelNotUsed ? `; no model: ${judgment.modelNotUsed}` : "";
    checks.push({ ok: ms <= limit + 500, what: `the ${judgment.answerer} answerer judged "ls -la" in ${ms} ms (answer_within ${loaded.policy.judge.answer_within})${why}` });
  } catch (error) {
    checks.push({ ok: false, what: `judging "ls -la" failed: ${(error as Error).message}` });
  }
  return { checks, hosts: loaded.policy.hosts };
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const json = argv.includes("--json");
  const unknown = argv.filter((arg) => arg !== "--json");
  if (unknown.length) return usageError(`unknown argument ${unknown[0]}`, HELP);
  const cwd = process.cwd();
  const policy = await policyChecks(cwd);
  const reports: HostReport[] = [];
  for (const host of HOST_NAMES) {
    const report = await checkHost(host, cwd, policy.hosts);
    if (report) reports.push(report);
  }
  const problems = policy.checks.filter((c) => !c.ok).length + reports.flatMap((r) => r.checks).filter((c) => !c.ok).length;
  if (json) {
    console.log(JSON.stringify({ ok: problems === 0, policy: policy.checks, hosts: reports }, null, 2));
    return problems === 0 ? 0 : 1;
  }
  const mark = (c: Check) => `${c.ok ? "ok  " : "FIX "} ${c.what}${c.fix ? `\n       fix: ${c.fix}` : ""}`;
  console.log("policy");
  for (const c of policy.checks) console.log(`  ${mark(c)}`);
  if (reports.length === 0) console.log("\nno host found (Claude Code, Codex CLI, Gemini CLI, Cursor); install one, then verdict install <host>");
  for (const report of reports) {
    console.log(`\n${HOST_TITLES[report.host]}${report.found.length ? ` (${report.found.join("; ")})` : ""}`);
    for (const c of report.checks) console.log(`  ${mark(c)}`);
  }
  console.log(problems === 0 ? "\nall good" : `\n${problems} thing${problems === 1 ? "" : "s"} to fix`);
  return problems === 0 ? 0 : 1;
}
