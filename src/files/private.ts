/**
 * verdict's own files, opened so that they cannot be turned against the user.
 *
 * A state file is only ever opened with O_NOFOLLOW: if `decisions.jsonl` is a symlink to `~/.bashrc`,
 * the open fails instead of appending to the profile. Every folder verdict keeps files in is checked
 * before use: a real directory (not a symlink), owned by the user, not writable by group or others
 * (a wider one verdict created itself is tightened to 0700; anyone else's is refused). Every file
 * verdict creates is 0600, every folder 0700; an existing file of verdict's with wider modes is
 * tightened when opened.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname } from "node:path";

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export class UnsafePathError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`refusing to use ${path}: ${why}`);
    this.name = "UnsafePathError";
  }
}

const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

/** Checks (and tightens) one existing folder of verdict's; throws UnsafePathError when it cannot be trusted. */
function checkPrivateDir(dir: string): void {
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink())
    throw new UnsafePathError(dir, "it is a symbolic link (verdict's folders must be real folders); remove the link");
  if (!stat.isDirectory()) throw new UnsafePathError(dir, "it is not a folder");
  const me = uid();
  if (me !== undefined && stat.uid !== me) throw new UnsafePathError(dir, `it is owned by uid ${stat.uid}, not by you (uid ${me})`);
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, DIR_MODE);
}

/**
 * Creates `dir` (0700, parents as needed) and checks it, and the folders above it up to verdict's own
 * (`.../verdict`): a link anywhere in verdict's part of the path is refused.
 */
export function ensurePrivateDir(dir: string): void {
  // verdict's part of the path: from its own `verdict` folder (at most a few levels up) down to `dir`.
  const chain = [dir];
  for (let current = dir; chain.length < 5 && basename(current) !== "verdict"; ) {
    const parent = dirname(current);
    if (parent === current || !parent.split("/").includes("verdict")) break;
    chain.unshift(parent);
    current = parent;
  }
  // Every folder there already (each hook after the first): the same checks, without the mkdir calls.
  try {
    for (const folder of chain) checkPrivateDir(folder);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // Above it, the user's own folders (which may well be links, as dotfile managers make them).
  mkdirSync(dirname(chain[0]!), { recursive: true, mode: DIR_MODE });
  // Each of verdict's folders is checked before anything is created inside it, so nothing is ever
  // created through a link.
  for (const folder of chain) {
    try {
      mkdirSync(folder, { mode: DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    checkPrivateDir(folder);
  }
}

/** After an open: a regular file of the user's, tightened to 0600. */
function checkOpened(fd: number, path: string): void {
  const stat = fstatSync(fd);
  if (!stat.isFile()) throw new UnsafePathError(path, "it is not a regular file");
  const me = uid();
  if (me !== undefined && stat.uid !== me) throw new UnsafePathError(path, `it is owned by uid ${stat.uid}, not by you (uid ${me})`);
  if ((stat.mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
}

function opened(path: string, flags: number): number {
  try {
    return openSync(path, flags | NOFOLLOW, FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK")
      throw new UnsafePathError(path, "it is a symbolic link (verdict does not write through links); remove the link");
    throw error;
  }
}

/**
 * Opens a state file for appending (created 0600) in a checked folder. The caller closes it.
 * `dirChecked`: the caller has just run ensurePrivateDir on the file's folder (the decision log).
 */
export function openPrivateAppend(path: string, dirChecked = false): number {
  if (!dirChecked) ensurePrivateDir(dirname(path));
  const fd = opened(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  try {
    checkOpened(fd, path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** Creates a new file exclusively (0600, no link followed); throws EEXIST if it is there. The caller closes it. */
export function createPrivateExclusive(path: string): number {
  return opened(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
}

/** The content of a state file, or undefined when it does not exist; a link or a non-file is refused. */
export function readPrivate(path: string, maxBytes = 64 * 1024 * 1024): Buffer | undefined {
  let fd: number;
  try {
    fd = opened(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnsafePathError(path, "it is not a regular file");
    // One of verdict's own files left wider than 0600 (by an older verdict, a copy) is tightened.
    const me = uid();
    if ((stat.mode & 0o077) !== 0 && (me === undefined || stat.uid === me)) fchmodSync(fd, FILE_MODE);
    if (stat.size > maxBytes) throw new UnsafePathError(path, `it is larger than ${maxBytes} bytes`);
    return readAll(fd, stat.size);
  } finally {
    closeSync(fd);
  }
}

/** Up to `size` bytes of the open file `fd` from its start (fewer if it ends sooner: it may shrink while read). */
export function readAll(fd: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let done = 0;
  while (done < buffer.length) {
    const n = readSync(fd, buffer, done, buffer.length - done, done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

export function writeAll(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

/** Replaces `path` atomically with `data`: a fresh 0600 temporary file in the checked folder, renamed over it. */
export function writePrivateAtomic(path: string, data: string | Uint8Array, options: { sync?: boolean } = {}): void {
  ensurePrivateDir(dirname(path));
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = createPrivateExclusive(temporary);
  try {
    writeAll(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
    if (options.sync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {}
    throw error;
  }
  closeSync(fd);
  // rename(2) replaces a link named `path` itself; it never writes through it.
  renameSync(temporary, path);
}

/**
 * verdict's own files and folders (under `roots`, links not followed, a bounded walk) that others may
 * read or write: what `verdict doctor` reports, with the chmod that fixes each.
 */
export function widerThanPrivate(roots: string[], limit = 2000): { path: string; mode: number; dir: boolean }[] {
  const found: { path: string; mode: number; dir: boolean }[] = [];
  let seen = 0;
  const walk = (path: string, depth: number): void => {
    if (seen++ > limit) return;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) found.push({ path, mode, dir: stat.isDirectory() });
    if (stat.isDirectory() && depth < 3) {
      let names: string[] = [];
      try {
        names = readdirSync(path);
      } catch {}
      for (const name of names) walk(`${path}/${name}`, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return found;
}
