/**
 * Where each host keeps its hook settings, what verdict's entries look like there, and how they are merged
 * in and taken out again. Only verdict's own entries are ever replaced or removed: an entry is verdict's
 * when its command runs a verdict binary's `hook <host>` (directly, or through the portable wrapper that
 * project installs write). Files are read and edited as JSONC (jsonc-parser): comments, key order and
 * formatting outside the hook lists verdict changes are kept byte for byte.
 */
import { homeDir } from "../files/dirs.ts";
import { realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from "jsonc-parser";
import { HOST_TITLES, type HostName } from "./types.ts";

/** user: the person's own settings; project: the repository's shared file; local: the person's file in the project (Claude Code's settings.local.json). */
export type Scope = "user" | "project" | "local";

export type Env = Record<string, string | undefined>;

/** The settings file verdict's hooks go into; `root` is the project's root for project and local scope. */
export function settingsPath(host: HostName, scope: Scope, root: string, env: Env = process.env): string {
  const home = homeDir(env);
  switch (host) {
    case "claude":
      if (scope === "local") return join(root, ".claude", "settings.local.json");
      return scope === "project"
        ? join(root, ".claude", "settings.json")
        : join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "settings.json");
    case "codex":
      return scope !== "user" ? join(root, ".codex", "hooks.json") : join(env.CODEX_HOME || join(home, ".codex"), "hooks.json");
    case "gemini":
      return scope !== "user" ? join(root, ".gemini", "settings.json") : join(home, ".gemini", "settings.json");
    case "cursor":
      return scope !== "user" ? join(root, ".cursor", "hooks.json") : join(home, ".cursor", "hooks.json");
  }
}

/** Hosts with a personal settings file inside the project (not committed), for `install --local`. */
export const LOCAL_SCOPE_HOSTS: readonly HostName[] = ["claude"];

/**
 * Which working directories a project hook at `root` covers, as each host loads project settings
 * (measured with the pinned hosts in tests/e2e/team.test.ts; Cursor from its docs).
 */
export function projectCoverage(host: HostName, root: string, inRepository: boolean): { walksUp: boolean; text: string } {
  switch (host) {
    case "claude":
      return {
        walksUp: false,
        text: `Claude Code sessions started in ${root} itself; Claude Code reads .claude/ only in the folder it starts in, so a session started in a subfolder does not load this hook (install for the user too, verdict install claude, to cover those)`,
      };
    case "codex":
      return inRepository
        ? {
            walksUp: true,
            text: `Codex sessions started in ${root} or any folder below it (Codex reads .codex/ from the start folder up to the repository root), once the project is trusted`,
          }
        : {
            walksUp: false,
            text: `Codex sessions started in ${root} itself (outside a git repository Codex reads .codex/ only in the start folder)`,
          };
    case "gemini":
      return {
        walksUp: false,
        text: `Gemini CLI sessions started in ${root} itself, in a trusted folder; a session started in a subfolder does not load this hook (verdict install gemini covers every folder)`,
      };
    case "cursor":
      return { walksUp: false, text: `Cursor with ${root} opened as the workspace` };
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

/** How to get verdict, for the message a machine without it shows. No quotes: it is put inside sh and JSON strings. */
const INSTALL_HINT = "npm install -g @verdict-cli/verdict (or the install script in the verdict README)";

/** What a project hook says where verdict is missing. */
function missingMessage(host: HostName, bin: string): string {
  const where = bin === "verdict" ? "not found on PATH" : `${bin} is missing`;
  return `verdict is not installed on this machine (${where}), so the verdict hook of this project did nothing and ${HOST_TITLES[host]} applies its own permission check. To get verdict: ${INSTALL_HINT}.`;
}

/**
 * The command a project install writes: it runs `verdict hook <host>` found on PATH (or `bin`), and where
 * there is no verdict it answers "no opinion" in the host's vocabulary, so the host's own permission check
 * applies, and tells the person how to get verdict: Claude Code and Gemini CLI show a JSON systemMessage
 * to the user; Codex CLI takes empty output as no opinion (the message goes to stderr); Cursor needs `{}`.
 * Exit 0 in every case: Claude Code's onFailure "block" and Cursor's failClosed must not fire on it.
 */
export function portableHookCommand(host: HostName, bin = "verdict"): string {
  const message = missingMessage(host, bin);
  if (/['"\\]/.test(message)) throw new Error("the missing-verdict message must not hold quotes or backslashes");
  const q = shellQuote(bin);
  const otherwise =
    host === "claude" || host === "gemini"
      ? `printf '%s\\n' '{"systemMessage":"${message}"}'`
      : host === "cursor"
        ? `printf '{}\\n'; echo '${message}' >&2`
        : `echo '${message}' >&2`;
  return `command -v ${q} >/dev/null 2>&1 && exec ${q} hook ${host} || { ${otherwise}; exit 0; }`;
}

/** The words that start this verdict: the compiled binary itself, or bun with the entry script. */
export function selfCommand(): string[] {
  const exe = process.execPath;
  const name = basename(exe);
  if (/^bun(\.exe)?$/.test(name) && process.argv[1]) return [exe, process.argv[1]];
  return [exe];
}

/**
 * For user settings: the `verdict` on PATH when it is this binary (a stable name such as ~/.local/bin/verdict
 * or npm's bin link, which an upgrade keeps), else this binary's own path.
 */
export function userBinary(env: Env = process.env): string[] {
  const self = selfCommand();
  if (self.length > 1) return self;
  const onPath = Bun.which("verdict", { PATH: env.PATH ?? "" });
  try {
    if (onPath && realpathSync(onPath) === realpathSync(self[0]!)) return [onPath];
  } catch {}
  return self;
}

const OWN = /(?:^|[\s/'"])(?:verdict[^\s/'"]*|main\.ts)['"]?\s+hook\s+(claude|codex|gemini|cursor)\s*$/;
const PORTABLE =
  /^command -v ('(?:[^']|'\\'')*'|\S+) >\/dev\/null 2>&1 && exec \1 hook (claude|codex|gemini|cursor) \|\| \{ .*; exit 0; \}$/;

/** Whether a hook command is one of verdict's (any install, any binary path, direct or portable). */
export function isOwnCommand(command: unknown): boolean {
  if (typeof command !== "string") return false;
  const text = command.trim();
  return OWN.test(text) || PORTABLE.test(text);
}

/** Whether a command is the portable form (verdict looked up when the hook runs). */
export function isPortableCommand(command: string): boolean {
  return PORTABLE.test(command.trim());
}

function unquote(word: string): string {
  return word.startsWith("'") ? word.slice(1, -1).replaceAll(`'\\''`, "'") : word;
}

/** The binary in one of verdict's commands: the first word, or the word the portable form execs (unquoted). */
export function commandBinary(command: string): string | undefined {
  const portable = PORTABLE.exec(command.trim());
  if (portable) return unquote(portable[1]!);
  const match = /^\s*(?:'([^']*)'|"([^"]*)"|(\S+))/.exec(command);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

type Json = Record<string, unknown>;

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
    if (own && (own as Json).matcher !== entry.matcher)
      stale.push(`${event} (matcher ${JSON.stringify((own as Json).matcher)}, not ${JSON.stringify(entry.matcher)})`);
  }
  return stale;
}

type EntryOptions = { timeoutMs: number; maxContinues: number };

/**
 * The tools each host's before-a-tool hook is registered for, by the host's own tool names (or name
 * patterns): the shell, and the file, fetch and MCP tools verdict judges as tool calls (src/tools/payload.ts).
 * A new kind of tool verdict judges is one more entry here; the matcher written is these joined as a regex
 * alternation. (Cursor's hooks take no matcher: one event per kind of call.)
 */
const HOST_MATCHERS: Record<HostName, readonly string[]> = {
  claude: ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "WebFetch", "mcp__.*"],
  codex: ["Bash", "apply_patch", "mcp__.*"],
  // Gemini CLI names MCP tools mcp_<server>_<tool> in its hooks (observed on 0.61.0), with mcp_context.
  gemini: ["run_shell_command", "write_file", "replace", "read_file", "read_many_files", "web_fetch", "mcp_.*"],
  cursor: [],
};

function hostMatcher(host: HostName): string {
  return HOST_MATCHERS[host].join("|");
}

/** The matcher (a regex on the tool name) written for each host with a matcher. */
export const TOOL_MATCHERS = { claude: hostMatcher("claude"), codex: hostMatcher("codex"), gemini: hostMatcher("gemini") } as const;

/** verdict's entries for one host: event name → the group (or, for Cursor, the entry) to put there. */
function ownEntries(host: HostName, command: string, options: EntryOptions): Record<string, Json> {
  const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  switch (host) {
    case "claude":
      return {
        // onFailure "block": if verdict fails (crash, timeout), the command is refused rather than run
        // (observed on Claude Code 2.1.332). A machine without verdict is not a failure: the portable
        // project command exits 0 with no decision there.
        PreToolUse: { matcher: hostMatcher(host), hooks: [{ type: "command", command, timeout: seconds, onFailure: "block" }] },
        Stop: { hooks: [{ type: "command", command, timeout: seconds }] },
      };
    case "codex":
      return {
        PreToolUse: { matcher: hostMatcher(host), hooks: [{ type: "command", command, timeout: seconds }] },
        Stop: { hooks: [{ type: "command", command, timeout: seconds }] },
      };
    case "gemini":
      return {
        BeforeTool: { matcher: hostMatcher(host), hooks: [{ type: "command", name: "verdict", command, timeout: options.timeoutMs }] },
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

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** Reads a settings file as JSONC (comments and trailing commas allowed, as Gemini CLI allows them). */
export function parseSettings(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === "") return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new SettingsError(
      `${file} is not valid JSON (${printParseErrorCode(first.error)} at ${lineColumn(text, first.offset)}); fix it or move it aside, then install again`,
    );
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

/** The file's own indentation and line ends, for the parts jsonc-parser writes. */
function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)["}\]]/m.exec(text)?.[1];
  const tabs = indent?.startsWith("\t") ?? false;
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : (indent?.length ?? 2), eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The new text: the old text with only the changed top-level settings and hook event lists rewritten
 * (JSONC edits), so comments and formatting elsewhere stay as they were.
 */
function edit(text: string | undefined, before: Json, after: Json): string {
  if (text === undefined || text.trim() === "") return render(after);
  const options = { formattingOptions: formatting(text) };
  let out = text;
  const apply = (path: (string | number)[], value: unknown, insert = false) => {
    out = applyEdits(out, modify(out, path, value, { ...options, isArrayInsertion: insert }));
  };
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === "hooks" && isObject(before.hooks) && isObject(after.hooks)) {
      const [old, now] = [before.hooks, after.hooks];
      for (const event of new Set([...Object.keys(old), ...Object.keys(now)])) {
        if (same(old[event], now[event])) continue;
        if (Array.isArray(old[event]) && Array.isArray(now[event]))
          editList(["hooks", event], old[event] as unknown[], now[event] as unknown[], apply);
        else apply(["hooks", event], now[event]);
      }
    } else if (!same(before[key], after[key])) apply([key], after[key]);
  }
  return out;
}

/** Edits one list in place where the change is an append, a removal or a replacement of single entries, so the entries verdict leaves alone keep their text. */
function editList(
  path: string[],
  old: unknown[],
  now: unknown[],
  apply: (path: (string | number)[], value: unknown, insert?: boolean) => void,
): void {
  if (now.length >= old.length && old.every((item, i) => same(item, now[i]))) {
    for (let i = old.length; i < now.length; i++) apply([...path, i], now[i], true);
    return;
  }
  if (now.length === old.length) {
    for (let i = 0; i < now.length; i++) if (!same(old[i], now[i])) apply([...path, i], now[i]);
    return;
  }
  // a removal: which old entries are gone, if the rest is unchanged and in order
  const gone: number[] = [];
  let j = 0;
  for (let i = 0; i < old.length; i++) {
    if (j < now.length && same(old[i], now[j])) j++;
    else gone.push(i);
  }
  if (j === now.length && now.length < old.length) {
    for (const i of gone.reverse()) apply([...path, i], undefined);
    return;
  }
  apply(path, now);
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
  return { before, after, changed, text: changed ? edit(text, before, after) : (text ?? ""), removed };
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
  return { before, after, changed, text: changed ? edit(text, before, after) : (text ?? ""), removed };
}

/** verdict's registered commands in a settings object, by event. */
export function registeredCommands(settings: Json): Array<{ event: string; command: string; entry: Json }> {
  const found: Array<{ event: string; command: string; entry: Json }> = [];
  if (!isObject(settings.hooks)) return found;
  for (const [event, list] of Object.entries(settings.hooks)) {
    if (!Array.isArray(list)) continue;
    for (const group of list) {
      const handlers = groupHandlers(group) ?? [group];
      for (const handler of handlers)
        if (ownHandler(handler)) found.push({ event, command: (handler as Json).command as string, entry: handler as Json });
    }
  }
  return found;
}

/** The events verdict registers for each host. */
export function ownEvents(host: HostName): string[] {
  return Object.keys(ownEntries(host, "verdict hook " + host, { timeoutMs: 30000, maxContinues: 2 }));
}
