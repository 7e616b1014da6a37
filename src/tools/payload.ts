/**
 * Host tool payloads into normalised calls. Each host names its file tools differently; what they do is
 * the same few things (read, write, edit, delete, fetch, call an MCP tool). Field names follow the hosts'
 * hook contracts (../shared/reference/hosts.md) and the payloads captured from the pinned hosts
 * (tests/hosts/samples). A tool verdict has no opinion on (Glob, TodoWrite, ...) gives undefined.
 */
import { PayloadError } from "./types.ts";
import { parsePatch } from "./patch.ts";
import { toolWords } from "./rules.ts";
import { lineCount, type ToolCall, type ToolPart } from "./types.ts";

type Input = Record<string, unknown>;

function text(input: Input, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

function needText(tool: string, input: Input, ...keys: string[]): string {
  const value = text(input, ...keys);
  if (value === undefined) throw new PayloadError(`${tool} tool_input: ${keys.join(" or ")} is missing or not a non-empty string`);
  return value;
}

/** mcp__server__tool (Claude Code, Codex, Gemini CLI): the server and the tool; undefined for other names. */
function mcpName(name: string): { server: string; tool: string } | undefined {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m ? { server: m[1]!, tool: m[2]! } : undefined;
}

/** Argument names under which MCP tools take a file path, or a URL they open. */
const PATH_ARGS = new Set([
  "path",
  "paths",
  "file",
  "files",
  "file_path",
  "filepath",
  "filename",
  "absolute_path",
  "source",
  "destination",
  "target",
  "notebook_path",
]);
const URL_ARGS = new Set(["url", "uri", "href", "link"]);
/** An MCP tool whose name's first word says it reads (read_file, get_file_contents, list_directory). */
const READ_WORD = /^(get|list|search|read|fetch|query|describe|show|find|view|lookup|retrieve|open|cat|head|tail|directory|stat)(_|$)/;

function argStrings(value: unknown): string[] {
  if (typeof value === "string") return value === "" ? [] : [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
}

/**
 * An MCP call's parts: the call itself, and what it names a file or URL with, judged as a file tool's
 * part would be (a filesystem server's read_file of ~/.ssh/id_rsa is a credential read, a fetch server's
 * URL is a fetch): the path's part reads when the tool's name says it reads, else writes.
 */
export function mcpParts(server: string, name: string, args: Input): ToolPart[] {
  const parts: ToolPart[] = [{ kind: "mcp", server, tool: name, args }];
  const reads = READ_WORD.test(toolWords(name));
  for (const [key, value] of Object.entries(args)) {
    const k = toolWords(key);
    if (PATH_ARGS.has(k)) for (const path of argStrings(value)) parts.push({ kind: reads ? "read" : "write", path, tool: name });
    else if (URL_ARGS.has(k))
      for (const url of argStrings(value)) if (/^https?:\/\//i.test(url)) parts.push({ kind: "fetch", url, tool: name });
  }
  return parts;
}

/** An MCP call's arguments as a map: a JSON text parsed, anything else under `value`. */
export function mcpArgs(args: unknown): Input {
  const parsed = typeof args === "string" ? safeJson(args) : args;
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Input) : { value: parsed };
}

function mcpCall(tool: string, server: string, name: string, args: unknown): ToolCall {
  return { tool, parts: mcpParts(server, name, mcpArgs(args)) };
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function edit(path: string, old: string | undefined, content: string | undefined): ToolPart {
  return { kind: "edit", path, old, content, added: lineCount(content), removed: lineCount(old) };
}

function write(path: string, content: string): ToolPart {
  return { kind: "write", path, content, added: lineCount(content), removed: 0 };
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>)\]]+/g;

/** A call from Codex's apply_patch: one part per file, a move as a delete and a write. */
export function patchCall(tool: string, patch: string): ToolCall {
  const parsed = parsePatch(patch);
  if (!parsed.ok) throw new PayloadError(`${tool}: the patch cannot be read: ${parsed.error}`);
  const parts: ToolPart[] = [];
  for (const op of parsed.ops) {
    if (op.op === "add") parts.push(write(op.path, op.content));
    else if (op.op === "delete") parts.push({ kind: "delete", path: op.path });
    else if (op.moveTo) {
      parts.push({ kind: "delete", path: op.path });
      parts.push({ kind: "write", path: op.moveTo, movedFrom: op.path, content: op.newText, added: op.added, removed: op.removed });
    } else parts.push({ kind: "edit", path: op.path, old: op.oldText, content: op.newText, added: op.added, removed: op.removed });
  }
  return { tool, parts };
}

/**
 * The call for a host tool name and its input. `mcpContext` is Gemini CLI's `mcp_context`
 * (server_name, tool_name) where given.
 */
export function toolCall(tool: string, input: Input, mcpContext?: Input): ToolCall | undefined {
  const mcp = mcpName(tool);
  if (mcp) return mcpCall(tool, mcp.server, mcp.tool, input);
  if (mcpContext && typeof mcpContext.server_name === "string") {
    return mcpCall(tool, mcpContext.server_name, typeof mcpContext.tool_name === "string" ? mcpContext.tool_name : tool, input);
  }
  switch (tool) {
    // Claude Code
    case "Write":
    case "write_file": // Gemini CLI
      return {
        tool,
        parts: [write(needText(tool, input, "file_path", "path", "absolute_path"), typeof input.content === "string" ? input.content : "")],
      };
    case "Edit":
    case "replace": // Gemini CLI
    case "search_replace":
      return {
        tool,
        parts: [
          edit(
            needText(tool, input, "file_path", "path", "absolute_path"),
            text(input, "old_string"),
            typeof input.new_string === "string" ? input.new_string : "",
          ),
        ],
      };
    case "MultiEdit": {
      const path = needText(tool, input, "file_path");
      const edits = Array.isArray(input.edits) ? (input.edits as Input[]) : [];
      const old = edits.map((e) => (typeof e?.old_string === "string" ? e.old_string : "")).join("\n");
      const content = edits.map((e) => (typeof e?.new_string === "string" ? e.new_string : "")).join("\n");
      return { tool, parts: [edit(path, old, content)] };
    }
    case "NotebookEdit": {
      const path = needText(tool, input, "notebook_path");
      const source = typeof input.new_source === "string" ? input.new_source : "";
      return { tool, parts: [edit(path, undefined, source)] };
    }
    case "Read":
    case "read_file": // Gemini CLI
      return { tool, parts: [{ kind: "read", path: needText(tool, input, "file_path", "absolute_path", "path") }] };
    case "read_many_files": {
      const paths = Array.isArray(input.paths) ? input.paths.filter((p): p is string => typeof p === "string") : [];
      if (paths.length === 0) throw new PayloadError(`${tool} tool_input: paths is missing or empty`);
      return { tool, parts: paths.map((path) => ({ kind: "read", path })) };
    }
    case "Delete": // Cursor's preToolUse
      return { tool, parts: [{ kind: "delete", path: needText(tool, input, "file_path", "path") }] };
    case "WebFetch":
    case "web_fetch": {
      // Gemini CLI's web_fetch takes a prompt with the URLs in it.
      const url = text(input, "url");
      const urls = url ? [url] : [...new Set((text(input, "prompt") ?? "").match(URL_IN_TEXT) ?? [])];
      if (urls.length === 0) throw new PayloadError(`${tool} tool_input: no url (url, or URLs in prompt)`);
      return { tool, parts: urls.map((u) => ({ kind: "fetch", url: u })) };
    }
    case "apply_patch":
      return patchCall(tool, needText(tool, input, "command", "patch", "input"));
    default:
      return undefined;
  }
}
