/**
 * How many times in a row verdict has asked a host to continue a session's turn. Each hook is a new
 * process, so the count lives in a small file per host and session under the state directory. It is reset
 * whenever the host says it is not already continuing (stop_hook_active false).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// node:os is loaded only when HOME is unset: it costs about 0.4 M instructions at every start.
export function stateDir(env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || (require("node:os") as typeof import("node:os")).homedir(), ".local", "state"), "verdict");
}

function fileFor(dir: string, host: string, sessionId: string): string {
  const key = new Bun.CryptoHasher("sha256").update(`${host}\0${sessionId}`).digest("hex").slice(0, 32);
  return join(dir, "continues", `${key}.json`);
}

export type ContinueState = { count: number; /** the final message verdict answered last time */ final?: string };

export function readContinueState(dir: string, host: string, sessionId: string | undefined): ContinueState {
  if (!sessionId) return { count: 0 };
  try {
    const value = JSON.parse(readFileSync(fileFor(dir, host, sessionId), "utf8"));
    const count = Number.isInteger(value?.count) && value.count >= 0 ? value.count : 0;
    return typeof value?.final === "string" ? { count, final: value.final } : { count };
  } catch {
    return { count: 0 };
  }
}

export function readContinues(dir: string, host: string, sessionId: string | undefined): number {
  return readContinueState(dir, host, sessionId).count;
}

export function writeContinues(dir: string, host: string, sessionId: string | undefined, count: number, final?: string): void {
  if (!sessionId) return;
  const file = fileFor(dir, host, sessionId);
  try {
    if (count === 0) {
      rmSync(file, { force: true });
      return;
    }
    mkdirSync(join(dir, "continues"), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ count, at: new Date().toISOString(), ...(final !== undefined ? { final } : {}) }));
    renameSync(temp, file);
  } catch {
    // a count that cannot be kept only weakens the cap, and the host has its own
  }
}
