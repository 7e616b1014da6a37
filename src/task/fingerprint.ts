/**
 * A fingerprint of the working directory: every entry's relative path, type,
 * size, mode and content digest (a link's digest is over its target text).
 * `.git` directories are skipped: version control's own bookkeeping changes
 * under reads too. Walking stops at a cap; `complete` says whether it saw
 * everything. Two fingerprints' difference says what a call added, removed
 * and changed.
 */
import { createHash } from "node:crypto";
import { lstatSync, openSync, readSync, closeSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

type EntryType = "file" | "dir" | "symlink" | "other";

export type Entry = { type: EntryType; size: number; mode: number; digest?: string };

export type Fingerprint = {
  entries: Map<string, Entry>;
  /** False when the cap was reached or an entry could not be read. */
  complete: boolean;
  /** Why it is incomplete, when it is. */
  problems: string[];
};

export type EffectDiff = { added: string[]; removed: string[]; changed: string[]; complete: boolean };

const SKIPPED = new Set([".git"]);
const CHUNK = 1 << 20;

/**
 * Digests of files already hashed in this run, so an unchanged tree is only
 * stat'ed. A cached digest is reused only when the file's inode, size,
 * mtime and ctime are the same and its ctime was at least SETTLED_MS before
 * it was hashed: any later write sets ctime to a later clock tick, so it
 * cannot look unchanged (the "racily clean" case git guards against too).
 */
export class DigestCache {
  private readonly entries = new Map<string, { key: string; digest: string; hashedAt: number }>();
  static readonly SETTLED_MS = 2000;

  lookup(absolute: string, stat: BigIntStatsLike): string | undefined {
    const hit = this.entries.get(absolute);
    if (!hit || hit.key !== statKey(stat)) return undefined;
    return Number(stat.ctimeNs / 1_000_000n) < hit.hashedAt - DigestCache.SETTLED_MS ? hit.digest : undefined;
  }

  store(absolute: string, stat: BigIntStatsLike, digest: string, hashedAt: number): void {
    this.entries.set(absolute, { key: statKey(stat), digest, hashedAt });
  }
}

type BigIntStatsLike = { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint };

function statKey(stat: BigIntStatsLike): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

export function fingerprint(root: string, maxEntries: number, cache?: DigestCache): Fingerprint {
  const entries = new Map<string, Entry>();
  const problems: string[] = [];
  let complete = true;
  const pending: string[] = [""];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = readdirSync(join(root, dir)).sort();
    } catch (error) {
      complete = false;
      problems.push(`cannot list ${dir || "."}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      continue;
    }
    for (const name of names) {
      if (SKIPPED.has(name)) continue;
      if (entries.size >= maxEntries) {
        complete = false;
        problems.push(`stopped at ${maxEntries} entries`);
        return { entries, complete, problems };
      }
      const path = dir ? `${dir}/${name}` : name;
      const entry = readEntry(join(root, path), cache);
      if (!entry) {
        complete = false;
        problems.push(`cannot read ${path}`);
        continue;
      }
      entries.set(path, entry);
      if (entry.type === "dir") pending.push(path);
    }
  }
  return { entries, complete, problems };
}

/** One entry's type, size, mode and digest; undefined when it cannot be read. */
export function readEntry(absolute: string, cache?: DigestCache): Entry | undefined {
  try {
    const stat = lstatSync(absolute, { bigint: true });
    const mode = Number(stat.mode & 0o7777n);
    const size = Number(stat.size);
    if (stat.isSymbolicLink()) return { type: "symlink", size, mode, digest: sha256(readlinkSync(absolute)) };
    if (stat.isDirectory()) return { type: "dir", size: 0, mode };
    if (!stat.isFile()) return { type: "other", size, mode };
    const cached = cache?.lookup(absolute, stat);
    if (cached) return { type: "file", size, mode, digest: cached };
    const hashedAt = Date.now();
    const digest = fileDigest(absolute);
    cache?.store(absolute, stat, digest, hashedAt);
    return { type: "file", size, mode, digest };
  } catch {
    return undefined;
  }
}

export function fileDigest(absolute: string): string {
  const hash = createHash("sha256");
  const fd = openSync(absolute, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read <= 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function sameEntry(a: Entry, b: Entry): boolean {
  return a.type === b.type && a.size === b.size && a.mode === b.mode && a.digest === b.digest;
}

export function diffFingerprints(before: Fingerprint, after: Fingerprint): EffectDiff {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [path, entry] of after.entries) {
    const old = before.entries.get(path);
    if (!old) added.push(path);
    else if (!sameEntry(old, entry)) changed.push(path);
  }
  for (const path of before.entries.keys()) if (!after.entries.has(path)) removed.push(path);
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort(), complete: before.complete && after.complete };
}

export function hasEffects(diff: EffectDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length > 0;
}

export function emptyDiff(): EffectDiff {
  return { added: [], removed: [], changed: [], complete: true };
}

/**
 * Accumulates per-call differences into the run's total, net: a file added
 * then removed is in neither list; one removed then added back is changed.
 */
export function accumulate(total: EffectDiff, diff: EffectDiff): EffectDiff {
  const added = new Set(total.added);
  const removed = new Set(total.removed);
  const changed = new Set(total.changed);
  for (const path of diff.added) {
    if (removed.delete(path)) changed.add(path);
    else added.add(path);
  }
  for (const path of diff.removed) {
    if (added.delete(path)) continue;
    changed.delete(path);
    removed.add(path);
  }
  for (const path of diff.changed) if (!added.has(path)) changed.add(path);
  return {
    added: [...added].sort(),
    removed: [...removed].sort(),
    changed: [...changed].sort(),
    complete: total.complete && diff.complete,
  };
}

/** A digest of a whole fingerprint, to name it in the evidence. */
export function fingerprintDigest(print: Fingerprint): string {
  const hash = createHash("sha256");
  for (const [path, entry] of [...print.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hash.update(`${path}\0${entry.type}\0${entry.size}\0${entry.mode}\0${entry.digest ?? ""}\n`);
  }
  return hash.digest("hex").slice(0, 16);
}

/** The working directory's changes in words, naming at most ten paths per kind. */
export function describeEffects(diff: EffectDiff): string {
  const parts = (["added", "removed", "changed"] as const)
    .filter((key) => diff[key].length > 0)
    .map((key) => {
      const names = diff[key];
      const more = names.length > 10 ? ` and ${names.length - 10} more` : "";
      return `${key} ${names.slice(0, 10).join(", ")}${more}`;
    });
  const text = parts.length === 0 ? "no file changed" : parts.join("; ");
  return diff.complete ? text : `${text} (fingerprint incomplete)`;
}
