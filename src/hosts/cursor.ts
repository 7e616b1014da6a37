/**
 * Cursor: beforeShellExecution (and the newer generic preToolUse for the Shell tool) and stop. Not
 * installable headless here, so this follows the documented contract (docs/hosts.md): `permission`
 * allow|deny|ask with user_message and agent_message; stop cannot block, it can only send a
 * `followup_message`, bounded by the hook's loop_limit; there is no stop_hook_active, only loop_count.
 * beforeReadFile (file_path), beforeMCPExecution (tool_name, tool_input, url or command) and preToolUse
 * for the file tools are judged as tool calls, answered with the same `permission` reply.
 */
import { mcpArgs, mcpParts, toolCall } from "../tools/payload.ts";
import { obj, PayloadError, requireStr, str, type Adapter, type HookEvent, type Payload } from "./types.ts";

/** beforeMCPExecution: the server is named by its url or its command; tool_input is a JSON text or an object. */
function mcpServer(payload: Payload): string {
  return str(payload, "server_name") ?? str(payload, "url") ?? str(payload, "command") ?? "(unknown server)";
}

function cwdOf(payload: Payload): string {
  const roots = payload.workspace_roots;
  const first = Array.isArray(roots) && typeof roots[0] === "string" ? roots[0] : undefined;
  return str(payload, "cwd") || first || process.cwd();
}

export const cursor: Adapter = {
  name: "cursor",
  canAsk: true,
  recognise(payload: Payload): HookEvent {
    const event = str(payload, "hook_event_name") ?? "";
    const sessionId = str(payload, "conversation_id");
    if (event === "beforeShellExecution") {
      return { kind: "command", event, command: requireStr(payload, "command", "beforeShellExecution"), cwd: cwdOf(payload), sessionId };
    }
    if (event === "preToolUse") {
      const tool = str(payload, "tool_name") ?? "";
      if (tool !== "Shell") {
        const call = tool ? toolCall(tool, obj(payload, "tool_input") ?? {}) : undefined;
        if (call) return { kind: "tool", event, call, cwd: cwdOf(payload), sessionId };
        return { kind: "other", event, what: `tool ${tool || "(none)"}` };
      }
      const command = requireStr(obj(payload, "tool_input") ?? {}, "command", "preToolUse Shell tool_input");
      return { kind: "command", event, command, cwd: cwdOf(payload), sessionId };
    }
    if (event === "beforeReadFile") {
      const path = requireStr(payload, "file_path", "beforeReadFile");
      return {
        kind: "tool",
        event,
        call: { tool: "beforeReadFile", parts: [{ kind: "read", path }] },
        cwd: cwdOf(payload),
        sessionId,
        cannotAsk: true,
      };
    }
    if (event === "beforeMCPExecution") {
      const name = requireStr(payload, "tool_name", "beforeMCPExecution");
      const input = payload.tool_input;
      let args: unknown = input;
      if (typeof input === "string") {
        try {
          args = JSON.parse(input);
        } catch {
          throw new PayloadError(`beforeMCPExecution: tool_input is not JSON (${input.slice(0, 60)})`);
        }
      }
      return {
        kind: "tool",
        event,
        call: { tool: name, parts: mcpParts(mcpServer(payload), name, mcpArgs(args)) },
        cwd: cwdOf(payload),
        sessionId,
      };
    }
    if (event === "stop") {
      const loopCount = typeof payload.loop_count === "number" ? payload.loop_count : 0;
      return {
        kind: "turn-end",
        event,
        cwd: cwdOf(payload),
        sessionId,
        stopHookActive: loopCount > 0,
        loopCount,
        status: str(payload, "status"),
        final: str(payload, "last_assistant_message"),
        transcriptPath: str(payload, "transcript_path"),
      };
    }
    return { kind: "other", event: event || "(none)", what: "event" };
  },
  command(decision, reason) {
    if (decision === "pass") return { stdout: "{}", exitCode: 0 };
    return { stdout: JSON.stringify({ permission: decision, user_message: reason, agent_message: reason }), exitCode: 0 };
  },
  turnEnd(continueWith) {
    if (continueWith === undefined) return { stdout: "{}", exitCode: 0 };
    return { stdout: JSON.stringify({ followup_message: continueWith }), exitCode: 0 };
  },
};
