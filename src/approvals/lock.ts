/**
 * A lock file beside the journal, so appends from concurrent processes are serialised on every
 * platform Bun runs on.
 *
 * The lock is published whole: its holder record (pid, the process's start time, host, a random
 * token) is written to a private temporary file first and then hard-linked to the lock's name, which
 * the kernel does atomically and refuses when the name exists. So a lock never exists without saying
 * who holds it, and a holder killed at any moment leaves a lock that names a dead process.
 *
 * A lock whose holder is dead is taken over at once: on this host when its pid is gone, or is now a
 * different process (the start time differs: the pid was reused); on any host once it is older than
 * STALE_AFTER_MS. Recovery runs under a second, short-lived lock, so two processes never both remove
 * a lock and one of them a fresh one. Contention waits, within the caller's budget.
 */
import { closeSync, linkSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { hostname } from "node:os";
import { createPrivateExclusive, writeAll } from "../files/private.ts";

/** A holder keeps the lock for one read and one append: milliseconds. Older than this, it is stale. */
const STALE_AFTER_MS = 30_000;
/** How long a process waits for the lock before it gives up, unless the caller gives its own budget. */
const WAIT_AT_MOST_MS = 20_000;

class LockTimeout extends Error {
  constructor(
    readonly path: string,
    waitedMs: number,
    holder?: Holder,
  ) {
    super(
      `cannot take the journal lock ${path} within ${waitedMs} ms: ${holder ? `process ${holder.pid} on ${holder.host} holds it and is alive` : "another process holds it"} (it is taken over at once when that process dies)`,
    );
    this.name = "LockTimeout";
  }
}

type Holder = {
  pid: number;
  host: string;
  token: string;
  at: string /** the holder's start time, where the system says */;
  start?: string;
};

/** When process `pid` started, in clock ticks since boot (Linux /proc), to tell a reused pid apart. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

let myStart: string | undefined | null = null;
function me(): Holder {
  if (myStart === null) myStart = processStart(process.pid);
  return {
    pid: process.pid,
    host: hostname(),
    token: crypto.randomUUID(),
    at: new Date().toISOString(),
    ...(myStart ? { start: myStart } : {}),
  };
}

/** Publishes `holder` at `path` atomically; false when the lock is held. */
function tryCreate(path: string, holder: Holder): boolean {
  const temporary = `${path}.${holder.token}.tmp`;
  let fd: number;
  try {
    fd = createPrivateExclusive(temporary);
  } catch (error) {
    throw new Error(`cannot create the lock ${path}: ${(error as Error).message}`);
  }
  try {
    writeAll(fd, Buffer.from(JSON.stringify(holder), "utf8"));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new Error(`cannot create the lock ${path}: ${(error as Error).message}`);
  } finally {
    try {
      unlinkSync(temporary);
    } catch {}
  }
}

type Seen = { holder?: Holder; ageMs: number };

function readHolder(path: string): Seen | undefined {
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

function alive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // The pid is in use: by the holder, unless it was reused by a process that started later.
  if (holder.start === undefined) return true;
  const now = processStart(holder.pid);
  return now === undefined || now === holder.start;
}

function isStale(seen: Seen): boolean {
  if (seen.ageMs > STALE_AFTER_MS) return true;
  // Published whole, a lock always names its holder; one that does not was left by an older verdict.
  if (!seen.holder) return seen.ageMs > 2_000;
  return seen.holder.host === hostname() && seen.holder.pid !== process.pid && !alive(seen.holder);
}

/** Removes the lock at `path` if it is still the stale one seen, under the recovery lock. */
function recover(path: string, seen: Seen): void {
  const breaker = `${path}.recover`;
  if (!tryCreate(breaker, me())) {
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

/** Runs `fn` holding the lock at `path`, waiting at most `waitAtMostMs` for it. */
export function withLock<T>(path: string, fn: () => T, waitAtMostMs = WAIT_AT_MOST_MS): T {
  const holder = me();
  const started = Date.now();
  const deadline = started + Math.max(0, waitAtMostMs);
  let pause = 1;
  let last: Seen | undefined;
  while (!tryCreate(path, holder)) {
    last = readHolder(path);
    if (last && isStale(last)) {
      recover(path, last);
      continue;
    }
    if (Date.now() >= deadline) throw new LockTimeout(path, Date.now() - started, last?.holder);
    Bun.sleepSync(Math.min(pause + Math.random() * pause, Math.max(1, deadline - Date.now())));
    pause = Math.min(pause * 2, 20);
  }
  try {
    return fn();
  } finally {
    const now = readHolder(path);
    if (now?.holder?.token === holder.token) {
      try {
        unlinkSync(path);
      } catch {
        // gone: nothing to release
      }
    }
  }
}
