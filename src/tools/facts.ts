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
export function addedLines(next: string, before: string): string {
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

export type ResolvedContext = { base: PathContext; probe: Probe; realpath: (path: string) => string; read: (path: string) => string | undefined };

export function resolveContext(context: ToolContext): ResolvedContext {
  const home = (context.home ?? process.env.HOME ?? require("node:os").homedir()).replace(/(.)\/+$/, "$1");
  const realpath = context.realpath ?? realPath;
  const root = context.projectRoot ?? context.cwd;
  const projectRoot = usableProjectRoot(root.startsWith("/") ? realpath(posix.normalize(root)) : undefined, realpath(home)) ?? usableProjectRoot(root, home);
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

/** The absolute path a tool path stands for: ~ expanded, relative paths from the working directory. */
export function absolutePath(path: string, ctx: PathContext): string {
  let text = path;
  if (text === "~" || text.startsWith("~/")) text = ctx.home + text.slice(1);
  if (text.startsWith("file://")) text = decodeURIComponent(text.slice(7));
  if (!text.startsWith("/")) text = `${ctx.cwd ?? ctx.projectRoot ?? "/"}/${text}`;
  const normal = posix.normalize(text);
  return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}

/** The forms a path pattern is tried on. */
export function pathForms(path: string, ctx: PathContext): string[] {
  const forms = [path];
  if (ctx.projectRoot && inside(path, ctx.projectRoot) && path !== ctx.projectRoot) forms.push(path.slice(ctx.projectRoot.length + 1));
  if (ctx.home !== "/" && inside(path, ctx.home)) forms.push(path === ctx.home ? "~" : `~/${path.slice(ctx.home.length + 1)}`);
  return forms;
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

export function partFacts(part: ToolPart, resolved: ResolvedContext): PartFacts {
  if (part.path === undefined) return { forms: [], ...(part.content !== undefined ? { added: part.content } : {}) };
  const { base, probe, realpath } = resolved;
  const written = absolutePath(part.path, base);
  const path = realpath(written);
  const exists = probe.exists(path);
  const tracked = probe.tracked(path, base.projectRoot);
  const cls = classifyAbsolute(path, base);
  let change: Change | undefined;
  if (part.kind === "write") change = exists ? "modify" : "create";
  else if (part.kind === "edit") change = exists ? "modify" : "create";
  else if (part.kind === "delete") change = "delete";
  const forms = pathForms(path, base);
  // A link is judged where it points, and also by the name it was written with (.git/hooks/x -> elsewhere).
  if (written !== path) forms.push(...pathForms(written, base));
  const added = addedText(part, path, exists, resolved);
  return { path, ...(written !== path ? { written } : {}), cls, exists, tracked, ...(change ? { change } : {}), forms, name: posix.basename(path), ...(added !== undefined ? { added } : {}) };
}
