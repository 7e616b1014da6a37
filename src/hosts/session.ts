/**
 * One hook, from its payload to its answer: the policy loaded while the payload arrives, the deadline
 * armed and re-armed as the event's kind and the policy's hosts settings become known, the judgment
 * (runHook), and exactly one answer. Where it runs is the caller's (SessionIO): `verdict hook` in its
 * own process (src/cli/hook.ts), or a resident judge (src/resident/serve.ts).
 *
 * Fail safe: a deadline (hosts.respond_within, counted from the hook's start) answers on verdict's
 * behalf if judging has not finished; an exception anywhere answers with the policy's hosts.on_error
 * (commands) or pass (turn ends).
 */
import { durationMs } from "../core/units.ts";
import { judgeCommand, judgeTurnEnd } from "../judge/index.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { loadPolicyCached } from "../policy/layer-cache.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { stateDir } from "../files/dirs.ts";
import { DEFAULT_HOSTS, fallbackReply, runHook, sniffKind, type EventKind, type HookOutcome } from "./hook.ts";
import type { HostName } from "./types.ts";

/** A hook payload larger than this is refused (answered with hosts.on_error) rather than read on. */
const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;
/** How much of the payload's head is looked at for its kind before it has all arrived. */
const SNIFF_BYTES = 256 * 1024;

/** Margin kept below the host's timeout for writing the answer and exiting. */
const EXIT_MARGIN_MS = 250;

/**
 * What one hook needs from where it runs. In its own process (cli/hook.ts): standard input, a timer and
 * the watchdog thread for the deadline, writes to standard output and error. In a resident judge
 * (resident/serve.ts): the payload from the hook's socket, deadline frames the hook keeps itself, the
 * answer sent back; and no work that is not bounded (`unbounded` hands the hook back to its own process).
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
function deadlineAt(hosts: HostsSettings): number {
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
        const { unseenWarnings } = require("../policy/warnings.ts") as typeof import("../policy/warnings.ts");
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
