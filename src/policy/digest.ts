/** The digest a judgment is made under: SHA-256 of the effective policy's JSON, shortened. */

export function policyDigest(policy: unknown): string {
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(policy)).digest("hex").slice(0, 16);
}
