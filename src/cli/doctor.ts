/**
 * verdict doctor: for every host it finds, whether verdict's hook is registered where a session started
 * here loads it, whether the command it runs exists on this machine, whether a real payload for `rm -rf ~`
 * round-trips to a blocking decision, and the host's own trust step; then whether the policy loads and
 * whether the model it configures answers in time. Prints what to fix; exits 1 when something needs fixing.
 *
 * It changes nothing: host settings are read, not written; Codex's hook trust is read with `codex
 * app-server` in a throwaway home (src/hosts/codex-trust.ts), never the person's CODEX_HOME; its own
 * judgments are logged as self-tests.
 */
import { cacheDir, configDir, homeDir, stateDir } from "../files/dirs.ts";
import { jsonDocument } from "./json.ts";
import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { codexTrust } from "../hosts/codex-trust.ts";
import { DEFAULT_HOSTS } from "../hosts/hook.ts";
import { EFFECT_WORDS, roundTrip, SELF_TEST_ENV } from "../hosts/roundtrip.ts";
import {
  commandBinary,
  isPortableCommand,
  ownEvents,
  parseSettings,
  projectCoverage,
  staleMatchers,
  registeredCommands,
  selfCommand,
  settingsPath,
  type Scope,
} from "../hosts/settings.ts";
import { HOST_NAMES, HOST_TITLES, type HostName } from "../hosts/types.ts";
import { repositoryRoot } from "../policy/layers.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { durationMs } from "../core/units.ts";
import { parseOptions } from "./args.ts";
import { usageError } from "./common.ts";

const HELP = `Usage: verdict doctor [--json] [--policy FILE]

Checks every host it finds (Claude Code, Codex CLI, Gemini CLI, Cursor): the hook is registered where a
session started in this folder loads it, the command it runs is on this machine, a real "rm -rf ~" payload
round-trips to a blocking decision, the host's trust step is done; that the policy loads, and that the
model it configures answers within judge.answer_within. It changes nothing.

  --json         the report as JSON (schema_version 1)
  --policy FILE  a policy layer on top of the others (also VERDICT_POLICY), as verdict check takes it

Exit status: 0 nothing to fix; 1 something to fix (each FIX line says what); 2 usage error.`;

type Check = { ok: boolean; what: string; fix?: string };
type HostReport = { host: HostName; found: string[]; checks: Check[] };

const HOST_BINARIES: Record<HostName, string[]> = {
  claude: ["claude"],
  codex: ["codex"],
  gemini: ["gemini"],
  cursor: ["cursor", "cursor-agent"],
};
const HOST_DIRS: Record<HostName, (home: string) => string> = {
  claude: (home) => process.env.CLAUDE_CONFIG_DIR || join(home, ".claude"),
  codex: (home) => process.env.CODEX_HOME || join(home, ".codex"),
  gemini: (home) => join(home, ".gemini"),
  cursor: (home) => join(home, ".cursor"),
};

function readSettings(file: string): Record<string, unknown> | undefined {
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

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

type Place = { scope: Scope; file: string };

/** The folders from `cwd` up to `root` (both included), nearest first. */
function foldersUp(cwd: string, root: string): string[] {
  const out: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    out.push(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  return out;
}

/** The settings files a session of `host` started in `cwd` loads (measured: tests/e2e/team.test.ts). */
function loadedFiles(host: HostName, cwd: string, root: string, inRepository: boolean): Place[] {
  const places: Place[] = [{ scope: "user", file: settingsPath(host, "user", cwd) }];
  if (host === "claude")
    places.push({ scope: "project", file: settingsPath(host, "project", cwd) }, { scope: "local", file: settingsPath(host, "local", cwd) });
  else if (host === "codex")
    for (const dir of inRepository ? foldersUp(cwd, root) : [cwd])
      places.push({ scope: "project", file: settingsPath(host, "project", dir) });
  else if (host === "gemini") places.push({ scope: "project", file: settingsPath(host, "project", cwd) });
  else places.push({ scope: "project", file: settingsPath(host, "project", root) });
  return places;
}

function installHint(host: HostName, scope: Scope): string {
  return `verdict install ${host}${scope === "project" ? " --project" : scope === "local" ? " --local" : ""}`;
}

async function checkHost(host: HostName, cwd: string, hosts: HostsSettings): Promise<HostReport | undefined> {
  const home = homeDir();
  const repository = repositoryRoot(cwd);
  const root = repository ?? resolve(cwd);
  const found: string[] = [];
  const bin = HOST_BINARIES[host].map((name) => Bun.which(name)).find(Boolean) ?? undefined;
  if (bin) found.push(`${HOST_BINARIES[host][0]} at ${bin}`);
  if (existsSync(HOST_DIRS[host](home))) found.push(HOST_DIRS[host](home));
  const checks: Check[] = [];
  const registered: Array<Place & { event: string; command: string }> = [];
  for (const place of loadedFiles(host, cwd, root, repository !== undefined)) {
    if (!existsSync(place.file)) continue;
    const settings = readSettings(place.file);
    if (!settings) {
      checks.push({ ok: false, what: `${place.file} cannot be read as JSON`, fix: "fix the file; the host may be ignoring it" });
      continue;
    }
    for (const entry of registeredCommands(settings)) registered.push({ ...place, event: entry.event, command: entry.command });
    const stale = staleMatchers(host, settings);
    if (stale.length > 0)
      checks.push({
        ok: false,
        what: `${place.file} registers verdict for too few tools: ${stale.join("; ")}`,
        fix: installHint(host, place.scope),
      });
  }
  // A project hook at the repository root that this session would not load (hosts that read only the start folder).
  const coverage = projectCoverage(host, root, repository !== undefined);
  const rootFile = settingsPath(host, "project", root);
  const unseen =
    resolve(cwd) !== root &&
    !coverage.walksUp &&
    host !== "cursor" &&
    existsSync(rootFile) &&
    registeredCommands(readSettings(rootFile) ?? {}).length > 0;
  if (found.length === 0 && registered.length === 0 && !unseen) return undefined;
  if (unseen) {
    const covered = registered.length > 0;
    checks.push({
      ok: covered,
      what: `${rootFile} has verdict's hook, but a ${HOST_TITLES[host]} session started here (${resolve(cwd)}) does not load it: it covers ${coverage.text}`,
      fix: covered ? undefined : `start ${HOST_TITLES[host]} in ${root}, or install for the user as well (verdict install ${host})`,
    });
  }
  if (registered.length === 0) {
    if (!unseen)
      checks.push({
        ok: false,
        what: "verdict's hook is not registered for a session started here",
        fix: `verdict install ${host} (or --project for this project)`,
      });
    return { host, found, checks };
  }
  for (const file of new Set(registered.map((r) => r.file))) {
    const here = registered.filter((r) => r.file === file);
    const scope = here[0]!.scope;
    const missing = ownEvents(host).filter((event) => !here.some((r) => r.event === event));
    checks.push(
      missing.length === 0
        ? { ok: true, what: `registered in ${file} for ${ownEvents(host).join(" and ")}` }
        : { ok: false, what: `registered in ${file} but not for ${missing.join(", ")}`, fix: installHint(host, scope) },
    );
    if (scope !== "user")
      checks.push({
        ok: true,
        what: `the project hook covers ${projectCoverage(host, dirname(dirname(file)), repository !== undefined).text}`,
      });
    const self = selfCommand()[0];
    for (const command of new Set(here.map((r) => r.command))) {
      const named = commandBinary(command);
      const portable = isPortableCommand(command);
      const binary = portable && named && !named.includes("/") ? (Bun.which(named) ?? undefined) : named;
      if (!executable(binary)) {
        checks.push(
          portable
            ? {
                ok: false,
                what: `the hook runs ${named?.includes("/") ? named : `${named} from PATH`}, which is not found here: on this machine the hook does nothing and ${HOST_TITLES[host]}'s own permission check applies`,
                fix: named?.includes("/")
                  ? `${installHint(host, scope)} (from the verdict you mean to use)`
                  : "install verdict so that it is on PATH (see the README's install section)",
              }
            : {
                ok: false,
                what: `the hook runs ${binary}, which is not an executable file`,
                fix: `${installHint(host, scope)} (from the verdict you mean to use)`,
              },
        );
        continue;
      }
      const how = portable ? `${named} from PATH (${binary})` : binary;
      checks.push(
        sameFile(binary!, self!)
          ? { ok: true, what: `the hook runs this binary (${how})` }
          : { ok: true, what: `the hook runs ${how}, not this binary (${self}); reinstall from this one if that is not meant` },
      );
      const trip = await roundTrip(host, command, cwd, durationMs(hosts.hook_timeout));
      checks.push(
        trip.ok
          ? { ok: true, what: `"rm -rf ~" round-trips to a blocking decision (${EFFECT_WORDS[trip.effect] ?? trip.effect}, ${trip.ms} ms)` }
          : {
              ok: false,
              what: `"rm -rf ~" did not round-trip to a blocking decision: it would be ${EFFECT_WORDS[trip.effect] ?? trip.effect} (exit ${trip.exitCode}, ${trip.ms} ms)${trip.stderr.trim() ? `: ${trip.stderr.trim().slice(0, 200)}` : ""}`,
              fix: "check the policy (verdict policy check) and the hook command",
            },
      );
    }
  }
  if (host === "codex")
    checks.push(
      ...(await codexTrustChecks(
        bin,
        cwd,
        root,
        home,
        registered.map((r) => r.file),
      )),
    );
  if (host === "gemini" && registered.some((r) => r.scope === "project")) checks.push(geminiTrust(home, cwd));
  return { host, found, checks };
}

async function codexTrustChecks(bin: string | undefined, cwd: string, root: string, home: string, files: string[]): Promise<Check[]> {
  if (!bin) return [{ ok: true, what: "codex is not on PATH, so hook trust was not checked; trust verdict's hooks with /hooks in codex" }];
  const codexHome = process.env.CODEX_HOME || join(home, ".codex");
  const checks: Check[] = [];
  const projectFiles = files.filter((file) => !file.startsWith(`${codexHome}/`));
  if (projectFiles.length > 0) {
    let config: any;
    try {
      config = Bun.TOML.parse(readFileSync(join(codexHome, "config.toml"), "utf8"));
    } catch {}
    const level = config?.projects?.[root]?.trust_level;
    checks.push(
      level === "trusted"
        ? { ok: true, what: `Codex trusts the project ${root}, so its .codex/ layer loads` }
        : {
            ok: false,
            what: `Codex does not trust the project ${root} (trust_level ${level ?? "unset"}), so its project hooks do not load`,
            fix: `trust the project when codex asks, or add [projects."${root}"] trust_level = "trusted" to ${join(codexHome, "config.toml")}`,
          },
    );
  }
  try {
    const hooks = await codexTrust(bin, cwd, root, codexHome);
    const ours = hooks.filter((hook) => files.some((file) => hook.key.startsWith(`${file}:`)));
    if (ours.length === 0)
      checks.push({
        ok: false,
        what: "codex does not list verdict's hooks",
        fix: "check that the hooks feature is on ([features] hooks) and the file is where codex reads it",
      });
    else {
      const untrusted = ours.filter((hook) => !hook.trusted);
      checks.push(
        untrusted.length === 0
          ? { ok: true, what: `codex trusts verdict's ${ours.length} hooks` }
          : {
              ok: false,
              what: `codex has not trusted ${untrusted.map((h) => h.key).join(", ")} (${untrusted[0]!.status}); untrusted hooks are skipped silently`,
              fix: "start codex, type /hooks, and trust verdict's hooks",
            },
      );
    }
  } catch (error) {
    checks.push({
      ok: false,
      what: `codex hook trust could not be checked: ${(error as Error).message}`,
      fix: "start codex and check /hooks",
    });
  }
  return checks;
}

function geminiTrust(home: string, cwd: string): Check {
  if (process.env.GEMINI_CLI_TRUST_WORKSPACE === "true") return { ok: true, what: "GEMINI_CLI_TRUST_WORKSPACE=true trusts this folder" };
  const trusted = readSettings(join(home, ".gemini", "trustedFolders.json")) ?? {};
  for (let dir = cwd; ; dir = dirname(dir)) {
    const value = trusted[dir];
    if (value === "TRUST_FOLDER" || (value === "TRUST_PARENT" && dir !== cwd))
      return { ok: true, what: `Gemini CLI trusts ${dir}, so project hooks load` };
    if (dirname(dir) === dir) break;
  }
  return {
    ok: false,
    what: `${cwd} is not a trusted folder, so Gemini CLI ignores its project hooks`,
    fix: `trust the folder when Gemini asks, or add "${cwd}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json`,
  };
}

/** verdict's own folders and files are owner-only (0700 / 0600): others could read secrets' context or plant state. */
function privateFilesCheck(): Check {
  const { widerThanPrivate } = require("../files/private.ts") as typeof import("../files/private.ts");
  let wide: { path: string; mode: number; dir: boolean }[];
  try {
    wide = widerThanPrivate([stateDir(), configDir(), cacheDir()]);
  } catch (error) {
    return { ok: false, what: `verdict's folders cannot be checked: ${(error as Error).message}` };
  }
  if (wide.length === 0) return { ok: true, what: "verdict's files and folders are owner-only" };
  const shown = wide
    .slice(0, 5)
    .map((w) => `${w.path} (${w.mode.toString(8)})`)
    .join(", ");
  return {
    ok: false,
    what: `${wide.length} of verdict's files or folders can be read or written by others: ${shown}${wide.length > 5 ? ", ..." : ""}`,
    fix: wide
      .slice(0, 5)
      .map((w) => `chmod ${w.dir ? "700" : "600"} ${w.path}`)
      .join("; "),
  };
}

/**
 * Whether hooks can hand their payloads to a resident judge (src/resident/serve.ts), and how many run. Read
 * only: the folder is listed, nothing is started or connected to.
 */
function residentCheck(): Check {
  const { processFacts, residentAddress } = require("../resident/address.ts") as typeof import("../resident/address.ts");
  const address = residentAddress({ ...processFacts(), env: { ...process.env, VERDICT_SELF_TEST: undefined } });
  if ("off" in address) return { ok: true, what: `hooks judge in their own process, with no resident judge: ${address.off}` };
  let sockets = 0;
  try {
    sockets = existsSync(address.dir) ? readdirSync(address.dir).filter((name) => name.endsWith(".sock")).length : 0;
  } catch {}
  return {
    ok: true,
    what: `hooks hand their payloads to a resident judge, started by the hooks themselves (${sockets} socket${sockets === 1 ? "" : "s"} in ${address.dir}; verdict resident lists them, VERDICT_RESIDENT=off switches them off)`,
  };
}

/** Whether the model the policy configures answers one real question set within judge.answer_within. */
async function modelCheck(
  loaded: import("../policy/index.ts").LoadedPolicy,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Check> {
  const { policy } = loaded;
  const { selectAnswerer } = await import("../judge/judge.ts");
  const selection = selectAnswerer(policy, env);
  if ("off" in selection) {
    if (policy.judge.answerer === "model")
      return {
        ok: false,
        what: `judge.answerer is model, but no model can be asked: ${selection.off}`,
        fix: "set the key variable, or set judge.answerer to auto or rules",
      };
    return { ok: true, what: `no model is asked (${selection.off}); the rule engine answers` };
  }
  const provider = selection.provider;
  const endpoint = policy.model[provider];
  const { commandQuestions } = await import("../core/questions.ts");
  const set = commandQuestions(policy, { command: "ls -la", cwd, projectRoot: cwd, redacted: true });
  const limit = durationMs(policy.judge.answer_within);
  const started = performance.now();
  const options = { policy, env, deadline: started + limit };
  const reply =
    provider === "jev"
      ? await (await import("../answerers/jev.ts")).askJev(set, options)
      : await (await import("../answerers/openai.ts")).askOpenAI(set, options);
  const ms = Math.round(performance.now() - started);
  const where = provider === "jev" ? (await import("../answerers/jev.ts")).jevUrl(policy, env) : endpoint.base_url;
  if (reply.ok)
    return {
      ok: true,
      what: `the ${provider} model ${reply.model || endpoint.model} at ${where} answered in ${ms} ms (answer_within ${policy.judge.answer_within})`,
    };
  const why = reply.kind === "timeout" ? `no answer within ${policy.judge.answer_within}` : reply.reason;
  return {
    ok: false,
    what: `the ${provider} model ${endpoint.model} at ${where} cannot be used: ${why} (${ms} ms); every judgment falls back to the rule engine`,
    fix: "check the endpoint, its key variable and judge.answer_within, or set judge.answerer to rules",
  };
}

async function policyChecks(cwd: string, file: string | undefined): Promise<{ checks: Check[]; hosts: HostsSettings }> {
  const checks: Check[] = [];
  const { loadPolicy } = await import("../policy/index.ts");
  const result = loadPolicy({ cwd, file });
  if (!result.ok) {
    checks.push({
      ok: false,
      what: `the policy cannot be used:\n${result.error.message}`,
      fix: "fix the policy; until then every hook answers with hosts.on_error",
    });
    return { checks, hosts: DEFAULT_HOSTS };
  }
  const { loaded } = result;
  checks.push(privateFilesCheck());
  checks.push(residentCheck());
  checks.push({
    ok: true,
    what: `the policy loads (${loaded.layers
      .filter((l) => !l.ignored)
      .map((l) => l.name)
      .join(" + ")}; digest ${loaded.digest})`,
  });
  const { formatProblem } = await import("../policy/index.ts");
  for (const layer of loaded.ignored) {
    checks.push({
      ok: false,
      what: `the untrusted repository policy ${layer.file} is ignored for its problems:\n${layer.problems.map((problem) => formatProblem(problem).replace(/^/gm, "  ")).join("\n")}`,
      fix: "fix it (verdict policy check), then trust it if you mean it to loosen anything: verdict policy trust",
    });
  }
  const env = { ...process.env, [SELF_TEST_ENV]: "1" };
  try {
    checks.push(await modelCheck(loaded, cwd, env));
  } catch (error) {
    checks.push({ ok: false, what: `the model could not be checked: ${(error as Error).message}` });
  }
  return { checks, hosts: loaded.policy.hosts };
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseOptions(argv, { json: { type: "boolean" }, policy: { type: "string" }, help: { type: "boolean", short: "h" } });
  if ("error" in parsed) return usageError(parsed.error, HELP);
  if (parsed.values.help) {
    console.log(HELP);
    return 0;
  }
  if (parsed.positionals.length > 0) return usageError(`unexpected ${JSON.stringify(parsed.positionals[0])}`, HELP);
  const json = parsed.values.json === true;
  const policy = parsed.values.policy as string | undefined;
  if (policy === "") return usageError("--policy needs a file", HELP);
  if (policy && !existsSync(policy)) return usageError(`--policy ${policy}: no such file`, HELP);
  const cwd = process.cwd();
  const policyReport = await policyChecks(cwd, policy ? resolve(policy) : undefined);
  const reports: HostReport[] = [];
  for (const host of HOST_NAMES) {
    const report = await checkHost(host, cwd, policyReport.hosts);
    if (report) reports.push(report);
  }
  const setup: Check[] =
    reports.length === 0
      ? [
          {
            ok: false,
            what: "no host found (Claude Code, Codex CLI, Gemini CLI, Cursor): verdict judges nothing yet",
            fix: "install a host, then verdict install <host>",
          },
        ]
      : [];
  const all = [...setup, ...policyReport.checks, ...reports.flatMap((r) => r.checks)];
  const problems = all.filter((c) => !c.ok).length;
  if (json) {
    console.log(jsonDocument({ ok: problems === 0, problems, setup, policy: policyReport.checks, hosts: reports }, 2));
    return problems === 0 ? 0 : 1;
  }
  const mark = (c: Check) => `${c.ok ? "ok  " : "FIX "} ${c.what}${c.fix ? `\n       fix: ${c.fix}` : ""}`;
  console.log("policy");
  for (const c of policyReport.checks) console.log(`  ${mark(c)}`);
  for (const c of setup) console.log(`\n${mark(c)}`);
  for (const report of reports) {
    console.log(`\n${HOST_TITLES[report.host]}${report.found.length ? ` (${report.found.join("; ")})` : ""}`);
    for (const c of report.checks) console.log(`  ${mark(c)}`);
  }
  console.log(problems === 0 ? "\nall good" : `\n${problems} thing${problems === 1 ? "" : "s"} to fix`);
  return problems === 0 ? 0 : 1;
}
