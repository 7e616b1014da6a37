/** Where verdict keeps its state: `$XDG_STATE_HOME/verdict/` (default `~/.local/state/verdict/`). */
import { isAbsolute, join } from "node:path";

export type Env = Record<string, string | undefined>;

// node:os is loaded only when HOME is unset: it costs about 0.4 M instructions at every start.
export function stateDir(env: Env = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || (require("node:os") as typeof import("node:os")).homedir(), ".local", "state");
  return join(base, "verdict");
}

/** The decision log; rotated copies sit beside it as decisions.jsonl.1, .2 ... */
export function decisionLogPath(env: Env = process.env): string {
  return join(stateDir(env), "decisions.jsonl");
}
