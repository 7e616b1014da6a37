/**
 * verdict hook <host>: the payload on stdin, the decision on stdout in the host's vocabulary.
 *
 * Fail safe: a deadline (hosts.respond_within, counted from the start) answers on verdict's behalf if
 * judging has not finished; an exception anywhere answers with the policy's hosts.on_error (commands) or
 * pass (turn ends). The exit status is always 0 unless the host was named wrongly (2, a usage error), so
 * no host mistakes a crash for "no hook ran".
 */
import { writeSync } from "node:fs";
import { DEFAULT_HOSTS, fallbackReply, runHook, sniffKind, type EventKind, type HookOutcome } from "../hosts/hook.ts";
import { stateDir } from "../hosts/continues.ts";
import { HOST_NAMES, isHostName, type HostName } from "../hosts/types.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { durationMs } from "../core/units.ts";
import { judgeCommand, judgeTurnEnd } from "../judge/index.ts";
import { loadPolicyCached } from "../policy/layer-cache.ts";
import { USAGE_EXIT, usageError } from "./common.ts";
import { fullJit } from "./jit.ts";
import { readPayload } from "./stdin.ts";
import type { ResidentResult } from "../resident/client.ts";
import { startWatchdog, type Watchdog } from "./watchdog.ts";

const HELP = `Usage: verdict hook <${HOST_NAMES.join("|")}>

Reads a hook payload from stdin and prints the decision in the host's vocabulary.
Registered by verdict install <host>; run verdict doctor to check it.

Exit status: 0 with the decision on stdout, always (also when the policy is broken or time runs out: the
decision is then hosts.on_error); 2 a usage error (no such host).`;

/** A hook payload larger than this is refused (answered with hosts.on_error) rather than read on. */
export const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;
/** How much of the payload's head is looked at for its kind before it has all arrived. */
const SNIFF_BYTES = 256 * 1024;

/** Margin kept below the host's timeout for writing the answer and exiting. */
const EXIT_MARGIN_MS = 250;

/**
 * What one hook needs from where it runs. In its own process (main below): standard input, a timer and
 * the watchdog thread for the deadline, writes to standard output and error. In a resident judge
 * (resident.ts): the payload from the hook's socket, deadline frames the hook keeps itself, the answer
 * sent back; and no work that is not bounded (`unbounded` hands the hook back to its own process).
 */
export type SessionIO = {
  /** the hook's working directory (the hosts run hooks in the project's) */
  here: string;
  /** when the hook started (performance.now() of this process's clock) */
  startedAt: number;
  readPayload(onChunk: (text: string) => void, limits: { maxBytes: number }): Promise<string>;
  /** Work not bounded by the payload's size is about to start (see ensureWatchdog). */
  unbounded(): void;
  /**
   * The deadline, `at` ms after startedAt, and what to answer then (`fallback`, worked out only when
   * asked for: it is re-armed at every step and rarely needed); `fire` answers it.
   */
  deadline(at: number, fallback: () => HookOutcome, note: string, fire: () => void): void;
  /** Whether this side may answer (the watchdog may have answered already). */
  claim(): boolean;
  /** The answer: the host's reply and verdict's notes for standard error. */
  say(stdout: string | undefined, notes: string[]): void;
};

/** When a hook must have answered, in ms after it started, under these hosts settings. */
export function deadlineAt(hosts: HostsSettings): number {
  let within = 8000;
  let timeout = 30000;
  try {
    within = durationMs(hosts.respond_within);
    timeout = durationMs(hosts.hook_timeout);
  } catch {}
  return Math.max(0, Math.min(within, timeout - 1000) - EXIT_MARGIN_MS);
}

/**
 * One hook, from its payload to its answer, whatever `io` is. Answers exactly once: with the judgment,
 * with the policy's hosts.on_error (or pass for a turn's end) when anything fails, or, through
 * io.deadline, when time runs out.
 */
export async function hookSession(host: HostName, io: SessionIO): Promise<void> {
  let answered = false;
  let kind: EventKind = "unknown";
  let settings: HostsSettings = DEFAULT_HOSTS;
  let used: LoadedPolicy | undefined;
  // A hand-back thrown where runHook turns errors into answers (the policy's load) is rethrown after it.
  let deferred: Deferred | undefined;
  const unbounded = (): void => {
    try {
      io.unbounded();
    } catch (error) {
      if (error instanceof Deferred) deferred = error;
      throw error;
    }
  };
  const answer = (outcome: HookOutcome): void => {
    if (answered) return;
    answered = true;
    if (!io.claim()) return;
    const notes: string[] = [];
    const note = outcome.error
      ? `verdict hook ${host}: ${outcome.error}`
      : process.env.VERDICT_DEBUG
        ? `verdict hook ${host}: ${outcome.decision}: ${outcome.line}`
        : "";
    if (note) notes.push(note);
    // What an untrusted repository policy lost, once per its content (not at every command).
    if (used?.warnings.length) {
      try {
        const { unseenWarnings } = require("./warnings.ts") as typeof import("./warnings.ts");
        for (const warning of unseenWarnings(used)) notes.push(`verdict: warning: ${warning}`);
      } catch {}
    }
    io.say(outcome.reply.stdout, notes);
    if (outcome.error) logFallback(host, outcome, io.startedAt);
  };
  const armDeadline = (): void => {
    const why = `no answer within hosts.respond_within (${settings.respond_within})`;
    const [k, s] = [kind, settings];
    let fallback: HookOutcome | undefined;
    const reply = () => (fallback ??= fallbackReply(host, k, why, s));
    io.deadline(deadlineAt(settings), reply, `verdict hook ${host}: ${why}`, () => answer(reply()));
  };
  armDeadline();
  const rearm = (hosts: HostsSettings): void => {
    settings = hosts;
    armDeadline();
  };

  try {
    // The embedded default as built, or the layers as last loaded (the layer cache), when it can.
    // Loaded while the payload arrives, so the deadline is the policy's even when the payload is slow
    // or never ends.
    const here = io.here;
    const early = loadPolicyCached({ cwd: here }, unbounded);
    if (early.ok) rearm(early.loaded.policy.hosts);
    let received = "";
    const raw = await io.readPayload(
      (chunk) => {
        if (received.length < SNIFF_BYTES) received += chunk;
        else unbounded();
        // Sniffed on the payload's head only: scanning all of it at every chunk is quadratic.
        if (kind === "unknown" && received.length < SNIFF_BYTES) {
          kind = sniffKind(received);
          if (kind !== "unknown") armDeadline();
        }
      },
      { maxBytes: MAX_PAYLOAD_BYTES },
    );
    const outcome = await runHook(host, raw, {
      loadPolicy: (cwd) => {
        if (cwd === here && early.ok) {
          used = early.loaded;
          return early;
        }
        const result = loadPolicyCached({ cwd }, unbounded);
        if (result.ok) used = result.loaded;
        return result;
      },
      loadDefaultPolicy: () => {
        const { loadPolicy } = require("../policy/index.ts") as typeof import("../policy/index.ts");
        return loadPolicy({ cwd: here, env: {}, only: ["default"] });
      },
      judgeCommand: (input, loaded) => judgeCommand(input, loaded),
      judgeTurnEnd: (input, loaded) => judgeTurnEnd(input, loaded),
      judgeTool: async (input, loaded) => (await import("../judge/tool.ts")).judgeTool(input, loaded),
      // Loaded only for an ask on a host that cannot ask: initialising the approvals modules (and the
      // yaml package they use) costs several milliseconds that an ordinary judgment does not need.
      hostAsk: (call, judgment, loaded) => {
        const { hostAsk } = require("../approvals/index.ts") as typeof import("../approvals/index.ts");
        // Waiting for the journal's lock may use what is left of the hook's budget, not more.
        const left = deadlineAt(settings) - (performance.now() - io.startedAt);
        return hostAsk(call, judgment, { policy: loaded.policy, lockWaitMs: Math.max(50, left - 250) });
      },
      startedAt: io.startedAt,
      stateDir: stateDir(),
      onKind: (k) => {
        kind = k;
        if (k === "turn-end") unbounded();
        armDeadline();
      },
      onSettings: rearm,
    });
    if (deferred) throw deferred;
    answer(outcome);
  } catch (error) {
    if (error instanceof Deferred) throw error;
    answer(fallbackReply(host as HostName, kind, `verdict failed: ${(error as Error)?.message ?? String(error)}`, settings));
  }
}

/** Thrown through a session by a resident judge's io.unbounded: the hook judges in its own process. */
export class Deferred extends Error {
  constructor(why: string) {
    super(why);
    this.name = "Deferred";
  }
}

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
  // The next hook like this one need not start the rule engine afresh (src/cli/resident.ts).
  const resident = from?.resident;
  if (resident && !resident.answered && resident.address && resident.none) {
    try {
      const { startResident } = require("../resident/start.ts") as typeof import("../resident/start.ts");
      startResident(resident.address);
    } catch {}
  }
  return answered ? 0 : USAGE_EXIT;
}

/**
 * A decision verdict made without judging (an error, the deadline) goes to the decision log too: the judge
 * logs everything it judges, and this is what it did not get to. Best effort, after the answer is out.
 */
function logFallback(host: HostName, outcome: HookOutcome, startedAt: number): void {
  try {
    const { loadPolicy } = require("../policy/index.ts") as typeof import("../policy/index.ts");
    const { logDecision } = require("../log/decisions.ts") as typeof import("../log/decisions.ts");
    const { redact } = require("../core/redact.ts") as typeof import("../core/redact.ts");
    const loaded = loadPolicy({ cwd: process.cwd(), env: {}, only: ["default"] });
    if (!loaded.ok) return;
    const text = redact(outcome.command ?? "");
    const verdict = outcome.decision === "allow" || outcome.decision === "ask" || outcome.decision === "deny" ? outcome.decision : "pass";
    logDecision(
      {
        time: new Date().toISOString(),
        host,
        event: outcome.event || undefined,
        subject: outcome.kind === "turn-end" ? "turn" : "command",
        digest: new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 16),
        text: text.slice(0, loaded.loaded.policy.log.text_chars),
        verdict,
        line: redact(outcome.line),
        answerer: "none",
        model_not_used: redact(outcome.error ?? ""),
        model_not_used_kind: "verdict-error",
        latency_ms: Math.round(performance.now() - startedAt),
        policy_digest: "none",
      },
      loaded.loaded.policy,
    );
  } catch {
    // the log is not worth a second failure
  }
}
