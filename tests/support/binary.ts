/** Running the compiled binary in tests, with a throwaway home. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const BINARY = resolve(import.meta.dir, "../../dist/verdict");

export function tempDir(prefix = "verdict-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** An environment with its own HOME and XDG folders, and no model key. */
export function isolatedEnv(home = tempDir("verdict-home-"), extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(VERDICT_|TYPESAFE_|OPENAI_|XDG_)/.test(key)) env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    // A hook that runs twice in one test starts a resident judge (src/cli/resident.ts): let it end soon after.
    VERDICT_RESIDENT_IDLE: "5s",
    ...extra,
  };
}

export type Ran = { code: number; stdout: string; stderr: string; ms: number };

/** The compiled binary, run to its end: status, output, and how long it took (whole process). */
export function run(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string | Uint8Array; timeout?: number } = {},
): Ran {
  const started = performance.now();
  const result = Bun.spawnSync([BINARY, ...args], {
    cwd: options.cwd,
    env: options.env ?? isolatedEnv(),
    stdin: options.stdin === undefined ? "ignore" : typeof options.stdin === "string" ? Buffer.from(options.stdin) : options.stdin,
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeout,
  });
  return {
    code: result.exitCode ?? -1,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
    ms: performance.now() - started,
  };
}

/** `env` with a folder holding `verdict` (a link to the compiled binary) first on PATH, as an installed verdict is. */
export function withVerdictOnPath(env: Record<string, string>): Record<string, string> {
  const { symlinkSync } = require("node:fs") as typeof import("node:fs");
  const bin = tempDir("verdict-bin-");
  symlinkSync(BINARY, join(bin, "verdict"));
  return { ...env, PATH: `${bin}:${env.PATH ?? ""}` };
}
