/**
 * Where verdict's own files are: the one place that says so.
 *
 *   state   $XDG_STATE_HOME/verdict   (~/.local/state/verdict): decision log, approvals journal, continues, runs
 *   config  $XDG_CONFIG_HOME/verdict  (~/.config/verdict): the user policy, trusted.json
 *   cache   $XDG_CACHE_HOME/verdict   (~/.cache/verdict): the model's answers
 *
 * None of it may depend on the repository a hook runs in. The XDG rules are followed: a relative
 * XDG_*_HOME is ignored. HOME is used only when it is an absolute path; unset or relative (`env -i`, a
 * hostile environment), the account's home comes from the system's user database (getpwuid through
 * os.userInfo), never the working directory: otherwise a repository could ship
 * `./.config/verdict/policy.yaml` and be read as the user's own layer.
 */
import { isAbsolute, join } from "node:path";

export type Env = Record<string, string | undefined>;

class NoHomeError extends Error {
  constructor() {
    super(
      "cannot find your home directory: HOME is unset or relative and the system has no home for this account; set HOME to an absolute path",
    );
    this.name = "NoHomeError";
  }
}

let accountHome: string | undefined;

/** The account's home from the user database (not $HOME). Cached: it cannot change while verdict runs. */
function homeFromSystem(): string {
  if (accountHome !== undefined) return accountHome;
  // node:os only here: loading it costs about 0.4 M instructions at every start, and HOME is usually set.
  const os = require("node:os") as typeof import("node:os");
  let home = "";
  try {
    home = os.userInfo().homedir;
  } catch {
    home = "";
  }
  if (!home || !isAbsolute(home)) throw new NoHomeError();
  accountHome = home;
  return home;
}

/** The user's home: $HOME when absolute, else the account's home from the system. */
export function homeDir(env: Env = process.env): string {
  const home = env.HOME;
  if (home && isAbsolute(home)) return home;
  if (process.platform === "win32" && env.USERPROFILE && isAbsolute(env.USERPROFILE)) return env.USERPROFILE;
  return homeFromSystem();
}

function xdg(env: Env, name: string, fallback: string[]): string {
  const value = env[name];
  return join(value && isAbsolute(value) ? value : join(homeDir(env), ...fallback), "verdict");
}

/** verdict's state: logs, the approvals journal, continue counts, task evidence. */
export function stateDir(env: Env = process.env): string {
  return xdg(env, "XDG_STATE_HOME", [".local", "state"]);
}

/** verdict's configuration: the user policy layer and the trust store. */
export function configDir(env: Env = process.env): string {
  return xdg(env, "XDG_CONFIG_HOME", [".config"]);
}

/** verdict's cache: the model's answers. */
export function cacheDir(env: Env = process.env): string {
  return xdg(env, "XDG_CACHE_HOME", [".cache"]);
}
