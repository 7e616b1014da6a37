/**
 * A policy warning is shown once per repository policy content, not at every
 * command: a hook runs before each command, and a warning repeated a hundred
 * times is one nobody reads. Each warning shown is remembered, by a digest of
 * the repository layer's content and the warning's text, as an empty file in
 * verdict's state directory; a changed file (a new digest) warns again.
 * `verdict policy check` and `verdict doctor` always show everything.
 */
import { closeSync, existsSync } from "node:fs";
import { join } from "node:path";
import { stateDir, type Env } from "../files/dirs.ts";
import { createPrivateExclusive, ensurePrivateDir } from "../files/private.ts";
import type { LoadedPolicy } from "./load.ts";

/** The warnings of `loaded` not shown before, now remembered as shown. When nothing can be remembered, all of them. */
export function unseenWarnings(loaded: Pick<LoadedPolicy, "warnings" | "layers">, env: Env = process.env): string[] {
  if (loaded.warnings.length === 0) return [];
  const content = loaded.layers.map((layer) => layer.digest).join(" ");
  let dir: string;
  try {
    dir = join(stateDir(env), "policy-warnings");
  } catch {
    return loaded.warnings;
  }
  return loaded.warnings.filter((warning) => {
    const marker = join(dir, new Bun.CryptoHasher("sha256").update(`${content}\n${warning}`).digest("hex").slice(0, 32));
    if (existsSync(marker)) return false;
    try {
      // verdict's own folders, checked (no links) and owner-only, as every file verdict keeps.
      ensurePrivateDir(dir);
      closeSync(createPrivateExclusive(marker));
    } catch {
      // Not remembered: shown again next time, which is better than never.
    }
    return true;
  });
}
