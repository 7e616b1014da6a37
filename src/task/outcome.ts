/**
 * How a run ends. Each outcome has its own exit status, so a script can tell
 * them apart without reading the evidence, and lists what is left undone.
 */

type OutcomeStatus =
  | "answered"
  | "completed"
  | "unsupported"
  | "refused"
  | "unverified"
  | "budget-exhausted"
  | "unavailable"
  | "protocol-error"
  | "cancelled";

/**
 * Exit statuses. `completed` passes the last tool call's own status through
 * (so it can coincide with any of these; the evidence's `outcome.status` is
 * the authority). The others avoid 1, 2 (usage), 124 to 127 (what shells and
 * timeout(1) use) and 128 + n (signals), and echo sysexits.h where a name fits.
 */
export const EXIT = {
  answered: 0,
  unsupported: 65,
  unverified: 66,
  unavailable: 69,
  "budget-exhausted": 75,
  "protocol-error": 76,
  refused: 77,
} as const;

export type CancelSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** 128 + the signal's number, as a shell reports a process a signal ended. */
export const SIGNAL_EXIT: Record<CancelSignal, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export type Outcome = {
  status: OutcomeStatus;
  exitCode: number;
  /** What happened, for a person. */
  message: string;
  /** A stable, machine-readable cause, e.g. `http-401`, `path-outside-workspace`, `call-timeout`. */
  reason: string;
  /** What is left for someone to do or check. Empty when nothing is. */
  remainingObligations: string[];
};

type FixedStatus = Exclude<OutcomeStatus, "completed" | "cancelled">;

export function outcome(status: FixedStatus, reason: string, message: string, remaining: string[] = []): Outcome {
  return { status, exitCode: EXIT[status], message, reason, remainingObligations: remaining };
}

export function completed(exitCode: number, message: string, remaining: string[]): Outcome {
  return {
    status: "completed",
    exitCode,
    message,
    reason: exitCode === 0 ? "finished" : "last-call-failed",
    remainingObligations: remaining,
  };
}

export function cancelled(signal: CancelSignal, during: string): Outcome {
  return {
    status: "cancelled",
    exitCode: SIGNAL_EXIT[signal],
    message: `cancelled by ${signal} ${during}`,
    reason: signal.toLowerCase(),
    remainingObligations: [
      "the run was interrupted: later steps did not run, and the call in progress (if any) may have done part of its work",
    ],
  };
}

/** Every outcome with its exit status, for `verdict run --help` and the docs. */
export const OUTCOME_TABLE: [OutcomeStatus, string, string][] = [
  ["answered", "0", "the model answered without calling a tool"],
  ["completed", "last call's status", "the model finished after its tool calls; the status is the last call's exit status"],
  ["unsupported", "65", "the model did not understand the request and ran nothing"],
  ["unverified", "66", "a write exited 0 but reading back its target did not confirm the change"],
  ["unavailable", "69", "the endpoint could not be reached, refused the key, failed (5xx) or refuses tool calls"],
  ["budget-exhausted", "75", "too many tool calls, the run's time ran out, or a call passed its time limit"],
  ["protocol-error", "76", "the endpoint's reply broke the protocol: malformed, bad arguments, an unknown tool"],
  ["refused", "77", "the effect policy or the judge refused a call; nothing after it ran"],
  ["cancelled", "129/130/143", "SIGHUP, SIGINT or SIGTERM stopped the run"],
];
