/**
 * Gemini CLI: BeforeTool (matcher run_shell_command) and AfterAgent. Observed on 0.61.0 (docs/hosts.md):
 * allow runs, deny blocks with the reason sent to the model, and ask ends a headless run silently, so ask
 * is never printed. AfterAgent `{decision:"deny", reason}` sends the reason back as a new prompt.
 */
import { nonEmpty, obj, requireStr, str, type Adapter, type HookEvent, type Payload } from "./types.ts";

export const gemini: Adapter = {
  name: "gemini",
  canAsk: false,
  recognise(payload: Payload): HookEvent {
    const event = str(payload, "hook_event_name") ?? "";
    if (event === "BeforeTool") {
      const tool = str(payload, "tool_name") ?? "";
      if (tool !== "run_shell_command") return { kind: "other", event, what: `tool ${tool || "(none)"}` };
      const input = obj(payload, "tool_input");
      const command = requireStr(input ?? {}, "command", "BeforeTool run_shell_command tool_input");
      return { kind: "command", event, command, cwd: str(payload, "cwd") ?? process.cwd(), sessionId: str(payload, "session_id") };
    }
    if (event === "AfterAgent") {
      return {
        kind: "turn-end",
        event,
        cwd: str(payload, "cwd") ?? process.cwd(),
        sessionId: str(payload, "session_id"),
        stopHookActive: payload.stop_hook_active === true,
        final: str(payload, "prompt_response"),
        prompt: str(payload, "prompt"),
        transcriptPath: str(payload, "transcript_path"),
      };
    }
    return { kind: "other", event: event || "(none)", what: "event" };
  },
  command(decision, reason) {
    if (decision === "pass") return { stdout: "", exitCode: 0 };
    if (decision === "allow") return { stdout: JSON.stringify({ decision: "allow", reason }), exitCode: 0 };
    return { stdout: JSON.stringify({ decision: "deny", reason: nonEmpty(reason) }), exitCode: 0 };
  },
  turnEnd(continueWith) {
    if (continueWith === undefined) return { stdout: "", exitCode: 0 };
    return { stdout: JSON.stringify({ decision: "deny", reason: nonEmpty(continueWith) }), exitCode: 0 };
  },
};
