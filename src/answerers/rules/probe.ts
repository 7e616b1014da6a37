/**
 * The little the engine looks up on disk: whether a redirect's target file
 * exists, and whether git tracks it (read from the repository's index, with
 * no git process started). The index is read once a judgment: forgetProbes() starts the next one afresh
 * (a resident judge serves many, and the index changes between them).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
import type { Probe } from "./match.ts";

const indexes = new Map<string, { data: Buffer; root: string } | undefined>();

/** Forget what was read from disk: the next judgment reads it again. */
export function forgetProbes(): void {
  indexes.clear();
  reals.clear();
}

/** The git index of the repository at `root` (a worktree's .git file is followed). */
function gitIndex(root: string): { data: Buffer; root: string } | undefined {
  if (indexes.has(root)) return indexes.get(root);
  let found: { data: Buffer; root: string } | undefined;
  try {
    const dotGit = posix.join(root, ".git");
    let gitDir = dotGit;
    if (statSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
      if (m) gitDir = posix.resolve(root, (m[1] as string).trim());
    }
    const index = posix.join(gitDir, "index");
    // A huge index (hundreds of thousands of files) is not worth reading on a hook's hot path.
    if (statSync(index).size <= 64 * 1024 * 1024) found = { data: readFileSync(index), root };
  } catch {
    found = undefined;
  }
  indexes.set(root, found);
  return found;
}

/**
 * Whether the index lists `path`. An entry stores its path NUL-terminated,
 * preceded by a 16-bit flags field whose low 12 bits are the path's length;
 * that pair is looked for. (Index version 4 compresses paths, so there this
 * answers false: the file is treated as untracked, the cautious side.)
 */
export function isTracked(path: string, projectRoot: string | undefined): boolean {
  if (projectRoot === undefined) return false;
  const index = gitIndex(projectRoot);
  if (!index || !path.startsWith(`${index.root}/`)) return false;
  const rel = Buffer.from(`${path.slice(index.root.length + 1)}\0`, "utf8");
  const length = rel.length - 1;
  let at = index.data.indexOf(rel, 12);
  while (at !== -1) {
    const flags = at >= 2 ? index.data.readUInt16BE(at - 2) : -1;
    if ((flags & 0x0fff) === Math.min(length, 0x0fff)) return true;
    // An extended entry (version 3) has 2 more bytes of flags before the path.
    if (
      at >= 4 &&
      (index.data.readUInt16BE(at - 4) & 0x0fff) === Math.min(length, 0x0fff) &&
      (index.data.readUInt16BE(at - 4) & 0x4000) !== 0
    )
      return true;
    at = index.data.indexOf(rel, at + 1);
  }
  return false;
}

const reals = new Map<string, string>();

/** Where an absolute path really leads: symlinks followed; a path that does not exist yet is resolved through its deepest existing folder. */
export function realPath(path: string): string {
  const known = reals.get(path);
  if (known !== undefined) return known;
  let real = path;
  try {
    real = realpathSync.native(path);
  } catch {
    const parent = posix.dirname(path);
    if (parent !== path) real = posix.join(realPath(parent), posix.basename(path));
  }
  reals.set(path, real);
  return real;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export const diskProbe: Probe = {
  exists: (path) => existsSync(path),
  tracked: isTracked,
  realpath: realPath,
  isDirectory,
};

/** For examples: a name with a dot (notes.txt, src/app.ts, .) exists, others (main, feature/x) do not; git tracks nothing. */
export const examplesProbe: Probe = {
  exists: (path) => /(^|\/)[^/]*\.[^/]*$/.test(path) || path === "/home/user/project",
  tracked: () => false,
};
