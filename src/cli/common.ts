/** What every command shares: exit codes, the version line, option parsing helpers. */

/** Exit status for a usage error or a policy that cannot be used. */
export const USAGE_EXIT = 2;

declare const VERDICT_VERSION: string | undefined;
declare const VERDICT_COMMIT: string | undefined;
declare const VERDICT_POLICY_DIGEST: string | undefined;

const VERSION = typeof VERDICT_VERSION === "string" ? VERDICT_VERSION : "0.0.0-dev";
export const COMMIT = typeof VERDICT_COMMIT === "string" ? VERDICT_COMMIT : "unknown";

/**
 * The digest of the embedded default policy, as judgments under it record
 * it. build.ts computes it, so printing the version loads no policy code;
 * outside a build it is computed here.
 */
async function embeddedPolicyDigest(): Promise<string> {
  if (typeof VERDICT_POLICY_DIGEST === "string") return VERDICT_POLICY_DIGEST;
  return (await import("../policy/generated/default-policy.ts")).DEFAULT_DIGEST;
}

export async function printVersion(): Promise<void> {
  console.log(`verdict ${VERSION} (commit ${COMMIT}; embedded policy ${await embeddedPolicyDigest()})`);
}

/**
 * An error a command stops on: what went wrong, what it came from, the exit status, and the usage to
 * show. A command may return `usageError(...)` or throw one; either way it is rendered by `render`.
 */
export class CliError extends Error {
  readonly exit: number;
  readonly help?: string;
  constructor(message: string, options: { exit?: number; cause?: unknown; help?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CliError";
    this.exit = options.exit ?? USAGE_EXIT;
    this.help = options.help;
  }
}

/** The one place an error reaches the person: `verdict: message` on stderr (with the usage, if any); returns the exit status. */
export function render(error: CliError): number {
  console.error(`verdict: ${error.message}${error.help ? `\n${error.help}` : ""}`);
  return error.exit;
}

/** A usage error: the message on stderr and exit status 2. */
export function usageError(message: string, help?: string): number {
  return render(new CliError(message, { help }));
}
