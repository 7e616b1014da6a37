/** The digest a judgment is made under: SHA-256 of the effective policy's JSON, shortened. */
import { createHash } from "node:crypto";

export function policyDigest(policy: unknown): string {
  return createHash("sha256").update(JSON.stringify(policy)).digest("hex").slice(0, 16);
}
