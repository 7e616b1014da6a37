/**
 * Does a resident judge answer every hook exactly as the hook's own process does?
 *
 *   bun build.ts && bun bench/resident/equivalence.ts [--lines 600] [--host claude|codex|gemini|cursor]
 *
 * Lines from the red-team set and the peers' corpus (a fixed, spread sample), each sent as the host's
 * PreToolUse payload twice: to `verdict hook <host>` with a resident judge running, and with
 * VERDICT_RESIDENT=off, each in its own home (an approval task one opens must not change what the other
 * says). Their standard output and error are compared whole, with the home and the times made alike.
 * Also counts what the judge answered and handed back, and the time both ways.
 * Exit status 1 when any line differs.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { prePayload } from "../../tests/hosts/helpers.ts";
import type { HostName } from "../../src/hosts/types.ts";
import { readCorpus } from "../corpus/run.ts";
import { readSet } from "../redteam/run.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "verdict");
const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const wanted = Number(option("--lines") ?? 600);
const host = option("--host") ?? "claude";

const lines = [...readSet().map((row) => row.command), ...readCorpus(join(root, "..", "shared", "corpus")).map((row) => row.command)];
const step = Math.max(1, Math.floor(lines.length / wanted));
const sample = lines.filter((_, index) => index % step === 0).slice(0, wanted);

// Short paths: a socket's path must fit in about 100 bytes (src/resident/address.ts).
const scratch = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "vre-"));
const project = join(scratch, "p");
mkdirSync(join(project, ".git"), { recursive: true });
const envOf = (name: string, extra: Record<string, string> = {}): Record<string, string> => {
  const home = join(scratch, name);
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    VERDICT_MODE: "rules",
    ...extra,
  };
};
const resident = envOf("r");
const own = envOf("o", { VERDICT_RESIDENT: "off" });

// Each host's own payload shape, from the captured samples (tests/hosts/samples).
const payload = (command: string) => prePayload(host as HostName, command, project);
const hook = (env: Record<string, string>, command: string) => {
  const started = performance.now();
  const ran = Bun.spawnSync([binary, "hook", host], {
    cwd: project,
    env,
    stdin: Buffer.from(payload(command)),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { out: `${ran.exitCode} ${ran.stdout.toString()} ${ran.stderr.toString()}`, ms: performance.now() - started };
};
const alike = (text: string, env: Record<string, string>) => text.replaceAll(env.HOME!, "~").replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");

// The judge, started as hooks start it (the second hook of a kind), then given time to listen.
hook(resident, "true");
hook(resident, "true");
await Bun.sleep(300);

let same = 0;
let residentMs = 0;
let ownMs = 0;
const differing: string[] = [];
for (const command of sample) {
  const a = hook(resident, command);
  const b = hook(own, command);
  residentMs += a.ms;
  ownMs += b.ms;
  if (alike(a.out, resident) === alike(b.out, own)) same++;
  else differing.push(`${command}\n  resident: ${alike(a.out, resident).trim()}\n  own:      ${alike(b.out, own).trim()}`);
}
const status = Bun.spawnSync([binary, "resident"], { cwd: project, env: resident, stdout: "pipe" }).stdout.toString().trim();
Bun.spawnSync([binary, "resident", "stop"], { cwd: project, env: resident, stdout: "ignore" });

console.log(`${same} of ${sample.length} lines answered alike (hook ${host}); ${differing.length} differ`);
console.log(`judge: ${status}`);
console.log(`mean ms a hook: resident ${(residentMs / sample.length).toFixed(2)}, own process ${(ownMs / sample.length).toFixed(2)}`);
for (const line of differing.slice(0, 20)) console.log(line);
process.exit(differing.length ? 1 : 0);
