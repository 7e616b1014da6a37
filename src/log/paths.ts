/** Where verdict keeps its state: `$XDG_STATE_HOME/verdict/` (default `~/.local/state/verdict/`). */
import { join } from "node:path";
import { stateDir, type Env } from "../files/dirs.ts";

export type { Env };

/** The decision log; rotated copies sit beside it as decisions.jsonl.1, .2 ... */
export function decisionLogPath(env: Env = process.env): string {
  return join(stateDir(env), "decisions.jsonl");
}
