/**
 * What the disk says about each part of a tool call: the path resolved (symlinks followed, so a link in
 * the project that points at ~/.bashrc is judged as ~/.bashrc), its class as the shell rules classify
 * paths (src/answerers/rules/paths.ts), whether it exists, whether git tracks it, and so whether the part
 * creates, modifies or deletes a file.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
import type { Probe } from "../answerers/rules/match.ts";
import { classifyAbsolute, usableProjectRoot, type PathClass, type PathContext } from "../answerers/rules/paths.ts";
import { diskProbe } from "../answerers/rules/probe.ts";
import { redact } from "../core/redact.ts";
import type { Change, ToolPart } from "./types.ts";

export type ToolContext = {
  cwd: string;
  /** The repository root; the working directory stands for the project when absent. */
  projectRoot?: string;
  home?: string;
  tmpdir?: string;
  probe?: Probe;
  /** Follows symlinks; the real disk by default, the identity in examples. */
  realpath?: (path: string) => string;
  /** A file's current text (undefined when it cannot be read or is large); the real disk by default. */
  read?: (path: string) => string | undefined;
};

/** Files larger than this are not read to find what a write adds: all of its content counts as added. */
const READ_AT_MOST = 1024 * 1024;

function readSmall(path: string): string | undefined {
  try {
    return statSync(path).size <= READ_AT_MOST ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** The lines of `next` that `before` does not have: what a change puts in that was not there. */
function addedLines(next: string, before: string): string {
  const old = new Set(before.split("\n").map((line) => line.trim()));
  return next
    .split("\n")
    .filter((line) => !old.has(line.trim()))
    .join("\n");
}

export type PartFacts = {
  /** The absolute path, symlinks resolved. */
  path?: string;
  /** The path as written, made absolute (before symlinks are followed), when it differs. */
  written?: string;
  cls?: PathClass;
  exists?: boolean;
  tracked?: boolean;
  change?: Change;
  /** The forms path patterns are tried on: absolute, ~/..., relative to the project root. */
  forms: string[];
  name?: string;
  /** For a glob a read names: the secret files' names it would read (.env for `**\/.env*`). */
  globNames?: string[];
  /** For a fetch: the URL as a browser reads it (host lower-cased, numeric IPv4 spellings made dotted). */
  urlForms?: string[];
  /** For a fetch: the URL carries a credential (a token's shape, a secret-named value, a key, a long blob). */
  carriesSecret?: boolean;
  /**
   * The text the part puts in that was not there: for a write over an existing file, its lines the file
   * does not have; for an edit, the new text's lines the replaced text does not have; else all of it.
   */
  added?: string;
};

/** The real path of `path`: the nearest existing ancestor resolved, the rest appended. */
export function realPath(path: string): string {
  let head = path;
  const rest: string[] = [];
  for (let i = 0; i < 64 && head !== "/"; i++) {
    if (existsSync(head)) {
      try {
        const real = realpathSync(head);
        return rest.length > 0 ? posix.join(real, ...rest.reverse()) : real;
      } catch {
        break;
      }
    }
    rest.push(posix.basename(head));
    head = posix.dirname(head);
  }
  return path;
}

type ResolvedContext = { base: PathContext; probe: Probe; realpath: (path: string) => string; read: (path: string) => string | undefined };

export function resolveContext(context: ToolContext): ResolvedContext {
  const home = (context.home ?? process.env.HOME ?? require("node:os").homedir()).replace(/(.)\/+$/, "$1");
  const realpath = context.realpath ?? realPath;
  const root = context.projectRoot ?? context.cwd;
  const projectRoot =
    usableProjectRoot(root.startsWith("/") ? realpath(posix.normalize(root)) : undefined, realpath(home)) ?? usableProjectRoot(root, home);
  return {
    base: { cwd: context.cwd, projectRoot, home: realpath(home), tmpdir: context.tmpdir ?? process.env.TMPDIR },
    probe: context.probe ?? diskProbe,
    realpath,
    read: context.read ?? readSmall,
  };
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * The home a `~name` path names: /root for root, else a sibling of this account's home (/home/alice,
 * /Users/alice).
 */
function otherHome(name: string, home: string): string {
  if (name === "root") return "/root";
  const base = home === "/root" || home === "/" ? "/home" : posix.dirname(home);
  return posix.join(base, name);
}

/**
 * The absolute path a tool path stands for: ~, ~name, $HOME and ${HOME} expanded (a host or a later
 * shell may expand them; taken literally they would pass for a project path), file:// URLs decoded,
 * relative paths from the working directory.
 */
export function absolutePath(path: string, ctx: PathContext): string {
  let text = path;
  if (text.startsWith("file://")) text = decodeURIComponent(text.slice(7));
  const homeVar = /^\$(?:HOME\b|\{HOME\})/.exec(text);
  if (homeVar) text = ctx.home + text.slice(homeVar[0].length);
  if (text === "~" || text.startsWith("~/")) text = ctx.home + text.slice(1);
  else {
    const user = /^~([A-Za-z_][A-Za-z0-9_.-]*)(?=\/|$)/.exec(text);
    if (user) text = otherHome(user[1]!, ctx.home) + text.slice(user[0].length);
  }
  if (!text.startsWith("/")) text = `${ctx.cwd ?? ctx.projectRoot ?? "/"}/${text}`;
  const normal = posix.normalize(text);
  return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}

/**
 * The forms a path pattern is tried on: absolute, relative to the project root, ~/... under the home.
 * Each also in lower case when it differs: on a case-insensitive file system (macOS, Windows)
 * `~/.BashRC` is `~/.bashrc` and `.GIT/hooks` is `.git/hooks`, and patterns are written in lower case.
 */
function pathForms(path: string, ctx: PathContext): string[] {
  const forms = [path];
  if (ctx.projectRoot && inside(path, ctx.projectRoot) && path !== ctx.projectRoot) forms.push(path.slice(ctx.projectRoot.length + 1));
  if (ctx.home !== "/" && inside(path, ctx.home)) forms.push(path === ctx.home ? "~" : `~/${path.slice(ctx.home.length + 1)}`);
  for (const form of forms.slice()) {
    const lower = form.toLowerCase();
    if (lower !== form) forms.push(lower);
  }
  return forms;
}

/** A .git folder in any case: `.GIT/hooks` is `.git/hooks` where the file system ignores case. */
function inGitDir(path: string): boolean {
  return path.split("/").some((part) => part.toLowerCase() === ".git");
}

/** Secret files' names, tried against a glob a read names (`**\/.env*`): what the glob would read. */
const SECRET_NAMES = [".env", ".env.local", ".env.production", ".envrc", ".netrc", ".pgpass", ".git-credentials", "id_rsa", "id_ed25519"];

/**
 * The secret names a glob's last part matches, as the hosts' globbing does: `*` and `?` stay within a
 * name and do not match a leading dot (`*` does not read `.env`, `.env*` does).
 */
export function globSecretNames(name: string): string[] {
  if (!/[*?[{]/.test(name)) return [];
  let source = "";
  for (const ch of name) {
    if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else if (ch === "{" || ch === "}" || ch === "[" || ch === "]")
      return SECRET_NAMES.filter((n) => !n.startsWith(".") || name.startsWith("."));
    else source += ch.replace(/[.+^$()|\\]/g, "\\$&");
  }
  const re = new RegExp(`^${source}$`);
  return SECRET_NAMES.filter((n) => re.test(n) && (!n.startsWith(".") || name.startsWith(".")));
}

function addedText(part: ToolPart, path: string, exists: boolean, resolved: ResolvedContext): string | undefined {
  if (part.content === undefined) return undefined;
  if (part.kind === "edit" && part.old !== undefined) return addedLines(part.content, part.old);
  if (part.kind === "write" && exists) {
    const before = resolved.read(path);
    if (before !== undefined) return addedLines(part.content, before);
  }
  return part.content;
}

/** The URL as written and as the WHATWG parser normalises it (0xa9fea9fe and 2852039166 are 169.254.169.254). */
export function urlForms(url: string): string[] {
  const forms = [url];
  try {
    const href = new URL(url).href;
    if (href !== url) forms.push(href);
  } catch {
    // not a URL a fetch tool can open; the raw text is all there is
  }
  return forms;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/**
 * Whether a URL carries a credential out: a token of a known shape or a secret-named value (what
 * redact() would hide), a private key, or a long encoded blob (a file's content, base64 or hex).
 */
/** Query parameters that page through results: named like tokens, they carry none of the caller's. */
const PAGING_PARAM = /^(next_?)?(page|continuation|sync|resume|cursor)_?token$|^next_?token$/i;

export function urlCarriesSecret(url: string): boolean {
  let shown = url;
  try {
    const parsed = new URL(url);
    for (const name of [...parsed.searchParams.keys()]) if (PAGING_PARAM.test(name)) parsed.searchParams.delete(name);
    shown = parsed.href;
  } catch {
    // not a URL: judged as written
  }
  const text = decoded(shown);
  if (redact(text) !== text) return true;
  if (/PRIVATE KEY/i.test(text)) return true;
  let query = "";
  try {
    const parsed = new URL(url);
    query = `${parsed.pathname} ${parsed.search} ${parsed.hash}`;
  } catch {
    query = url;
  }
  return /[A-Za-z0-9+/_-]{120,}={0,2}/.test(query) || /\b[0-9a-f]{96,}\b/i.test(query);
}

export function partFacts(part: ToolPart, resolved: ResolvedContext): PartFacts {
  if (part.path === undefined) {
    const url = part.url !== undefined ? { urlForms: urlForms(part.url), carriesSecret: urlCarriesSecret(part.url) } : {};
    return { forms: [], ...url, ...(part.content !== undefined ? { added: part.content } : {}) };
  }
  const { base, probe, realpath } = resolved;
  const written = absolutePath(part.path, base);
  const path = realpath(written);
  const exists = probe.exists(path);
  const tracked = probe.tracked(path, base.projectRoot);
  const classed = classifyAbsolute(path, base);
  const cls = classed !== "vcs" && inGitDir(path) ? "vcs" : classed;
  let change: Change | undefined;
  if (part.kind === "write") change = exists ? "modify" : "create";
  else if (part.kind === "edit") change = exists ? "modify" : "create";
  else if (part.kind === "delete") change = "delete";
  const forms = pathForms(path, base);
  // A link is judged where it points, and also by the name it was written with (.git/hooks/x -> elsewhere).
  if (written !== path) forms.push(...pathForms(written, base));
  const added = addedText(part, path, exists, resolved);
  const name = posix.basename(path);
  const globNames = part.kind === "read" ? globSecretNames(name) : [];
  return {
    path,
    ...(written !== path ? { written } : {}),
    cls,
    exists,
    tracked,
    ...(change ? { change } : {}),
    forms,
    name,
    ...(globNames.length > 0 ? { globNames } : {}),
    ...(added !== undefined ? { added } : {}),
  };
}
