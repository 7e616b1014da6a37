/**
 * How many times in a row verdict has asked a host to continue a session's turn. Each hook is a new
 * process, so the count lives in a small file per host and session under the state directory. It is reset
 * whenever the host says it is not already continuing (stop_hook_active false).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { readPrivate, writePrivateAtomic } from "../files/private.ts";

function fileFor(dir: string, host: string, sessionId: string): string {
  const key = new Bun.CryptoHasher("sha256").update(`${host}\0${sessionId}`).digest("hex").slice(0, 32);
  return join(dir, "continues", `${key}.json`);
}

/**
 * The count, and which final message verdict answered last time: its length and digest, never its text
 * (a final message can hold a secret, and this file outlives the session).
 */
type ContinueState = { count: number; final?: { length: number; digest: string } };

const digestOf = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export function readContinueState(dir: string, host: string, sessionId: string | undefined): ContinueState {
  if (!sessionId) return { count: 0 };
  try {
    const value = JSON.parse(readPrivate(fileFor(dir, host, sessionId), 64 * 1024)?.toString("utf8") ?? "");
    const count = Number.isInteger(value?.count) && value.count >= 0 ? value.count : 0;
    const final = value?.final;
    return Number.isInteger(final?.length) && typeof final?.digest === "string"
      ? { count, final: { length: final.length, digest: final.digest } }
      : { count };
  } catch {
    return { count: 0 };
  }
}

/** What is new in `final` after the message answered last time, when `final` repeats it first (Gemini CLI). */
export function afterPrevious(final: string, state: ContinueState): string {
  const previous = state.final;
  if (!previous || final.length <= previous.length || digestOf(final.slice(0, previous.length)) !== previous.digest) return final;
  return final.slice(previous.length).replace(/^\n/, "");
}

export function writeContinues(dir: string, host: string, sessionId: string | undefined, count: number, final?: string): void {
  if (!sessionId) return;
  const file = fileFor(dir, host, sessionId);
  try {
    if (count === 0) {
      rmSync(file, { force: true });
      return;
    }
    const record = {
      count,
      at: new Date().toISOString(),
      ...(final !== undefined ? { final: { length: final.length, digest: digestOf(final) } } : {}),
    };
    writePrivateAtomic(file, JSON.stringify(record));
  } catch {
    // a count that cannot be kept only weakens the cap, and the host has its own
  }
}
