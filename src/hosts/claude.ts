/**
 * Claude Code: PreToolUse (matcher Bash) and Stop. Observed on 2.1.332 (docs/hosts.md): allow, deny and
 * ask are all honoured; in headless -p runs an ask is a denial whose reason the model reads; no output
 * leaves the normal permission flow; Stop `{decision:"block", reason}` continues the turn.
 */
import { obj, requireStr, str, type Adapter, type HookEvent, type Payload } from "./types.ts";

export const claude: Adapter = {
  name: "claude",
  canAsk: true,
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
        backgroundTasks: Array.isArray(payload.background_tasks) ? payload.background_tasks : undefined,
      };
    }
    return { kind: "other", event: event || "(none)", what: "event" };
  },
  command(decision, reason) {
    if (decision === "pass") return { stdout: "", exitCode: 0 };
    return {
      stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason } }),
      exitCode: 0,
    };
  },
  turnEnd(continueWith) {
    if (continueWith === undefined) return { stdout: "", exitCode: 0 };
    return { stdout: JSON.stringify({ decision: "block", reason: continueWith }), exitCode: 0 };
  },
};
