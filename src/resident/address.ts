/**
 * Where a resident judge listens, and whether one may be used at all.
 *
 * A resident judge is one verdict process that stays up between hooks (src/resident/serve.ts), so a hook
 * only has to hand it the payload (src/resident/client.ts) instead of starting the rule engine afresh.
 * It must judge exactly as the hook's own process would, so its socket's name is a digest of everything
 * a hook process brings with it that the judgment may depend on:
 * - the build (VERDICT_BUILD: a digest of the sources build.ts compiled, so a rebuilt or upgraded
 *   verdict never talks to an older judge) and the executable's path;
 * - the whole environment (the mode, the model's address and key, HOME and the XDG folders, anything
 *   else a judgment reads), the user and the umask.
 * A hook whose process differs in any of these finds no judge at that name and judges in its own process.
 * What comes with each request instead: the host, the working directory and the payload. The policy's
 * layers are looked up on disk at every request, as a hook does.
 *
 * The socket lives in verdict's state folder (private to the user, created 0700 and checked by the
 * judge before it listens), never in a shared temporary folder, where another account could listen first.
 * Where that path is too long for a socket (a deep HOME), in $XDG_RUNTIME_DIR/verdict (the user's own,
 * 0700, made by the system's login) when there is one; else there is no resident judge.
 */
import { join } from "node:path";
import { stateDir, type Env } from "../files/dirs.ts";

declare const VERDICT_BUILD: string | undefined;

/** The build's digest; a run from source (tests, `bun src/cli/main.ts`) has none and never goes resident. */
export const BUILD: string | undefined = typeof VERDICT_BUILD === "string" ? VERDICT_BUILD : undefined;

/** How long a judge waits for its next request before it ends (VERDICT_RESIDENT_IDLE overrides). */
export const DEFAULT_IDLE_MS = 15 * 60_000;

/** A socket's path must fit sockaddr_un's sun_path (104 bytes on macOS, 108 on Linux), NUL included. */
const MAX_SOCKET_PATH = 103;

export type Address = { dir: string; key: string; socket: string };

export type ProcessFacts = { env: Env; execPath: string; uid: number; umask: number; platform: string; build: string | undefined };

export function processFacts(): ProcessFacts {
  return {
    env: process.env,
    execPath: process.execPath,
    uid: process.getuid?.() ?? -1,
    umask: process.umask(),
    platform: process.platform,
    build: BUILD,
  };
}

/** Whether VERDICT_RESIDENT switches the resident judge off (off, 0, false, no). */
function residentOff(env: Env): boolean {
  return /^(off|0|false|no)$/i.test(env.VERDICT_RESIDENT ?? "");
}

/** The resident judge's folder for this user: inside the state folder, so a test's HOME keeps its own. */
export function residentDir(env: Env): string {
  return join(stateDir(env), "resident");
}

/** The folder for a state folder too deep for a socket's path: the user's runtime folder, if any. */
export function runtimeResidentDir(env: Env): string | undefined {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime && runtime.startsWith("/") ? join(runtime, "verdict") : undefined;
}

/**
 * The address of the judge for a process like this one, or why there is none: switched off, a run from
 * source, Windows (no Unix sockets with the same guarantees), a path too long for a socket.
 */
export function residentAddress(facts: ProcessFacts): Address | { off: string } {
  if (residentOff(facts.env)) return { off: "VERDICT_RESIDENT switches it off" };
  // install's and doctor's round trips (hosts/roundtrip.ts): a check leaves no judge behind.
  if (facts.env.VERDICT_SELF_TEST === "1") return { off: "verdict's own check (VERDICT_SELF_TEST)" };
  if (!facts.build) return { off: "verdict runs from source, not from a build" };
  if (facts.platform === "win32") return { off: "not on Windows" };
  let dir: string;
  try {
    dir = residentDir(facts.env);
  } catch (error) {
    return { off: (error as Error).message };
  }
  const key = processKey(facts);
  const fits = (folder: string) => Buffer.byteLength(join(folder, `${key}.sock`)) <= MAX_SOCKET_PATH;
  if (!fits(dir)) {
    const runtime = runtimeResidentDir(facts.env);
    if (!runtime || !fits(runtime)) return { off: `the state folder's path is too long for a socket (${join(dir, `${key}.sock`)})` };
    dir = runtime;
  }
  return { dir, key, socket: join(dir, `${key}.sock`) };
}

/**
 * What a shell sets for itself, differently from one start to the next (`_` is the path of the program it
 * starts, so a judge started through `setsid` or `nohup` would see another), and no judgment reads: the
 * rule engine takes $PWD from the hook's working directory, not from the variable.
 */
const SHELL_BOOKKEEPING = new Set(["_", "PWD", "OLDPWD", "SHLVL"]);

/**
 * The digest naming a judge: everything about the hook's process that a judgment may depend on. Each
 * variable is hashed on its own and the hashes added, so the order the host lists them in does not
 * matter, with no sort (wyhash, twice with other seeds: 128 bits; it names, it does not guard: the
 * folder's permissions do).
 */
export function processKey(facts: ProcessFacts): string {
  const head = `${facts.build}\0${facts.execPath}\0${facts.uid}\0${facts.umask}`;
  let low = Bun.hash.wyhash(head, 1n);
  let high = Bun.hash.wyhash(head, 2n);
  for (const name in facts.env) {
    if (SHELL_BOOKKEEPING.has(name)) continue;
    const entry = `${name}=${facts.env[name] ?? ""}`;
    low += Bun.hash.wyhash(entry, 1n);
    high += Bun.hash.wyhash(entry, 2n);
  }
  const hex = (n: bigint) => BigInt.asUintN(64, n).toString(16).padStart(16, "0");
  return `${hex(high).slice(0, 4)}${hex(low)}`;
}
