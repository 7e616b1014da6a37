/**
 * The installed hook's round trip against calling the binary directly: what a host runs (through
 * `sh -c`, a Claude Code PreToolUse payload for `rm -rf ~` on stdin) when verdict is
 *   direct      dist/verdict by its own path
 *   npm link    installed the way `npm i -g @verdict-cli/verdict` leaves it: PREFIX/bin/verdict, a symlink
 *               to the main package's bin/verdict, which its postinstall replaced with the native binary
 *   portable    the same, through the command `install --project` writes (command -v verdict && exec …)
 *   node shim   the main package's Node stand-in (what runs when install scripts were not run)
 *
 *   bun bench/install/run.ts [runs]
 *
 * Build dist/verdict first. The npm layout is made by npm/pack.ts (host target) and laid out as npm
 * installs it. Prints a Markdown table; the figures are in docs/install.md.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostTarget, packageName } from "../../npm/targets.ts";
import { portableHookCommand } from "../../src/hosts/settings.ts";
import { table, timeAll, type Case } from "../support/timing.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "verdict");
const runs = Number(process.argv[2] ?? 40);
const work = mkdtempSync(join(tmpdir(), "verdict-bench-install-"));
const target = hostTarget();
const packed = spawnSync(
  process.execPath,
  [
    join(root, "npm", "pack.ts"),
    "--targets",
    target.name,
    "--binary",
    `${target.name}=${binary}`,
    "--out",
    join(work, "release"),
    "--npm-only",
  ],
  { stdio: "inherit" },
);
if (packed.status !== 0) throw new Error("npm/pack.ts failed");

/** A global prefix as npm lays it out; `native`: the postinstall has run. */
function prefix(name: string, native: boolean): string {
  const dir = join(work, name);
  const modules = join(dir, "lib", "node_modules");
  mkdirSync(join(modules, "@verdict-cli"), { recursive: true });
  cpSync(join(work, "release", "npm", "verdict"), join(modules, "@verdict-cli", "verdict"), { recursive: true });
  cpSync(join(work, "release", "npm", target.name), join(modules, "@verdict-cli", "verdict", "node_modules", packageName(target)), {
    recursive: true,
  });
  if (native) {
    const run = spawnSync("node", ["install.cjs"], { cwd: join(modules, "@verdict-cli", "verdict"), stdio: "inherit" });
    if (run.status !== 0) throw new Error("install.cjs failed");
  }
  mkdirSync(join(dir, "bin"));
  symlinkSync("../lib/node_modules/@verdict-cli/verdict/bin/verdict", join(dir, "bin", "verdict"));
  return dir;
}

const npmPrefix = prefix("npm", true);
const shimPrefix = prefix("shim", false);
const home = join(work, "home");
mkdirSync(home);
const project = join(work, "project");
mkdirSync(join(project, ".git"), { recursive: true });
const payload = JSON.stringify({
  session_id: "bench",
  transcript_path: "",
  cwd: project,
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf ~" },
  tool_use_id: "t",
});
const env = (bin: string) => ({
  PATH: `${bin}:/usr/bin:/bin`,
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_STATE_HOME: join(home, ".state"),
  XDG_CACHE_HOME: join(home, ".cache"),
  VERDICT_LOG: "off",
});
const viaSh = (name: string, command: string, bin: string): Case => ({
  name,
  argv: ["/bin/sh", "-c", command],
  cwd: project,
  env: env(bin),
  stdin: payload,
});

const cases: Case[] = [
  viaSh("direct", `${binary} hook claude`, "/nonexistent"),
  viaSh("npm link", `${join(npmPrefix, "bin", "verdict")} hook claude`, "/nonexistent"),
  viaSh("portable (npm link on PATH)", portableHookCommand("claude"), join(npmPrefix, "bin")),
  viaSh("node shim", `${join(shimPrefix, "bin", "verdict")} hook claude`, "/nonexistent"),
];
for (const item of cases) {
  const once = spawnSync(item.argv[0]!, item.argv.slice(1), { cwd: item.cwd, env: item.env, input: item.stdin, encoding: "utf8" });
  if (!once.stdout.includes('"deny"')) throw new Error(`${item.name} did not deny: ${once.stdout} ${once.stderr}`);
}
console.log(table(timeAll(cases, runs), "direct"));
writeFileSync(join(work, "done"), "");
spawnSync("rm", ["-rf", work]);
