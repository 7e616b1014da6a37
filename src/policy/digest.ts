/** The digest a judgment is made under: SHA-256 of the effective policy's JSON, shortened. */

export function policyDigest(policy: unknown): string {
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(policy)).digest("hex").slice(0, 16);
}

/**
 * The digest of an effective policy made of layers, from what went into it
 * rather than from the merged result: the default's digest, then each
 * layer's name, trust and content digest. It changes exactly when an input
 * does, and costs microseconds where hashing the merged 150 KB policy costs
 * a millisecond or more at every start.
 */
export function layeredDigest(defaultDigest: string, layers: readonly { name: string; trusted: boolean; digest: string }[]): string {
  const hash = new Bun.CryptoHasher("sha256").update(defaultDigest);
  for (const layer of layers) hash.update(`\n${layer.name}:${layer.trusted ? "trusted" : "untrusted"}:${layer.digest}`);
  return hash.digest("hex").slice(0, 16);
}
