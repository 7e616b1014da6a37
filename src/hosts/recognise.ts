/**
 * The payload shape Claude Code, Codex CLI and Gemini CLI share: one event
 * names a tool call (verdict judges only the shell tool's), another the end
 * of a turn. Each adapter names its events and fields; the reading is here.
 * File, fetch and MCP tools become tool calls (src/tools/payload.ts).
 */
import { patchCall, toolCall } from "../tools/payload.ts";

/** `apply_patch <<'EOF'` (or "EOF", EOF) followed by the patch, or apply_patch with the patch as its argument. */
const APPLY_PATCH = /^\s*apply_patch\s+(?:<<-?\s*['"]?[A-Za-z_]+['"]?\s*\n\s*\*\*\* Begin Patch|['"]\*\*\* Begin Patch)/;
import { obj, requireStr, str, type HookEvent, type Payload, type TurnEndEvent } from "./types.ts";

type EventShape = {
  /** The event before a tool runs: PreToolUse, BeforeTool. */
  beforeTool: string;
  /** The shell tool's name in that event: Bash, run_shell_command. */
  shellTool: string;
  /** The event at a turn's end: Stop, AfterAgent. */
  turnEnd: string;
  /** The field holding the assistant's final message. */
  finalField: string;
  /**
   * The host intercepts `apply_patch <<'EOF' ... EOF` run through its shell tool and applies the patch
   * itself (Codex CLI, observed on 0.171.0: tool_name Bash, the here-document in command): judged as the
   * patch's file changes, not as a shell command.
   */
  shellApplyPatch?: boolean;
  /** What else this host says at a turn's end. */
  turnEndExtra?: (payload: Payload) => Partial<TurnEndEvent>;
};

export function recogniseEvent(payload: Payload, shape: EventShape): HookEvent {
  const event = str(payload, "hook_event_name") ?? "";
  const cwd = str(payload, "cwd") ?? process.cwd();
  const sessionId = str(payload, "session_id");
  if (event === shape.beforeTool) {
    const tool = str(payload, "tool_name") ?? "";
    if (tool !== shape.shellTool) {
      // A file, fetch or MCP tool: judged as a tool call; any other tool gets no opinion.
      const call = tool ? toolCall(tool, obj(payload, "tool_input") ?? {}, obj(payload, "mcp_context")) : undefined;
      if (call) return { kind: "tool", event, call, cwd, sessionId };
      return { kind: "other", event, what: `tool ${tool || "(none)"}` };
    }
    const command = requireStr(obj(payload, "tool_input") ?? {}, "command", `${shape.beforeTool} ${shape.shellTool} tool_input`);
    if (shape.shellApplyPatch && APPLY_PATCH.test(command))
      return { kind: "tool", event, call: patchCall("apply_patch", command), cwd, sessionId };
    return { kind: "command", event, command, cwd, sessionId };
  }
  if (event === shape.turnEnd) {
    return {
      kind: "turn-end",
      event,
      cwd,
      sessionId,
      stopHookActive: payload.stop_hook_active === true,
      final: str(payload, shape.finalField),
      transcriptPath: str(payload, "transcript_path"),
      ...shape.turnEndExtra?.(payload),
    };
  }
  return { kind: "other", event: event || "(none)", what: "event" };
}
