/**
 * verdict's executable starts with the JIT's tier-up thresholds raised (npm/start-flags.ts): a hook
 * judging one command is over in milliseconds, before compiled code would pay back. Work that is not
 * bounded (a batch of commands, a task loop, a long transcript, a policy's examples) calls this first,
 * so hot loops are compiled as usual.
 */
export function fullJit(): void {
  try {
    Bun.unsafe.setJITPolicy(1);
  } catch {
    // an older runtime without the call: the policy was never raised
  }
}
