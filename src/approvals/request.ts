/**
 * `verdict approvals request`: puts a command to a person from a script, the
 * way a hook does for a host that cannot ask (without --wait) or the way
 * `verdict run` does (with --wait). The command is judged first; a command
 * the policy denies is refused without a task, since no approval overrides a
 * deny.
 */
import { judgeCommand } from "../judge/index.ts";
import { loadPolicy } from "../policy/index.ts";
import type { Who } from "./decision.ts";
import { hostAsk } from "./host.ts";
import { askPerson } from "./person.ts";

type RequestOptions = { wait: boolean; host: string; session?: string; cwd: string; env?: Record<string, string | undefined> };

type RequestResult =
  | { ok: false; message: string }
  | { ok: true; allowed: boolean; reason: string; verdict: string; line: string; task?: string; digest?: string; by?: Who | string | null };

export async function requestCall(command: string, options: RequestOptions): Promise<RequestResult> {
  const env = options.env ?? process.env;
  const loaded = loadPolicy({ cwd: options.cwd, env });
  if (!loaded.ok) return { ok: false, message: `the policy cannot be loaded: ${loaded.error.message}` };
  const judgment = await judgeCommand({ command, cwd: options.cwd, host: options.host, event: "approvals-request", env }, loaded.loaded);
  const base = { ok: true as const, verdict: judgment.verdict, line: judgment.line };
  if (judgment.verdict === "deny")
    return { ...base, allowed: false, reason: `${judgment.line} — the policy denies it, and no approval overrides a deny` };
  const input = { command, cwd: options.cwd, host: options.host, ...(options.session ? { session: options.session } : {}) };
  if (!options.wait) {
    const result = hostAsk(input, judgment, { policy: loaded.loaded.policy, env });
    return {
      ...base,
      allowed: result.decision === "allow",
      reason: result.reason,
      ...(result.task ? { task: result.task, digest: result.digest } : {}),
      ...(result.decision === "allow" ? { by: result.by } : {}),
    };
  }
  const terminal = process.stdin.isTTY && process.stderr.isTTY ? { input: process.stdin, output: process.stderr } : undefined;
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const outcome = await askPerson(input, judgment, {
      policy: loaded.loaded.policy,
      env,
      ...(terminal ? { terminal } : {}),
      budget: { used: 0 },
      signal: controller.signal,
    });
    return {
      ...base,
      allowed: outcome.decision === "allow",
      reason: outcome.reason,
      ...(outcome.task ? { task: outcome.task.id, digest: outcome.task.digest } : {}),
      ...(outcome.by !== undefined ? { by: outcome.by } : {}),
    };
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
