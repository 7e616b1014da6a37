/**
 * Claude Code: PreToolUse (matcher Bash) and Stop. Observed on 2.1.332 (docs/hosts.md): allow, deny and
 * ask are all honoured; in headless -p runs an ask is a denial whose reason the model reads; no output
 * leaves the normal permission flow; Stop `{decision:"block", reason}` continues the turn.
 */
import { recogniseEvent } from "./recognise.ts";
import type { Adapter } from "./types.ts";

export const claude: Adapter = {
  name: "claude",
  canAsk: true,
  recognise: (payload) =>
    recogniseEvent(payload, {
      beforeTool: "PreToolUse",
      shellTool: "Bash",
      turnEnd: "Stop",
      finalField: "last_assistant_message",
      turnEndExtra: (payload) => ({ backgroundTasks: Array.isArray(payload.background_tasks) ? payload.background_tasks : undefined }),
    }),
  command(decision, reason) {
    if (decision === "pass") return { stdout: "", exitCode: 0 };
    return {
      stdout: JSON.stringify({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason },
      }),
      exitCode: 0,
    };
  },
  turnEnd(continueWith) {
    if (continueWith === undefined) return { stdout: "", exitCode: 0 };
    return { stdout: JSON.stringify({ decision: "block", reason: continueWith }), exitCode: 0 };
  },
};
