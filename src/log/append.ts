/**
 * Appends one line to a log shared by many processes, and rotates it by size.
 *
 * Every hook is its own process, and several can finish at once, so an
 * append must never interleave with another. Two guarantees stack:
 *
 * 1. A lock file (`<log>.lock`, created with O_CREAT|O_EXCL, which the
 *    kernel makes atomic) is held while the size is checked, the log is
 *    rotated if needed and the line is written. Holders keep it for well
 *    under a millisecond; a lock older than STALE_LOCK_MS is left by a
 *    crashed process and is broken.
 * 2. The line is written with a single write(2) on a descriptor opened with
 *    O_APPEND. On a local filesystem the kernel moves to the end and writes
 *    the whole buffer under the inode's lock, so even two writers that both
 *    believe they hold the lock (one just broke a stale lock) cannot mix
 *    their bytes. PIPE_BUF is about pipes, not files; it does not bound this.
 *    NFS does not give (2); there (1) is what keeps records whole.
 *
 * When the lock cannot be had within WAIT_MS the line is still appended
 * under (2) alone and rotation waits for the next writer: a judgment is
 * never held up or lost for the sake of its log.
 */
import { closeSync, existsSync, renameSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { createPrivateExclusive, ensurePrivateDir, openPrivateAppend, writeAll } from "../files/private.ts";

const STALE_LOCK_MS = 2000;
const WAIT_MS = 300;

type Rotation = { maxBytes: number; keep: number };

function tryLock(lock: string): number | undefined {
  try {
    return createPrivateExclusive(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
    } catch {
      // Released or broken by another process meanwhile.
    }
    return undefined;
  }
}

/** Runs `fn` holding the lock, or without it after WAIT_MS; says which. */
export function withLock<T>(lock: string, fn: (locked: boolean) => T): T {
  const started = Date.now();
  let fd: number | undefined;
  let delay = 1;
  while ((fd = tryLock(lock)) === undefined && Date.now() - started < WAIT_MS) {
    Bun.sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 16);
  }
  if (fd === undefined) return fn(false);
  try {
    return fn(true);
  } finally {
    closeSync(fd);
    try {
      unlinkSync(lock);
    } catch {
      // Broken as stale by another process; nothing to release.
    }
  }
}

/** log -> log.1 -> log.2 ... -> log.<keep>; the oldest falls off. keep 0 empties the log. */
export function rotate(path: string, keep: number): void {
  if (keep <= 0) {
    unlinkSync(path);
    return;
  }
  if (existsSync(`${path}.${keep}`)) unlinkSync(`${path}.${keep}`);
  for (let index = keep - 1; index >= 1; index -= 1) {
    if (existsSync(`${path}.${index}`)) renameSync(`${path}.${index}`, `${path}.${index + 1}`);
  }
  renameSync(path, `${path}.1`);
}

/** Appends `line` (a newline is added) to `path`, rotating first when it would pass maxBytes. */
export function appendLine(path: string, line: string, rotation: Rotation): void {
  ensurePrivateDir(dirname(path));
  // A JSON line has no raw newline; anything else is kept to one line. (`includes` first: a regular
  // expression would be compiled at every hook for nothing.)
  const data = new TextEncoder().encode(`${line.includes("\n") ? line.replaceAll("\n", " ") : line}\n`);
  withLock(`${path}.lock`, (locked) => {
    if (locked) {
      let size = 0;
      try {
        size = statSync(path).size;
      } catch {
        size = 0;
      }
      if (size > 0 && size + data.length > rotation.maxBytes) rotate(path, rotation.keep);
    }
    // Never through a link: a decisions.jsonl that points at ~/.bashrc is refused, not appended to.
    const fd = openPrivateAppend(path, true);
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
  });
}
