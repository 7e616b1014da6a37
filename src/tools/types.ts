/**
 * A tool call other than the shell, in verdict's own terms: whatever host sent it (Claude Code's Write,
 * Codex's apply_patch, Gemini CLI's replace, Cursor's beforeReadFile), it becomes a list of parts, each
 * one thing the call does to one path, URL or MCP server. Rules and the model judge the parts; the
 * strictest part decides for the call.
 */

/** What one part of a call does. */
export const TOOL_KINDS = ["read", "write", "edit", "delete", "fetch", "mcp"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** What a part does to a file: create it, change it (whole or in part), or delete it. */
const CHANGES = ["create", "modify", "delete"] as const;
export type Change = (typeof CHANGES)[number];

export type ToolPart = {
  kind: ToolKind;
  /** The path as the call gives it (absolute or relative to the working directory). */
  path?: string;
  /** A fetch's URL. */
  url?: string;
  /** The whole new content (write, a patch's added file) or the new text an edit puts in. */
  content?: string;
  /** The text an edit replaces, when the call says. */
  old?: string;
  /** For the destination of a move: the path it comes from. */
  movedFrom?: string;
  /** MCP: the server, the tool on it, and the arguments. */
  server?: string;
  tool?: string;
  args?: Record<string, unknown>;
  /** Lines added and removed, where the call says (an edit, a patch). */
  added?: number;
  removed?: number;
};

export type ToolCall = {
  /** The host's own name for the tool: Write, apply_patch, replace, mcp__github__delete_repository. */
  tool: string;
  parts: ToolPart[];
};

/** One line saying what a part does, for logs, approvals and explain: `write ~/.bashrc (+3 -0)`. */
export function partText(part: ToolPart): string {
  const lines = part.added !== undefined || part.removed !== undefined ? ` (+${part.added ?? 0} -${part.removed ?? 0})` : "";
  switch (part.kind) {
    case "fetch":
      return `fetch ${part.url ?? "(no url)"}`;
    case "mcp":
      return `mcp ${part.server ?? "?"} ${part.tool ?? "?"} ${JSON.stringify(part.args ?? {})}`;
    default:
      return `${part.kind} ${part.movedFrom ? `${part.movedFrom} -> ` : ""}${part.path ?? "(no path)"}${lines}`;
  }
}

/** The whole call as one text: what the decision log keeps, what the cache and approvals key on. */
export function callText(call: ToolCall): string {
  return `[${call.tool}] ${call.parts.map(partText).join("; ")}`;
}

/** Lines in a text, as a diff summary counts them. */
export function lineCount(text: string | undefined): number {
  if (text === undefined || text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** A payload that is one of ours but cannot be used (a host's hook payload, or a tool call's input). */
export class PayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PayloadError";
  }
}
