/**
 * verdict install <host> [--project|--local] [--dry-run] [--bin PATH]: merges verdict's hooks into the
 * host's settings, keeping every other hook and setting, replacing only verdict's own entries, with a backup.
 * Project installs go to the repository root and write a command that finds verdict on PATH when the hook
 * runs, so the committed file works on every teammate's machine (and does nothing where verdict is missing).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { DEFAULT_HOSTS } from "../hosts/hook.ts";
import { trustNotes } from "../hosts/notes.ts";
import { EFFECT_WORDS, roundTrip } from "../hosts/roundtrip.ts";
import { repositoryRoot } from "../policy/layers.ts";
import {
  hookCommand,
  LOCAL_SCOPE_HOSTS,
  planInstall,
  portableHookCommand,
  projectCoverage,
  settingsPath,
  SettingsError,
  userBinary,
  type Plan,
  type Scope,
} from "../hosts/settings.ts";
import { HOST_NAMES, HOST_TITLES, isHostName, type HostName } from "../hosts/types.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { durationMs } from "../core/units.ts";
import { parseOptions, type OptionSpec } from "./args.ts";
import { CliError, render, usageError } from "./common.ts";

const HELP = `Usage: verdict install <${HOST_NAMES.join("|")}> [--project | --local] [--dry-run] [--bin PATH]

Adds verdict's hooks (before a shell command, and at a turn's end) to the host's settings:
  claude   ~/.claude/settings.json       (--project: .claude/settings.json; --local: .claude/settings.local.json)
  codex    $CODEX_HOME/hooks.json         (--project: .codex/hooks.json)
  gemini   ~/.gemini/settings.json        (--project: .gemini/settings.json)
  cursor   ~/.cursor/hooks.json           (--project: .cursor/hooks.json)
Other hooks, settings and comments are kept; verdict's own earlier entries are replaced; the old file is
backed up. Project files go to the repository root (the current folder outside a repository).
  --project   the project's shared settings (the file a team commits). The hook runs \`verdict\` found on
              PATH; on a machine without verdict it does nothing, the host's own permission check applies
              and the person is told how to get verdict.
  --local     Claude Code only: the project's personal settings.local.json (not committed)
  --dry-run   print what would be written, change nothing
  --bin PATH  the verdict binary the hooks run (default: verdict on PATH for --project, else this one)

Exit status: 0 installed and checked; 1 not written, or written but the round trip failed; 2 usage error.`;

type InstallArgs = { host: HostName; scope: Scope; dryRun: boolean; bin?: string[] };

const OPTIONS: OptionSpec = {
  user: { type: "boolean" },
  project: { type: "boolean" },
  local: { type: "boolean" },
  "dry-run": { type: "boolean", short: "n" },
  bin: { type: "string" },
  help: { type: "boolean", short: "h" },
};

/** install's and uninstall's arguments: a host, at most one scope, --dry-run and (install) --bin. */
export function parseArgs(argv: string[], help: string, options: { bin: boolean } = { bin: true }): InstallArgs | string {
  const spec = options.bin ? OPTIONS : Object.fromEntries(Object.entries(OPTIONS).filter(([name]) => name !== "bin"));
  const parsed = parseOptions(argv, spec);
  if ("error" in parsed) return `${parsed.error}\n${help}`;
  const { values, positionals } = parsed;
  const scopes = (["user", "project", "local"] as const).filter((name) => values[name]);
  if (scopes.length > 1) return `choose one of --${scopes.join(", --")}`;
  const scope: Scope = scopes[0] ?? "user";
  if (positionals.length > 1) return `one host at a time (got ${positionals.join(" and ")})`;
  const host = positionals[0];
  if (values.bin === "") return "--bin needs a path";
  const bin = typeof values.bin === "string" ? [values.bin] : undefined;
  if (!isHostName(host)) return `name a host: ${HOST_NAMES.join(", ")}${host ? ` (got ${host})` : ""}\n${help}`;
  if (scope === "local" && !LOCAL_SCOPE_HOSTS.includes(host))
    return `--local: ${HOST_TITLES[host]} has no personal settings file inside a project; use --project or the user's settings`;
  return { host, scope, dryRun: values["dry-run"] === true, bin };
}

async function hostsSettings(cwd: string): Promise<{ hosts: HostsSettings; warning?: string }> {
  try {
    const { loadPolicy } = await import("../policy/index.ts");
    const result = loadPolicy({ cwd });
    if (result.ok) return { hosts: result.loaded.policy.hosts };
    return {
      hosts: DEFAULT_HOSTS,
      warning: `the policy cannot be used, so the default hook settings are written:\n${result.error.message}`,
    };
  } catch (error) {
    return {
      hosts: DEFAULT_HOSTS,
      warning: `the policy cannot be loaded (${(error as Error).message}); the default hook settings are written`,
    };
  }
}

/** Writes a settings file atomically, keeping a backup of the old one. Returns the backup's path. */
export function writeWithBackup(file: string, text: string): string | undefined {
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | undefined;
  if (existsSync(file)) {
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
    backup = `${file}.verdict-backup-${stamp}`;
    copyFileSync(file, backup);
  }
  const temp = `${file}.verdict-${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
  return backup;
}

/** Hosts whose settings must be plain JSON (Claude Code: measured, a file with comments is ignored; Codex: serde_json). */
const STRICT_JSON_HOSTS: HostName[] = ["claude", "codex"];

function strictJson(text: string): boolean {
  if (text.trim() === "") return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const args = parseArgs(argv, HELP);
  if (typeof args === "string") return usageError(args);
  const cwd = process.cwd();
  const repository = repositoryRoot(cwd);
  const root = repository ?? cwd;
  const file = settingsPath(args.host, args.scope, root);
  const { hosts, warning } = await hostsSettings(cwd);
  if (warning) console.error(`verdict: ${warning}`);
  let command: string;
  try {
    command = args.scope === "project" ? portableHookCommand(args.host, args.bin?.[0]) : hookCommand(args.bin ?? userBinary(), args.host);
  } catch (error) {
    return usageError(`--bin ${args.bin?.[0]}: ${(error as Error).message}; choose a path without quotes or backslashes`);
  }
  const existing = readIfExists(file);
  if (existing !== undefined && STRICT_JSON_HOSTS.includes(args.host) && !strictJson(existing)) {
    console.error(
      `verdict: ${file} has comments or trailing commas; verdict keeps them, but ${HOST_TITLES[args.host]} reads only plain JSON and ignores the whole file (measured on Claude Code 2.1.332): remove them.`,
    );
  }
  let plan: Plan;
  try {
    plan = planInstall(args.host, existing, file, command, {
      timeoutMs: durationMs(hosts.hook_timeout),
      maxContinues: hosts.max_continues,
    });
  } catch (error) {
    if (error instanceof SettingsError) {
      return render(new CliError(error.message, { exit: 1, cause: error }));
    }
    throw error;
  }
  const title = HOST_TITLES[args.host];
  if (args.dryRun) {
    console.log(plan.changed ? `Would write ${file}:\n${plan.text}` : `${file} already has verdict's hooks; nothing would change.`);
    return 0;
  }
  if (!plan.changed) {
    console.log(`${title}: verdict's hooks are already in ${file}; nothing changed.`);
  } else {
    const backup = writeWithBackup(file, plan.text);
    console.log(`${title}: verdict's hooks written to ${file}${backup ? ` (the old file is kept as ${backup})` : ""}.`);
    console.log(`  command: ${command}`);
  }
  if (args.scope !== "user") {
    if (root !== cwd) console.log(`  Written at the repository root ${root}, not in ${cwd}.`);
    console.log(`  Covers: ${projectCoverage(args.host, root, repository !== undefined).text}.`);
  }
  for (const note of trustNotes(args.host, args.scope, file, root)) console.log(`  ${note}`);
  if (args.scope === "project" && !args.bin && !Bun.which("verdict")) {
    console.error(
      `verdict: verdict is not on PATH here, so this hook does nothing on this machine (the host's own permission check applies). Put verdict on PATH (see the README's install section), then run verdict doctor.`,
    );
    return 1;
  }
  const check = await roundTrip(args.host, command, cwd, durationMs(hosts.hook_timeout));
  if (check.ok) {
    console.log(
      `  Checked: a ${args.host} payload for "rm -rf ~" through the hook was ${EFFECT_WORDS[check.effect] ?? check.effect} (${check.ms} ms).`,
    );
    return 0;
  }
  console.error(
    `verdict: the installed hook did not block "rm -rf ~": it was ${EFFECT_WORDS[check.effect] ?? check.effect} (exit ${check.exitCode}${check.stderr ? `; ${check.stderr.trim().slice(0, 300)}` : ""}). Run verdict doctor.`,
  );
  return 1;
}
