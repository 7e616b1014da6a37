/** verdict uninstall <host> [--project] [--dry-run]: removes exactly verdict's own hook entries. */
import { repositoryRoot } from "../policy/layers.ts";
import { planUninstall, settingsPath, SettingsError } from "../hosts/settings.ts";
import { HOST_NAMES, HOST_TITLES } from "../hosts/types.ts";
import { CliError, render, usageError } from "./common.ts";
import { parseArgs, readIfExists, writeWithBackup } from "./install.ts";

const HELP = `Usage: verdict uninstall <${HOST_NAMES.join("|")}> [--project | --local] [--dry-run]

Removes verdict's hooks from the host's settings (the same files as verdict install, project files at the
repository root), and nothing else; comments and formatting are kept.

Exit status: 0 removed (or nothing to remove); 1 the settings file cannot be read; 2 usage error.`;

export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const args = parseArgs(argv, HELP, { bin: false });
  if (typeof args === "string") return usageError(args);
  const file = settingsPath(args.host, args.scope, repositoryRoot(process.cwd()) ?? process.cwd());
  const text = readIfExists(file);
  if (text === undefined) {
    console.log(`${HOST_TITLES[args.host]}: ${file} does not exist; nothing to remove.`);
    return 0;
  }
  let plan;
  try {
    plan = planUninstall(args.host, text, file);
  } catch (error) {
    if (error instanceof SettingsError) {
      return render(new CliError(error.message, { exit: 1, cause: error }));
    }
    throw error;
  }
  if (!plan.changed) {
    console.log(`${HOST_TITLES[args.host]}: no verdict hook in ${file}; nothing changed.`);
    return 0;
  }
  if (args.dryRun) {
    console.log(`Would remove ${plan.removed} verdict hook${plan.removed === 1 ? "" : "s"} and write ${file}:\n${plan.text}`);
    return 0;
  }
  const backup = writeWithBackup(file, plan.text);
  console.log(
    `${HOST_TITLES[args.host]}: removed ${plan.removed} verdict hook${plan.removed === 1 ? "" : "s"} from ${file} (the old file is kept as ${backup}).`,
  );
  if (args.host === "codex")
    console.log("  Codex's trust entries for them in config.toml are left as they are; they no longer match anything.");
  return 0;
}
