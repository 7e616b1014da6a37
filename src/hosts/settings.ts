/**
 * Where each host keeps its hook settings, what verdict's entries look like there, and how they are merged
 * in and taken out again. Only verdict's own entries are ever replaced or removed: an entry is verdict's
 * when its command runs a verdict binary's `hook <host>`. Everything else in the file is kept as it is
 * (the JSON is rewritten with the same meaning; key order is preserved).
 */
import { homedir } from "node:os";
import { basename, join } from "node:path";
import type { HostName } from "./types.ts";

export type Scope = "user" | "project";

export type Env = Record<string, string | undefined>;

/** The settings file verdict's hooks go into. */
export function settingsPath(host: HostName, scope: Scope, cwd: string, env: Env = process.env): string {
  const home = env.HOME || homedir();
  switch (host) {
    case "claude":
      return scope === "project" ? join(cwd, ".claude", "settings.json") : join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "settings.json");
    case "codex":
      return scope === "project" ? join(cwd, ".codex", "hooks.json") : join(env.CODEX_HOME || join(home, ".codex"), "hooks.json");
    case "gemini":
      return scope === "project" ? join(cwd, ".gemini", "settings.json") : join(home, ".gemini", "settings.json");
    case "cursor":
      return scope === "project" ? join(cwd, ".cursor", "hooks.json") : join(home, ".cursor", "hooks.json");
  }
}

/** Quotes a word for sh when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command line a host runs: this binary (or `bun main.ts` in development) and `hook <host>`. */
export function hookCommand(bin: string[], host: HostName): string {
  return [...bin, "hook", host].map(shellQuote).join(" ");
}

/** The words that start this verdict: the compiled binary itself, or bun with the entry script. */
export function selfCommand(): string[] {
  const exe = process.execPath;
  const name = basename(exe);
  if (/^bun(\.exe)?$/.test(name) && process.argv[1]) return [exe, process.argv[1]];
  return [exe];
}

const OWN = /(?:^|[\s/'"])(?:verdict[^\s/'"]*|main\.ts)['"]?\s+hook\s+(claude|codex|gemini|cursor)\s*$/;

/** Whether a hook command is one of verdict's (any install, any binary path). */
export function isOwnCommand(command: unknown): boolean {
  return typeof command === "string" && OWN.test(command.trim());
}

/** The binary path in one of verdict's commands (the first word, unquoted). */
export function commandBinary(command: string): string | undefined {
  const match = /^\s*(?:'([^']*)'|"([^"]*)"|(\S+))/.exec(command);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

type Json = Record<string, unknown>;

/**
 * The tools each host's before-tool hook is registered for (a regex on the tool name): the shell, and the
 * file, fetch and MCP tools verdict judges as tool calls (src/tools/payload.ts).
 */
export const TOOL_MATCHERS = {
  claude: "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|WebFetch|mcp__.*",
  codex: "Bash|apply_patch|mcp__.*",
  // Gemini CLI names MCP tools mcp_<server>_<tool> in its hooks (observed on 0.61.0), with mcp_context.
  gemini: "run_shell_command|write_file|replace|read_file|read_many_files|web_fetch|mcp_.*",
} as const;

/** Events whose verdict group in `settings` is registered with another matcher than this verdict's. */
export function staleMatchers(host: HostName, settings: Json): string[] {
  if (host === "cursor" || !isObject(settings.hooks)) return [];
  const wanted = ownEntries(host, `verdict hook ${host}`, { timeoutMs: 30000, maxContinues: 2 });
  const stale: string[] = [];
  for (const [event, entry] of Object.entries(wanted)) {
    if (entry.matcher === undefined) continue;
    const list = settings.hooks[event];
    if (!Array.isArray(list)) continue;
    const own = list.find((group) => groupHandlers(group)?.some(ownHandler));
    if (own && (own as Json).matcher !== entry.matcher) stale.push(`${event} (matcher ${JSON.stringify((own as Json).matcher)}, not ${JSON.stringify(entry.matcher)})`);
  }
  return stale;
}

export type EntryOptions = { timeoutMs: number; maxContinues: number };

/** verdict's entries for one host: event name → the group (or, for Cursor, the entry) to put there. */
export function ownEntries(host: HostName, command: string, options: EntryOptions): Record<string, Json> {
  const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  switch (host) {
    case "claude":
      return {
        // onFailure "block": if verdict cannot run at all (missing binary, timeout), the command is refused
        // rather than run (observed on Claude Code 2.1.332).
        PreToolUse: { matcher: TOOL_MATCHERS.claude, hooks: [{ type: "command", command, timeout: seconds, onFailure: "block" }] },
        Stop: { hooks: [{ type: "command", command, timeout: seconds }] },
      };
    case "codex":
      return {
        PreToolUse: { matcher: TOOL_MATCHERS.codex, hooks: [{ type: "command", command, timeout: seconds }] },
        Stop: { hooks: [{ type: "command", command, timeout: seconds }] },
      };
    case "gemini":
      return {
        BeforeTool: { matcher: TOOL_MATCHERS.gemini, hooks: [{ type: "command", name: "verdict", command, timeout: options.timeoutMs }] },
        AfterAgent: { hooks: [{ type: "command", name: "verdict-turn-end", command, timeout: options.timeoutMs }] },
      };
    case "cursor":
      return {
        beforeShellExecution: { command, failClosed: true },
        // File reads and MCP calls are judged too (src/tools); file edits reach verdict through preToolUse.
        beforeReadFile: { command, failClosed: true },
        beforeMCPExecution: { command, failClosed: true },
        stop: { command, loop_limit: options.maxContinues },
      };
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class SettingsError extends Error {}

export function parseSettings(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${file} is not valid JSON (${(error as Error).message}); fix it or move it aside, then install again`);
  }
  if (!isObject(value)) throw new SettingsError(`${file} does not hold a JSON object`);
  if (value.hooks !== undefined && !isObject(value.hooks)) throw new SettingsError(`${file}: "hooks" is not an object`);
  return value;
}

/** Whether a group (Claude/Codex/Gemini shape) or entry (Cursor shape) is, or holds, one of verdict's. */
function groupHandlers(group: unknown): unknown[] | undefined {
  return isObject(group) && Array.isArray(group.hooks) ? group.hooks : undefined;
}

function ownHandler(handler: unknown): boolean {
  return isObject(handler) && isOwnCommand(handler.command);
}

export type Plan = { before: Json; after: Json; changed: boolean; text: string; removed: number };

function render(value: Json): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Merges verdict's entries in: where one of verdict's handlers is already registered for an event, the
 * first is replaced in place (others of verdict's there are dropped); otherwise verdict's group is
 * appended. Idempotent: a second install with the same command changes nothing.
 */
export function planInstall(host: HostName, text: string | undefined, file: string, command: string, options: EntryOptions): Plan {
  const before = parseSettings(text, file);
  const after = structuredClone(before);
  const entries = ownEntries(host, command, options);
  const hooks: Json = isObject(after.hooks) ? after.hooks : {};
  if (host === "cursor" && after.version === undefined) after.version = 1;
  let removed = 0;
  for (const [event, entry] of Object.entries(entries)) {
    const list: unknown[] = Array.isArray(hooks[event]) ? [...(hooks[event] as unknown[])] : [];
    let placed = false;
    const next: unknown[] = [];
    for (const group of list) {
      if (host === "cursor") {
        if (ownHandler(group)) {
          if (!placed) next.push(entry), (placed = true);
          else removed++;
        } else next.push(group);
        continue;
      }
      const handlers = groupHandlers(group);
      if (!handlers || !handlers.some(ownHandler)) {
        next.push(group);
        continue;
      }
      const ownGroup = handlers.length === 1;
      if (!placed && ownGroup) {
        next.push(entry);
        placed = true;
        continue;
      }
      const kept = handlers.filter((handler) => !ownHandler(handler));
      removed += handlers.length - kept.length;
      if (kept.length > 0) next.push({ ...(group as Json), hooks: kept });
    }
    if (!placed) next.push(entry);
    hooks[event] = next;
  }
  after.hooks = hooks;
  const changed = JSON.stringify(before) !== JSON.stringify(after);
  return { before, after, changed, text: changed ? render(after) : (text ?? ""), removed };
}

/** Removes exactly verdict's handlers, and the groups and event lists that only held them. */
export function planUninstall(host: HostName, text: string | undefined, file: string): Plan {
  const before = parseSettings(text, file);
  const after = structuredClone(before);
  let removed = 0;
  if (isObject(after.hooks)) {
    const hooks = after.hooks;
    for (const [event, list] of Object.entries(hooks)) {
      if (!Array.isArray(list)) continue;
      const next: unknown[] = [];
      for (const group of list) {
        if (host === "cursor" || groupHandlers(group) === undefined) {
          if (ownHandler(group)) removed++;
          else next.push(group);
          continue;
        }
        const handlers = groupHandlers(group)!;
        const kept = handlers.filter((handler) => !ownHandler(handler));
        removed += handlers.length - kept.length;
        if (kept.length === handlers.length) next.push(group);
        else if (kept.length > 0) next.push({ ...(group as Json), hooks: kept });
      }
      if (next.length === 0 && list.length > 0) delete hooks[event];
      else hooks[event] = next;
    }
    if (Object.keys(hooks).length === 0 && removed > 0) delete after.hooks;
  }
  const changed = removed > 0;
  return { before, after, changed, text: changed ? render(after) : (text ?? ""), removed };
}

/** verdict's registered commands in a settings object, by event. */
export function registeredCommands(settings: Json): Array<{ event: string; command: string; entry: Json }> {
  const found: Array<{ event: string; command: string; entry: Json }> = [];
  if (!isObject(settings.hooks)) return found;
  for (const [event, list] of Object.entries(settings.hooks)) {
    if (!Array.isArray(list)) continue;
    for (const group of list) {
      const handlers = groupHandlers(group) ?? [group];
      for (const handler of handlers) if (ownHandler(handler)) found.push({ event, command: (handler as Json).command as string, entry: handler as Json });
    }
  }
  return found;
}

/** The events verdict registers for each host. */
export function ownEvents(host: HostName): string[] {
  return Object.keys(ownEntries(host, "verdict hook " + host, { timeoutMs: 30000, maxContinues: 2 }));
}
