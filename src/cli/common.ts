/** What every command shares: exit codes, the version line, option parsing helpers. */

/** Exit status for a usage error or a policy that cannot be used. */
export const USAGE_EXIT = 2;

declare const VERDICT_VERSION: string | undefined;
declare const VERDICT_COMMIT: string | undefined;
declare const VERDICT_POLICY_DIGEST: string | undefined;

export const VERSION = typeof VERDICT_VERSION === "string" ? VERDICT_VERSION : "0.0.0-dev";
export const COMMIT = typeof VERDICT_COMMIT === "string" ? VERDICT_COMMIT : "unknown";

/**
 * The digest of the embedded default policy, as judgments under it record
 * it. build.ts computes it, so printing the version loads no policy code;
 * outside a build it is computed here.
 */
export async function embeddedPolicyDigest(): Promise<string> {
  if (typeof VERDICT_POLICY_DIGEST === "string") return VERDICT_POLICY_DIGEST;
  return (await import("../policy/generated/default-policy.ts")).DEFAULT_DIGEST;
}

export async function printVersion(): Promise<void> {
  console.log(`verdict ${VERSION} (commit ${COMMIT}; embedded policy ${await embeddedPolicyDigest()})`);
}

/** A usage error: the message on stderr and exit status 2. */
export function usageError(message: string, help?: string): number {
  console.error(`verdict: ${message}${help ? `\n${help}` : ""}`);
  return USAGE_EXIT;
}
