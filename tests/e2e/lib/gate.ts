// Which end-to-end tests run. All three hosts install in ~15 s each and run in 1–3 s, so every host runs by
// default. VERDICT_E2E=0 skips them all; VERDICT_E2E_HOSTS=claude,codex picks hosts.
import { HOSTS, type HostName } from "./install.ts";

export function e2eHosts(): HostName[] {
  if (process.env.VERDICT_E2E === "0") return [];
  const pick = process.env.VERDICT_E2E_HOSTS?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return pick ? HOSTS.filter((h) => pick.includes(h)) : HOSTS;
}
