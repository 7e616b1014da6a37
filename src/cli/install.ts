/**
 * verdict install <host> [--project] [--dry-run] [--bin PATH]: merges verdict's hooks into the host's
 * settings, keeping every other hook and setting, replacing only verdict's own entries, with a backup.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { DEFAULT_HOSTS } from "../hosts/hook.ts";
import { trustNotes } from "../hosts/notes.ts";
import { EFFECT_WORDS, roundTrip } from "../hosts/roundtrip.ts";
import { hookCommand, planInstall, selfCommand, settingsPath, SettingsError, type Plan, type Scope } from "../hosts/settings.ts";
import { HOST_NAMES, HOST_TITLES, isHostName, type HostName } from "../hosts/types.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { durationMs } from "../core/units.ts";
import { usageError } from "./common.ts";

const HELP = `Usage: verdict install <${HOST_NAMES.join("|")}> [--project] [--dry-run] [--bin PATH]

Adds verdict's hooks (before a shell command, and at a turn's end) to the host's settings:
  claude   ~/.claude/settings.json       (--project: .claude/settings.json)
  codex    $CODEX_HOME/hooks.json         (--project: .codex/hooks.json)
  gemini   ~/.gemini/settings.json        (--project: .gemini/settings.json)
  cursor   ~/.cursor/hooks.json           (--project: .cursor/hooks.json)
Other hooks and settings are kept; verdict's own earlier entries are replaced; the old file is backed up.
  --project   the project in the current directory instead of the user's settings
  --dry-run   print what would be written, change nothing
  --bin PATH  the verdict binary the hooks run (default: this one)`;

export type InstallArgs = { host: HostName; scope: Scope; dryRun: boolean; bin?: string[] };

export function parseArgs(argv: string[], help: string): InstallArgs | string {
  let host: string | undefined;
  let scope: Scope = "user";
  let dryRun = false;
  let bin: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--project") scope = "project";
    else if (arg === "--user") scope = "user";
    else if (arg === "--dry-run" || arg === "-n") dryRun = true;
    else if (arg === "--bin") {
      const value = argv[++i];
      if (!value) return "--bin needs a path";
      bin = [value];
    } else if (arg.startsWith("--bin=")) bin = [arg.slice(6)];
    else if (arg.startsWith("-")) return `unknown option ${arg}\n${help}`;
    else if (host === undefined) host = arg;
    else return `one host at a time (got ${host} and ${arg})`;
  }
  if (!isHostName(host)) return `name a host: ${HOST_NAMES.join(", ")}${host ? ` (got ${host})` : ""}\n${help}`;
  return { host, scope, dryRun, bin };
}

export async function hostsSettings(cwd: string): Promise<{ hosts: HostsSettings; warning?: string }> {
  try {
    const { loadPolicy } = await import("../policy/index.ts");
    const result = loadPolicy({ cwd });
    if (result.ok) return { hosts: result.loaded.policy.hosts };
    return { hosts: DEFAULT_HOSTS, warning: `the policy cannot be used, so the default hook settings are written:\n${result.error.message}` };
  } catch (error) {
    return { hosts: DEFAULT_HOSTS, warning: `the policy cannot be loaded (${(error as Error).message}); the default hook settings are written` };
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
  const file = settingsPath(args.host, args.scope, cwd);
  const { hosts, warning } = await hostsSettings(cwd);
  if (warning) console.error(`verdict: ${warning}`);
  const command = hookCommand(args.bin ?? selfCommand(), args.host);
  let plan: Plan;
  try {
    plan = planInstall(args.host, readIfExists(file), file, command, { timeoutMs: durationMs(hosts.hook_timeout), maxContinues: hosts.max_continues });
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`verdict: ${error.message}`);
      return 1;
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
  for (const note of trustNotes(args.host, args.scope, file, cwd)) console.log(`  ${note}`);
  const check = await roundTrip(args.host, command, cwd, durationMs(hosts.hook_timeout));
  if (check.ok) {
    console.log(`  Checked: a ${args.host} payload for "rm -rf ~" through the hook was ${EFFECT_WORDS[check.effect] ?? check.effect} (${check.ms} ms).`);
    return 0;
  }
  console.error(`verdict: the installed hook did not block "rm -rf ~": it was ${EFFECT_WORDS[check.effect] ?? check.effect} (exit ${check.exitCode}${check.stderr ? `; ${check.stderr.trim().slice(0, 300)}` : ""}). Run verdict doctor.`);
  return 1;
}
