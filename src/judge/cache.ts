/**
 * Identical judgments are not paid for twice. Each hook is a new process, so
 * the cache is on disk: one file per judgment under
 * `$XDG_CACHE_HOME/verdict/answers/` (default `~/.cache/verdict/answers/`),
 * named by the SHA-256 of its key: the subject's redacted text, the working
 * directory's kind, the policy digest, the provider and the model.
 *
 * Safe under concurrent writers without a lock: an entry is written whole to
 * a temporary file of its own and renamed into place, and rename(2) replaces
 * atomically, so a reader sees the old entry, the new one, or none, never
 * half of one. Two processes writing the same key write the same answers;
 * the last rename wins. Pruning only unlinks, and a reader that loses a race
 * with it sees a miss. Only answers are cached, never failures; an entry
 * holds no secret because its text was redacted before it was keyed.
 */
import { closeSync, readdirSync, renameSync, statSync, unlinkSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { cacheDir as verdictCacheDir, homeDir } from "../files/dirs.ts";
import { createPrivateExclusive, ensurePrivateDir, readPrivate, writeAll } from "../files/private.ts";
import type { ModelAnswer, Usage } from "../core/questions.ts";

/** node:os, loaded only when HOME or TMPDIR is unset: it costs about 0.4 M instructions at every start. */
const os = () => require("node:os") as typeof import("node:os");

export type Env = Record<string, string | undefined>;

export type CacheLimits = { maxEntries: number; maxAgeMs: number };

export type CacheEntry = {
  key: string;
  storedAt: number;
  provider: string;
  model: string;
  answers: Record<string, ModelAnswer>;
  usage?: Usage;
  requestIds: string[];
  note?: string;
};

/** Temporary files older than this are left over from a crashed writer. */
const STALE_TEMP_MS = 60_000;

export function cacheDir(env: Env): string {
  return join(verdictCacheDir(env), "answers");
}

/**
 * What kind of place a command runs in, for the cache key: the answers to
 * `rm -rf build` at a project's root and in the home directory differ, but
 * not between two projects.
 */
export function cwdKind(cwd: string, projectRoot: string | undefined, env: Env): string {
  const dir = resolve(cwd);
  const inside = (root: string) => {
    const rel = relative(resolve(root), dir);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  };
  const home = homeDir(env);
  if (dir === "/") return "root";
  if (projectRoot && inside(projectRoot)) return resolve(projectRoot) === dir ? "project-root" : "in-project";
  if (dir === resolve(home)) return "home";
  const temps = ["/tmp", "/var/tmp", env.TMPDIR || os().tmpdir()];
  if (temps.some((temp) => inside(temp))) return "temp";
  if (inside(home)) return "in-home";
  if (/^\/(etc|usr|bin|sbin|lib|lib32|lib64|boot|var|opt|sys|proc|dev|srv|System|Library|Applications|private)(\/|$)/.test(dir))
    return "system";
  return "other";
}

type KeyParts = {
  subject: "command" | "turn";
  /** The redacted text the model is shown (a command, or the requests and final message). */
  text: string;
  cwdKind?: string;
  policyDigest: string;
  provider: string;
  model: string;
  endpoint: string;
};

export function cacheKey(parts: KeyParts): string {
  return new Bun.CryptoHasher("sha256")
    .update(
      JSON.stringify([parts.subject, parts.text, parts.cwdKind ?? "", parts.policyDigest, parts.provider, parts.model, parts.endpoint]),
    )
    .digest("hex");
}

function entryPath(dir: string, key: string): string {
  return join(dir, `${key.slice(0, 40)}.json`);
}

/** The cached answers for a key, unless absent, unreadable, another key's, or older than max age. */
export function readCached(dir: string, key: string, limits: CacheLimits, now = Date.now()): CacheEntry | undefined {
  if (limits.maxEntries <= 0) return undefined;
  try {
    const entry = JSON.parse(readPrivate(entryPath(dir, key), 16 * 1024 * 1024)?.toString("utf8") ?? "") as CacheEntry;
    if (entry.key !== key || typeof entry.storedAt !== "number" || now - entry.storedAt > limits.maxAgeMs) return undefined;
    if (typeof entry.answers !== "object" || entry.answers === null) return undefined;
    return entry;
  } catch {
    return undefined;
  }
}

/** Stores an entry atomically (temporary file, then rename) and prunes when over the bound. Never throws. */
export function writeCached(dir: string, entry: CacheEntry, limits: CacheLimits): void {
  if (limits.maxEntries <= 0) return;
  try {
    ensurePrivateDir(dir);
    const temp = join(dir, `.${entry.key.slice(0, 16)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    const fd = createPrivateExclusive(temp);
    try {
      writeAll(fd, Buffer.from(JSON.stringify(entry), "utf8"));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, entryPath(dir, entry.key));
    pruneCache(dir, limits);
  } catch {
    // A cache that cannot be written costs a model call next time, nothing more.
  }
}

/**
 * Keeps the cache within its bounds: entries past max age go, then the
 * oldest until at most max entries remain; temporary files left by a
 * crashed writer go too. Reads the directory only when it may be over the
 * bound or every few writes, so the usual write stays cheap.
 */
export function pruneCache(dir: string, limits: CacheLimits, now = Date.now(), force = false): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const entries = names.filter((name) => name.endsWith(".json"));
  if (!force && entries.length <= limits.maxEntries && Math.random() > 0.05) return 0;
  let removed = 0;
  const remove = (name: string) => {
    try {
      unlinkSync(join(dir, name));
      removed += 1;
    } catch {
      // Another process pruned it first.
    }
  };
  const kept: { name: string; mtime: number }[] = [];
  for (const name of names) {
    let mtime: number;
    try {
      mtime = statSync(join(dir, name)).mtimeMs;
    } catch {
      continue;
    }
    if (name.endsWith(".tmp")) {
      if (now - mtime > STALE_TEMP_MS) remove(name);
    } else if (name.endsWith(".json")) {
      if (now - mtime > limits.maxAgeMs) remove(name);
      else kept.push({ name, mtime });
    }
  }
  if (kept.length > limits.maxEntries) {
    kept.sort((a, b) => a.mtime - b.mtime);
    for (const { name } of kept.slice(0, kept.length - limits.maxEntries)) remove(name);
  }
  return removed;
}
