/**
 * Codex CLI: PreToolUse (the shell tool is reported as tool_name "Bash") and Stop. Observed on 0.171.0
 * (docs/hosts.md): only deny with a non-empty reason blocks; a bare allow and ask are "unsupported" and
 * the command runs; no output is no opinion. So allow and pass print nothing, and ask is never printed:
 * the shared layer turns it into deny or pass as the policy says. Stop output is Claude's.
 */
import { nonEmpty, obj, requireStr, str, type Adapter, type HookEvent, type Payload } from "./types.ts";

export const codex: Adapter = {
  name: "codex",
  canAsk: false,
  recognise(payload: Payload): HookEvent {
    const event = str(payload, "hook_event_name") ?? "";
    if (event === "PreToolUse") {
      const tool = str(payload, "tool_name") ?? "";
      if (tool !== "Bash") return { kind: "other", event, what: `tool ${tool || "(none)"}` };
      const input = obj(payload, "tool_input");
      const command = requireStr(input ?? {}, "command", "PreToolUse Bash tool_input");
      return { kind: "command", event, command, cwd: str(payload, "cwd") ?? process.cwd(), sessionId: str(payload, "session_id") };
    }
    if (event === "Stop") {
      return {
        kind: "turn-end",
        event,
        cwd: str(payload, "cwd") ?? process.cwd(),
        sessionId: str(payload, "session_id"),
        stopHookActive: payload.stop_hook_active === true,
        final: str(payload, "last_assistant_message"),
        transcriptPath: str(payload, "transcript_path"),
      };
    }
    return { kind: "other", event: event || "(none)", what: "event" };
  },
  command(decision, reason) {
    if (decision === "allow" || decision === "pass") return { stdout: "", exitCode: 0 };
    return {
      stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: nonEmpty(reason) } }),
      exitCode: 0,
    };
  },
  turnEnd(continueWith) {
    if (continueWith === undefined) return { stdout: "", exitCode: 0 };
    return { stdout: JSON.stringify({ decision: "block", reason: nonEmpty(continueWith) }), exitCode: 0 };
  },
};
