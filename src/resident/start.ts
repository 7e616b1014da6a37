/**
 * Starting a resident judge, from a hook that found none, after it has answered.
 *
 * Only for a process seen before: a hook whose environment differs at every call (a variable the host
 * sets afresh each time) would otherwise leave a judge behind at every call. The folder keeps the last
 * few keys seen, and when a judge was last started for each, so a judge that cannot start (a folder
 * where sockets cannot live) is tried at most once a minute, not at every hook.
 */
import { join } from "node:path";
import { ensurePrivateDir, readPrivate, writePrivateAtomic } from "../files/private.ts";
import type { Address } from "./address.ts";

const KEPT_KEYS = 16;
const SEEN_WITHIN_MS = 24 * 3600_000;
const RESTART_AFTER_MS = 60_000;

type Seen = { key: string; seen: number; started: number };

export function parseSeen(text: string): Seen[] {
  return text
    .split("\n")
    .map((line) => line.split(" "))
    .filter((parts) => parts.length === 3 && /^[0-9a-f]{8,64}$/.test(parts[0]!))
    .map(([key, seen, started]) => ({ key: key!, seen: Number(seen) || 0, started: Number(started) || 0 }));
}

/** Whether to start a judge for `key` now, and the record to keep afterwards. */
export function decideStart(seen: Seen[], key: string, now: number): { start: boolean; next: Seen[] } {
  const known = seen.find((entry) => entry.key === key);
  const start = !!known && now - known.seen < SEEN_WITHIN_MS && (known.started === 0 || now - known.started >= RESTART_AFTER_MS);
  const entry = { key, seen: now, started: start ? now : (known?.started ?? 0) };
  const next = [entry, ...seen.filter((other) => other.key !== key)].slice(0, KEPT_KEYS);
  return { start, next };
}

/** Starts `verdict resident serve` for this process's address when it is due; best effort, silent. */
export function startResident(address: Address): boolean {
  const file = join(address.dir, "seen");
  try {
    // verdict's folder rules (files/private.ts): a real folder of the user's, 0700, never through a link.
    ensurePrivateDir(address.dir);
    const { start, next } = decideStart(parseSeen(readPrivate(file, 64 * 1024)?.toString("utf8") ?? ""), address.key, Date.now());
    // Without the record, starting could repeat at every hook: no record, no start.
    writePrivateAtomic(file, next.map((entry) => `${entry.key} ${entry.seen} ${entry.started}`).join("\n") + "\n");
    if (!start) return false;
  } catch {
    return false;
  }
  const { spawn } = require("node:child_process") as typeof import("node:child_process");
  // Its own session (not the host's process group), nothing inherited but the environment, which is
  // what its address is a digest of; its folder as working directory, never the project's.
  const child = spawn(process.execPath, ["resident", "serve"], { detached: true, stdio: "ignore", env: process.env, cwd: address.dir });
  child.on("error", () => {});
  child.unref();
  return true;
}
