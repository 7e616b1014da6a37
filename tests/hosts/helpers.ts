/** Samples and a fake judge for the adapter tests. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HookDeps } from "../../src/hosts/hook.ts";
import type { HostName } from "../../src/hosts/types.ts";
import type { LoadedPolicy } from "../../src/policy/index.ts";
import { loadPolicy } from "../../src/policy/index.ts";

export const SAMPLES = join(import.meta.dir, "samples");

/** One scratch folder per test process for the continue counts, removed when it exits. */
const STATE_ROOT = mkdtempSync(join(tmpdir(), "verdict-hosts-state-"));
process.on("exit", () => rmSync(STATE_ROOT, { recursive: true, force: true }));

export function sample(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(SAMPLES, name), "utf8"));
}

export function sampleText(name: string): string {
  return readFileSync(join(SAMPLES, name), "utf8");
}

/** The sample's payload with another command (and, optionally, other fields). */
export function withCommand(name: string, command: string, extra: Record<string, unknown> = {}): Record<string, any> {
  const payload = sample(name);
  payload.tool_input = { ...payload.tool_input, command };
  return { ...payload, ...extra };
}

/** Each host's sample of what it sends before running a shell command (Cursor's is written by prePayload). */
export const PRE = { claude: "claude-pretooluse.json", codex: "codex-pretooluse.json", gemini: "gemini-beforetool.json" } as const;

/** What `host` sends before running `command` in `cwd`. */
export function prePayload(host: HostName, command: string, cwd: string): string {
  if (host === "cursor")
    return JSON.stringify({
      hook_event_name: "beforeShellExecution",
      conversation_id: "c",
      generation_id: "g",
      workspace_roots: [cwd],
      command,
      cwd,
    });
  return JSON.stringify(withCommand(PRE[host], command, { cwd }));
}

export function defaultPolicy(): LoadedPolicy {
  const result = loadPolicy({ cwd: tmpdir(), env: {}, only: ["default"] });
  if (!result.ok) throw result.error;
  return result.loaded;
}

export function withHosts(hosts: Partial<LoadedPolicy["policy"]["hosts"]>): LoadedPolicy {
  const loaded = defaultPolicy();
  return { ...loaded, policy: { ...loaded.policy, hosts: { ...loaded.policy.hosts, ...hosts } } };
}

export type FakeJudge = {
  command?: { verdict: "allow" | "ask" | "deny" | "pass"; line: string } | Error;
  turn?: { verdict: "pass" | "deny"; line: string } | Error;
  policy?: LoadedPolicy | Error;
};

export function fakeDeps(
  judge: FakeJudge,
  seen: { commands: any[]; turns: any[] } = { commands: [], turns: [] },
): HookDeps & { seen: typeof seen } {
  const policy = judge.policy ?? defaultPolicy();
  return {
    seen,
    loadPolicy: () => (policy instanceof Error ? { ok: false, error: policy as any } : { ok: true, loaded: policy }),
    loadDefaultPolicy: () => ({ ok: true, loaded: defaultPolicy() }),
    judgeCommand: async (input) => {
      seen.commands.push(input);
      if (judge.command instanceof Error) throw judge.command;
      return {
        verdict: judge.command?.verdict ?? "pass",
        line: judge.command?.line ?? "fake: no opinion",
        answerer: "rules",
        executed: [],
        policyDigest: "fake",
      } as any;
    },
    judgeTurnEnd: async (input) => {
      seen.turns.push(input);
      if (judge.turn instanceof Error) throw judge.turn;
      return {
        verdict: judge.turn?.verdict ?? "pass",
        line: judge.turn?.line ?? "fake: finished",
        answerer: "rules",
        policyDigest: "fake",
      } as any;
    },
    startedAt: performance.now(),
    stateDir: mkdtempSync(join(STATE_ROOT, "deps-")),
  };
}
