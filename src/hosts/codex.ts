/**
 * Codex CLI: PreToolUse (the shell tool is reported as tool_name "Bash") and Stop. Observed on 0.171.0
 * (docs/hosts.md): only deny with a non-empty reason blocks; a bare allow and ask are "unsupported" and
 * the command runs; no output is no opinion. So allow and pass print nothing, and ask is never printed:
 * the shared layer turns it into deny or pass as the policy says. Stop output is Claude's. A patch reaches
 * the hook as a Bash command `apply_patch <<'EOF' ...` (observed; tests/hosts/samples): judged as a patch.
 */
import { recogniseEvent } from "./recognise.ts";
import { nonEmpty, type Adapter } from "./types.ts";

export const codex: Adapter = {
  name: "codex",
  canAsk: false,
  recognise: (payload) =>
    recogniseEvent(payload, {
      beforeTool: "PreToolUse",
      shellTool: "Bash",
      turnEnd: "Stop",
      finalField: "last_assistant_message",
      shellApplyPatch: true,
    }),
  command(decision, reason) {
    if (decision === "allow" || decision === "pass") return { stdout: "", exitCode: 0 };
    return {
      stdout: JSON.stringify({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: nonEmpty(reason) },
      }),
      exitCode: 0,
    };
  },
  turnEnd(continueWith) {
    if (continueWith === undefined) return { stdout: "", exitCode: 0 };
    return { stdout: JSON.stringify({ decision: "block", reason: nonEmpty(continueWith) }), exitCode: 0 };
  },
};
