/**
 * Gemini CLI: BeforeTool (matcher run_shell_command) and AfterAgent. Observed on 0.61.0 (docs/hosts.md):
 * allow runs, deny blocks with the reason sent to the model, and ask ends a headless run silently, so ask
 * is never printed. AfterAgent `{decision:"deny", reason}` sends the reason back as a new prompt.
 */
import { recogniseEvent } from "./recognise.ts";
import { nonEmpty, str, type Adapter } from "./types.ts";

export const gemini: Adapter = {
  name: "gemini",
  canAsk: false,
  recognise: (payload) =>
    recogniseEvent(payload, {
      beforeTool: "BeforeTool",
      shellTool: "run_shell_command",
      turnEnd: "AfterAgent",
      finalField: "prompt_response",
      turnEndExtra: (payload) => ({ prompt: str(payload, "prompt") }),
    }),
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
