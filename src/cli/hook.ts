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

export async function main(argv: string[]): Promise<number> {
  const startedAt = performance.now();
  // `hook <host>`, as install writes it, skips the option parser, whose module costs every hook about
  // 0.4 M instructions; anything else (--help, a typo) goes through it.
  let host = argv.length === 1 ? argv[0] : undefined;
  if (!isHostName(host)) {
    const { parseOptions } = require("./args.ts") as typeof import("./args.ts");
    const parsed = parseOptions(argv, { help: { type: "boolean", short: "h" } });
    if ("error" in parsed) return usageError(parsed.error, HELP);
    if (parsed.values.help) {
      console.log(HELP);
      return 0;
    }
    host = parsed.positionals[0];
    if (!isHostName(host) || parsed.positionals.length > 1)
      return usageError(`hook needs one host: ${HOST_NAMES.join(", ")}${host ? ` (got ${argv.join(" ")})` : ""}`, HELP);
  }

  let answered = false;
  let kind: EventKind = "unknown";
  let settings: HostsSettings = DEFAULT_HOSTS;
  let used: LoadedPolicy | undefined;
  // The deadline that holds even while the judge is busy (a timer here cannot fire then): watchdog.ts.
  // Started only where the work is not bounded by the payload's size: a fresh load of a policy layer
  // (parsing, validating, proving it), a cached layer whose patterns are not all proven linear
  // (policy/bounded.ts), a large payload, a turn's end (a transcript). The embedded default, and a
  // cached layer of linear patterns, on an ordinary payload answer in well under a second (bench/fuzz),
  // and a thread costs every hook some milliseconds and megabytes.
  let watchdog: Watchdog | undefined;
  const ensureWatchdog = (): void => {
    if (watchdog) return;
    fullJit();
    watchdog = startWatchdog();
    armWatchdog();
  };
  const answer = (outcome: HookOutcome): void => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    if (watchdog && !watchdog.claim()) return;
    try {
      if (outcome.reply.stdout) writeSync(1, outcome.reply.stdout + "\n");
    } catch {
      // the host closed the pipe; nothing more can be said
    }
    const note = outcome.error
      ? `verdict hook ${host}: ${outcome.error}`
      : process.env.VERDICT_DEBUG
        ? `verdict hook ${host}: ${outcome.decision}: ${outcome.line}`
        : "";
    if (note) {
      try {
        writeSync(2, note + "\n");
      } catch {}
    }
    if (outcome.error) logFallback(host, outcome, startedAt);
    // What an untrusted repository policy lost, once per its content (not at every command).
    if (used?.warnings.length) {
      try {
        const { unseenWarnings } = require("./warnings.ts") as typeof import("./warnings.ts");
        for (const warning of unseenWarnings(used)) writeSync(2, `verdict: warning: ${warning}\n`);
      } catch {}
    }
  };
  const deadlineMs = (hosts: HostsSettings): number => {
    let within = 8000;
    let timeout = 30000;
    try {
      within = durationMs(hosts.respond_within);
      timeout = durationMs(hosts.hook_timeout);
    } catch {}
    return Math.max(0, Math.min(within, timeout - 1000) - EXIT_MARGIN_MS - (performance.now() - startedAt));
  };
  const onDeadline = (): void => {
    answer(fallbackReply(host, kind, `no answer within hosts.respond_within (${settings.respond_within})`, settings));
    process.exit(0);
  };
  const armWatchdog = (): void => {
    if (!watchdog) return;
    const why = `no answer within hosts.respond_within (${settings.respond_within})`;
    // A little before the main thread's own timer: starting a process on a busy machine costs too.
    watchdog.arm(
      Math.max(0, deadlineMs(settings) - 150),
      fallbackReply(host, kind, why, settings).reply.stdout ?? "",
      `verdict hook ${host}: ${why}`,
    );
  };
  let timer = setTimeout(onDeadline, deadlineMs(settings));
  armWatchdog();
  const rearm = (hosts: HostsSettings): void => {
    settings = hosts;
    clearTimeout(timer);
    timer = setTimeout(onDeadline, deadlineMs(hosts));
    armWatchdog();
  };

  try {
    // The embedded default as built, or the layers as last loaded (the layer cache), when it can.
    // The hosts run hooks in the project's directory: load its policy while the payload arrives, so the
    // deadline is the policy's even when the payload is slow or never ends.
    const here = process.cwd();
    const early = loadPolicyCached({ cwd: here }, ensureWatchdog);
    if (early.ok) rearm(early.loaded.policy.hosts);
    let received = "";
    const raw = await readPayload(
      (chunk) => {
        if (received.length < SNIFF_BYTES) received += chunk;
        else ensureWatchdog();
        // Sniffed on the payload's head only: scanning all of it at every chunk is quadratic.
        if (kind === "unknown" && received.length < SNIFF_BYTES) {
          kind = sniffKind(received);
          if (kind !== "unknown") armWatchdog();
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
        const result = loadPolicyCached({ cwd }, ensureWatchdog);
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
        return hostAsk(call, judgment, { policy: loaded.policy, lockWaitMs: Math.max(50, deadlineMs(settings) - 250) });
      },
      startedAt,
      stateDir: stateDir(),
      onKind: (k) => {
        kind = k;
        if (k === "turn-end") ensureWatchdog();
        armWatchdog();
      },
      onSettings: rearm,
    });
    answer(outcome);
  } catch (error) {
    answer(fallbackReply(host as HostName, kind, `verdict failed: ${(error as Error)?.message ?? String(error)}`, settings));
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
