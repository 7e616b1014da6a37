/**
 * A lock file beside the journal, taken with O_CREAT|O_EXCL, so appends from
 * concurrent processes are serialised on every platform Bun runs on. A lock
 * left by a process that died is recovered: on this host when its process is
 * gone, on any host once it is older than STALE_AFTER_MS. Recovery itself
 * runs under a second, short-lived lock, so two processes never both remove
 * a lock and one of them a fresh one.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";

/** A holder keeps the lock for one read and one append: milliseconds. Older than this, it is stale. */
export const STALE_AFTER_MS = 30_000;
/** How long a process waits for the lock before it gives up. */
export const WAIT_AT_MOST_MS = 20_000;

export class LockTimeout extends Error {
  constructor(readonly path: string) {
    super(`cannot take the journal lock ${path}: another process holds it (remove it if no verdict is running)`);
    this.name = "LockTimeout";
  }
}

type Holder = { pid: number; host: string; token: string; at: string };

function tryCreate(path: string, holder: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new Error(`cannot create the lock ${path}: ${(error as Error).message}`);
  }
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): { holder?: Holder; ageMs: number } | undefined {
  try {
    const ageMs = Date.now() - statSync(path).mtimeMs;
    const text = readFileSync(path, "utf8");
    try {
      return { holder: JSON.parse(text) as Holder, ageMs };
    } catch {
      return { ageMs };
    }
  } catch {
    return undefined; // gone already
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(seen: { holder?: Holder; ageMs: number }): boolean {
  if (seen.ageMs > STALE_AFTER_MS) return true;
  if (!seen.holder) return seen.ageMs > 2_000; // created but never written: its creator died at once
  return seen.holder.host === hostname() && seen.holder.pid !== process.pid && !alive(seen.holder.pid);
}

/** Removes the lock at `path` if it is still the stale one seen, under the recovery lock. */
function recover(path: string, seen: { holder?: Holder; ageMs: number }): void {
  const breaker = `${path}.recover`;
  const me: Holder = { pid: process.pid, host: hostname(), token: crypto.randomUUID(), at: new Date().toISOString() };
  if (!tryCreate(breaker, me)) {
    const other = readHolder(breaker);
    if (other && isStale(other)) {
      try {
        unlinkSync(breaker);
      } catch {
        // someone else removed it
      }
    }
    return;
  }
  try {
    const now = readHolder(path);
    const same = now && (now.holder?.token ?? "") === (seen.holder?.token ?? "") && isStale(now);
    if (same) unlinkSync(path);
  } catch {
    // removed meanwhile
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      // already gone
    }
  }
}

/** Runs `fn` holding the lock at `path`. */
export function withLock<T>(path: string, fn: () => T, waitAtMostMs = WAIT_AT_MOST_MS): T {
  const me: Holder = { pid: process.pid, host: hostname(), token: crypto.randomUUID(), at: new Date().toISOString() };
  const deadline = Date.now() + waitAtMostMs;
  let pause = 1;
  while (!tryCreate(path, me)) {
    const seen = readHolder(path);
    if (seen && isStale(seen)) {
      recover(path, seen);
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeout(path);
    Bun.sleepSync(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 25);
  }
  try {
    return fn();
  } finally {
    const now = readHolder(path);
    if (now?.holder?.token === me.token) {
      try {
        unlinkSync(path);
      } catch {
        // gone: nothing to release
      }
    }
  }
}
