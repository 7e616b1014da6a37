/** Shared pieces of the model tests: the default policy, a policy with changes, and the binary run asynchronously. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPolicy, type LoadedPolicy } from "../../src/policy/load.ts";
import { BINARY, isolatedEnv, tempDir } from "../support/binary.ts";

export { BINARY, isolatedEnv, tempDir };

/** The embedded default policy alone. */
export function defaultPolicy(env: Record<string, string | undefined> = {}): LoadedPolicy {
  const result = loadPolicy({ cwd: tempDir(), env, only: ["default"] });
  if (!result.ok) throw result.error;
  return result.loaded;
}

/** The default policy with a layer on top, written as YAML text. */
export function policyWith(yaml: string): { loaded: LoadedPolicy; file: string } {
  const dir = tempDir("verdict-policy-");
  const file = join(dir, "policy.yaml");
  writeFileSync(file, yaml);
  const result = loadPolicy({ cwd: dir, file, env: {}, only: ["default", "command-line"] });
  if (!result.ok) throw result.error;
  return { loaded: result.loaded, file };
}

/** A throwaway home with its XDG folders, and the environment that points at it. */
export function home(extra: Record<string, string> = {}): { dir: string; env: Record<string, string> } {
  const dir = tempDir("verdict-model-home-");
  mkdirSync(join(dir, "work"), { recursive: true });
  return { dir, env: isolatedEnv(dir, extra) };
}

export type Ran = { code: number; stdout: string; stderr: string; ms: number };

/** Runs the binary without blocking this process's event loop (the fake servers live in it). */
export async function runAsync(args: string[], options: { cwd?: string; env: Record<string, string>; stdin?: string }): Promise<Ran> {
  const started = performance.now();
  const child = Bun.spawn([BINARY, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr, ms: performance.now() - started };
}

/** The decision log's records under a home. */
export function logRecords(env: Record<string, string>): any[] {
  try {
    return readFileSync(join(env.XDG_STATE_HOME!, "verdict", "decisions.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

/** Label order of the default policy's acts and endings, for the OpenAI-compatible fake. */
export function labelOrder(loaded: LoadedPolicy): { act: string[]; ending: string[] } {
  return { act: Object.keys(loaded.policy.acts), ending: Object.keys(loaded.policy.endings) };
}
