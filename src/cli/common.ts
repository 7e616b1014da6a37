/** What every command shares: exit codes, the version line, option parsing helpers. */
import { createHash } from "node:crypto";
import { DEFAULT_POLICY_TEXT } from "../policy/load.ts";

/** Exit status for a usage error or a policy that cannot be used. */
export const USAGE_EXIT = 2;

declare const VERDICT_VERSION: string | undefined;
declare const VERDICT_COMMIT: string | undefined;

export const VERSION = typeof VERDICT_VERSION === "string" ? VERDICT_VERSION : "0.0.0-dev";
export const COMMIT = typeof VERDICT_COMMIT === "string" ? VERDICT_COMMIT : "unknown";

/** The digest of the embedded default policy's text, as shipped. */
export function embeddedPolicyDigest(): string {
  return createHash("sha256").update(DEFAULT_POLICY_TEXT).digest("hex").slice(0, 16);
}

export function printVersion(): void {
  console.log(`verdict ${VERSION} (commit ${COMMIT}; embedded policy ${embeddedPolicyDigest()})`);
}

/** A usage error: the message on stderr and exit status 2. */
export function usageError(message: string, help?: string): number {
  console.error(`verdict: ${message}${help ? `\n${help}` : ""}`);
  return USAGE_EXIT;
}
