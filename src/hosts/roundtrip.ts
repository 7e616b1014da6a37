/**
 * Round trip: a real payload (shaped as the hosts send it; see tests/hosts/samples) for `rm -rf ~` is piped
 * through the installed command, and its reply must be a blocking decision in that host's vocabulary.
 */
import { spawn } from "node:child_process";
import type { HostName } from "./types.ts";

const ROUND_TRIP_COMMAND = "rm -rf ~";

/** Set in the environment of verdict's own checks (install's and doctor's round trips, doctor's judgment). */
export const SELF_TEST_ENV = "VERDICT_SELF_TEST";

function samplePayload(host: HostName, command: string, cwd: string): Record<string, unknown> {
  switch (host) {
    case "claude":
      return {
        session_id: "verdict-doctor",
        transcript_path: "",
        cwd,
        permission_mode: "default",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command, description: "verdict doctor round trip" },
        tool_use_id: "toolu_verdict_doctor",
      };
    case "codex":
      return {
        session_id: "verdict-doctor",
        turn_id: "verdict-doctor",
        transcript_path: null,
        cwd,
        hook_event_name: "PreToolUse",
        model: "gpt-5",
        permission_mode: "bypassPermissions",
        tool_name: "Bash",
        tool_input: { command },
        tool_use_id: "call_verdict_doctor",
      };
    case "gemini":
      return {
        session_id: "verdict-doctor",
        transcript_path: "",
        cwd,
        hook_event_name: "BeforeTool",
        timestamp: new Date().toISOString(),
        tool_name: "run_shell_command",
        tool_input: { command, description: "verdict doctor round trip" },
      };
    case "cursor":
      return {
        hook_event_name: "beforeShellExecution",
        conversation_id: "verdict-doctor",
        generation_id: "verdict-doctor",
        workspace_roots: [cwd],
        command,
        cwd,
      };
  }
}

/** What a reply means to the host, as observed (docs/hosts.md). */
export function replyEffect(
  host: HostName,
  stdout: string,
  exitCode: number | null,
): "blocks" | "asks" | "runs" | "no-opinion" | "invalid" {
  if (exitCode === 2) return "blocks";
  if (exitCode !== 0) return host === "claude" || host === "cursor" ? "no-opinion" : "runs";
  const text = stdout.trim();
  if (text === "" || text === "{}") return host === "codex" || host === "gemini" ? "runs" : "no-opinion";
  let reply: any;
  try {
    reply = JSON.parse(text);
  } catch {
    return "invalid";
  }
  if (host === "claude" || host === "codex") {
    const decision = reply?.hookSpecificOutput?.permissionDecision;
    const reason = reply?.hookSpecificOutput?.permissionDecisionReason;
    if (decision === "deny" && (host === "claude" || (typeof reason === "string" && reason.trim() !== ""))) return "blocks";
    if (decision === "ask") return host === "claude" ? "asks" : "runs";
    if (decision === "allow") return "runs";
    return "invalid";
  }
  if (host === "gemini") {
    if (reply?.decision === "deny" || reply?.decision === "block") return "blocks";
    if (reply?.decision === "allow") return "runs";
    return "invalid";
  }
  if (reply?.permission === "deny") return "blocks";
  if (reply?.permission === "ask") return "asks";
  if (reply?.permission === "allow") return "runs";
  return "invalid";
}

/** The effect in words: "the host would see it ..." */
export const EFFECT_WORDS: Record<string, string> = {
  blocks: "blocked",
  asks: "put to a person",
  runs: "run",
  "no-opinion": "left to the host's own permission check",
  invalid: "answered with a reply the host cannot use",
  "timed out": "not answered in time",
};

type RoundTrip = { ok: boolean; effect: string; stdout: string; stderr: string; exitCode: number | null; ms: number; timedOut: boolean };

/** Runs a hook command (through sh, as the hosts do) with the payload; bounded by timeoutMs. */
function runHookCommand(
  command: string,
  payload: unknown,
  cwd: string,
  timeoutMs: number,
  env: Record<string, string | undefined> = process.env,
): Promise<Omit<RoundTrip, "ok" | "effect">> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.on("error", (error) => (stderr += error.message));
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode, ms: Math.round(performance.now() - started), timedOut });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export async function roundTrip(host: HostName, command: string, cwd: string, timeoutMs: number): Promise<RoundTrip> {
  // VERDICT_SELF_TEST marks the judgment as a self-test in the decision log (kept out of log and --stats).
  const result = await runHookCommand(command, samplePayload(host, ROUND_TRIP_COMMAND, cwd), cwd, timeoutMs, {
    ...process.env,
    [SELF_TEST_ENV]: "1",
  });
  const effect = result.timedOut ? "timed out" : replyEffect(host, result.stdout, result.exitCode);
  return { ...result, effect, ok: effect === "blocks" || (effect === "asks" && (host === "claude" || host === "cursor")) };
}
