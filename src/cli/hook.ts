/**
 * verdict hook <host>: the payload on stdin, the decision on stdout in the host's vocabulary.
 *
 * Fail safe: a deadline (hosts.respond_within, counted from the start) answers on verdict's behalf if
 * judging has not finished; an exception anywhere answers with the policy's hosts.on_error (commands) or
 * pass (turn ends). The exit status is always 0 unless the host was named wrongly (2, a usage error), so
 * no host mistakes a crash for "no hook ran".
 */
import { writeSync } from "node:fs";
import { hookSession } from "../hosts/session.ts";
import { readPayload } from "../hosts/stdin.ts";
import { HOST_NAMES, isHostName, type HostName } from "../hosts/types.ts";
import type { ResidentResult } from "../resident/client.ts";
import { USAGE_EXIT, usageError } from "./common.ts";
import { fullJit } from "./jit.ts";
import { startWatchdog, type Watchdog } from "./watchdog.ts";

const HELP = `Usage: verdict hook <${HOST_NAMES.join("|")}>

Reads a hook payload from stdin and prints the decision in the host's vocabulary.
Registered by verdict install <host>; run verdict doctor to check it.

Exit status: 0 with the decision on stdout, always (also when the policy is broken or time runs out: the
decision is then hosts.on_error); 2 a usage error (no such host).`;

/** `hook <host>` as install writes it, or the host named after options (--help, a typo). */
function hostFrom(argv: string[]): HostName | number {
  // `hook <host>` skips the option parser, whose module costs every hook about 0.4 M instructions.
  if (argv.length === 1 && isHostName(argv[0])) return argv[0];
  const { parseOptions } = require("./args.ts") as typeof import("./args.ts");
  const parsed = parseOptions(argv, { help: { type: "boolean", short: "h" } });
  if ("error" in parsed) return usageError(parsed.error, HELP);
  if (parsed.values.help) {
    console.log(HELP);
    return 0;
  }
  const host = parsed.positionals[0];
  if (!isHostName(host) || parsed.positionals.length > 1)
    return usageError(`hook needs one host: ${HOST_NAMES.join(", ")}${host ? ` (got ${argv.join(" ")})` : ""}`, HELP);
  return host;
}

/**
 * `verdict hook <host>` in its own process. main.ts first offers the payload to a resident judge
 * (src/resident/client.ts); `from` is what that left: when the hook started, and standard input as
 * far as it was read. After answering, a hook that found no judge may start one for the next hook.
 */
export async function main(argv: string[], from?: { startedAt: number; resident?: ResidentResult }): Promise<number> {
  const startedAt = from?.startedAt ?? performance.now();
  const host = hostFrom(argv);
  if (typeof host === "number") return host;
  const handover = from?.resident && !from.resident.answered ? from.resident.handover : undefined;

  let timer: ReturnType<typeof setTimeout> | undefined;
  // The deadline that holds even while the judge is busy (a timer here cannot fire then): watchdog.ts.
  // Started only where the work is not bounded by the payload's size: a fresh load of a policy layer
  // (parsing, validating, proving it), a cached layer whose patterns are not all proven linear
  // (policy/bounded.ts), a large payload, a turn's end (a transcript). The embedded default, and a
  // cached layer of linear patterns, on an ordinary payload answer in well under a second (bench/fuzz),
  // and a thread costs every hook some milliseconds and megabytes.
  let watchdog: Watchdog | undefined;
  let last: { at: number; stdout: () => string; note: string } | undefined;
  const armWatchdog = (): void => {
    // A little before the main thread's own timer: starting a process on a busy machine costs too.
    if (watchdog && last) watchdog.arm(Math.max(0, last.at - (performance.now() - startedAt) - 150), last.stdout(), last.note);
  };
  let answered = false;
  await hookSession(host, {
    here: process.cwd(),
    startedAt,
    readPayload: (onChunk, limits) => readPayload(onChunk, limits, handover?.chunks()),
    unbounded: () => {
      if (watchdog) return;
      fullJit();
      watchdog = startWatchdog();
      armWatchdog();
    },
    deadline: (at, fallback, note, fire) => {
      clearTimeout(timer);
      timer = setTimeout(
        () => {
          fire();
          process.exit(0);
        },
        Math.max(0, at - (performance.now() - startedAt)),
      );
      last = { at, stdout: () => fallback().reply.stdout ?? "", note };
      armWatchdog();
    },
    claim: () => {
      clearTimeout(timer);
      return !watchdog || watchdog.claim();
    },
    say: (stdout, notes) => {
      answered = true;
      try {
        if (stdout) writeSync(1, stdout + "\n");
      } catch {
        // the host closed the pipe; nothing more can be said
      }
      for (const note of notes) {
        try {
          writeSync(2, note + "\n");
        } catch {}
      }
    },
  });
  // The next hook like this one need not start the rule engine afresh (docs/resident.md).
  const resident = from?.resident;
  if (resident && !resident.answered && resident.address && resident.none) {
    try {
      const { startResident } = require("../resident/start.ts") as typeof import("../resident/start.ts");
      startResident(resident.address);
    } catch {}
  }
  return answered ? 0 : USAGE_EXIT;
}
