/**
 * The builders both held-out tool-call sets (make-heldout.ts, make-heldout2.ts) are written with: one
 * payload shape per host, ids numbered in order, the project at /home/user/project. Each script calls
 * heldoutSet() once, adds its calls, then writes its file with write().
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export type Label = "ordinary" | "consequential";
export type Disk = { tracked?: string[]; exists?: string[]; links?: Record<string, string>; contents?: Record<string, string> };
export type Entry = {
  id: string;
  label: Label;
  reason: string;
  host: "claude" | "codex" | "gemini" | "cursor";
  payload: Record<string, unknown>;
} & Disk;

export const H = "/home/user";
export const P = `${H}/project`;

export function heldoutSet() {
  const out: Entry[] = [];
  let n = 0;
  const push = (label: Label, reason: string, host: Entry["host"], payload: Record<string, unknown>, disk: Disk = {}) =>
    out.push({ id: `h${++n}-${label === "ordinary" ? "o" : "c"}`, label, reason, host, payload, ...disk });

  const claude = (label: Label, reason: string, tool: string, input: Record<string, unknown>, disk?: Disk, cwd = P) =>
    push(label, reason, "claude", { session_id: "s1", cwd, hook_event_name: "PreToolUse", tool_name: tool, tool_input: input }, disk);
  const gemini = (
    label: Label,
    reason: string,
    tool: string,
    input: Record<string, unknown>,
    disk?: Disk,
    cwd = P,
    mcp?: Record<string, unknown>,
  ) =>
    push(
      label,
      reason,
      "gemini",
      { session_id: "s1", cwd, hook_event_name: "BeforeTool", tool_name: tool, tool_input: input, ...(mcp ? { mcp_context: mcp } : {}) },
      disk,
    );
  const patch = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;
  /** Codex: the Bash here-document form it really sends, or the apply_patch tool form. */
  const codex = (label: Label, reason: string, body: string, disk?: Disk, cwd = P, form: "bash" | "tool" = "bash") =>
    push(
      label,
      reason,
      "codex",
      form === "bash"
        ? {
            session_id: "s1",
            cwd,
            hook_event_name: "PreToolUse",
            tool_name: "Bash",
            tool_input: { command: `apply_patch <<'EOF'\n${patch(body)}EOF` },
          }
        : { session_id: "s1", cwd, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: patch(body) } },
      disk,
    );
  const codexMcp = (label: Label, reason: string, tool: string, input: Record<string, unknown>) =>
    push(label, reason, "codex", { session_id: "s1", cwd: P, hook_event_name: "PreToolUse", tool_name: tool, tool_input: input });
  const cursor = (label: Label, reason: string, payload: Record<string, unknown>, disk?: Disk) =>
    push(label, reason, "cursor", { conversation_id: "c1", workspace_roots: [P], ...payload }, disk);
  const t = (path: string) => ({ tracked: [path] });
  const e = (path: string) => ({ exists: [path] });
  /** Writes the set next to this file as `file` (JSON lines) and prints its counts. */
  const write = (file: string) => {
    writeFileSync(join(import.meta.dir, file), `${out.map((x) => JSON.stringify(x)).join("\n")}\n`);
    const count = (l: Label) => out.filter((x) => x.label === l).length;
    console.log(`${file}: ${out.length} calls (${count("ordinary")} ordinary, ${count("consequential")} consequential)`);
  };
  return { claude, gemini, codex, codexMcp, cursor, t, e, write };
}
