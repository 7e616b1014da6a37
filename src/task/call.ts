/**
 * One tool call: the effect policy, the judge (an ask goes to `decideAsk`),
 * the run with fingerprints around it, and what its result means: a read
 * observes what it names, a write is read back, a call stopped at its limit
 * or cancelled ends the run.
 */
import { redact } from "../core/redact.ts";
import { redactingWriter } from "./environment.ts";
import { judgeCommand, type CommandJudgment } from "../judge/index.ts";
import { decideAsk } from "./ask.ts";
import type { ToolCall } from "./client.ts";
import { evaluateEffects, recordRead, recordWrite } from "./effects.ts";
import { preview, type ToolStep } from "./evidence.ts";
import { accumulate, describeEffects, diffFingerprints, fingerprint, hasEffects, type EffectDiff } from "./fingerprint.ts";
import { cancelled, outcome } from "./outcome.ts";
import { formatNotRun, formatReceipt } from "./result.ts";
import { runArgv, type Receipt } from "./runner.ts";
import { ranSoFar, save, type CallResult, type RunState, type TaskOptions } from "./state.ts";
import { snapshotTargets, verifyClaims } from "./verify.ts";

export async function runCall(options: TaskOptions, state: RunState, turn: number, call: ToolCall): Promise<CallResult> {
  const { evidence, bounds, cwd } = options;
  const step: ToolStep = { kind: "tool", turn, call: state.callsSeen, id: call.id, command: call.command, decision: "not-run", checks: [] };
  evidence.steps.push(step);
  const refuse = (reason: string, message: string): CallResult => {
    const toolResult = formatNotRun({ status: "refused", reason, message, command: call.command });
    step.decision = "refused";
    step.toolResult = toolResult;
    options.note(`[${step.call}] ${call.command}\n    refused (${reason})`);
    save(options);
    return {
      kind: "end",
      toolResult,
      outcome: outcome("refused", reason, `refused ${call.command}: ${message}`, [
        "the refused call did not run, and nothing after it ran",
        ...ranSoFar(state),
      ]),
    };
  };

  const effects = evaluateEffects(call.command, state.effect);
  step.checks.push(...effects.checks);
  if (effects.plan) {
    step.argv = effects.plan.argv;
    step.effectClass = effects.plan.effectClass;
    if (effects.plan.act) step.act = effects.plan.act;
    if (effects.plan.write.known) step.targets = effects.plan.write.targets;
  }
  if (!effects.allowed) return refuse(effects.reason, effects.message);
  const plan = effects.plan;

  const judgment = await judge(options, call.command);
  const judged = {
    verdict: judgment.verdict,
    line: judgment.line,
    answerer: judgment.answerer,
    ...(judgment.rule ? { rule: judgment.rule.id } : {}),
  };
  if (judgment.verdict === "deny") {
    step.checks.push({ name: "judge", passed: false, detail: judgment.line, ...judged });
    return refuse("judge-deny", `the judge denies it: ${judgment.line}`);
  }
  if (judgment.verdict === "ask") {
    step.checks.push({ name: "judge", passed: true, detail: `asks for approval: ${judgment.line}`, ...judged });
    // The wait counts against the run's time: past it, the wait stops as if cancelled.
    const runTime = AbortSignal.timeout(Math.max(1, Math.round(options.deadline - performance.now())));
    const decision = await decideAsk(
      { command: call.command, argv: plan.argv, cwd, toolCallId: call.id, callNumber: state.callsSeen },
      judgment,
      {
        runId: options.runId,
        request: options.request,
        history: [...state.history],
        loaded: options.loaded,
        signal: AbortSignal.any([options.signal, runTime]),
        interactive: options.interactive,
        note: options.note,
      },
    );
    const cancelledBy = options.cancelSignal();
    if (cancelledBy || (decision.decision === "refused" && runTime.aborted)) {
      step.checks.push({
        name: "approval",
        passed: false,
        detail: cancelledBy ? "cancelled while waiting for approval" : "the run's time ran out while waiting for approval",
      });
      save(options);
      return {
        kind: "end",
        outcome: cancelledBy
          ? cancelled(cancelledBy, "while waiting for an approval")
          : outcome("budget-exhausted", "run-time", `the run's time ran out while ${call.command} waited for approval`, [
              "the call did not run, and nothing after it ran",
              ...ranSoFar(state),
            ]),
      };
    }
    if (decision.decision === "refused") {
      step.checks.push({ name: "approval", passed: false, detail: decision.message, ...decision });
      return refuse(decision.reason === "approvals-unavailable" ? "judge-ask" : decision.reason, decision.message);
    }
    step.checks.push({ name: "approval", passed: true, detail: `approved${decision.by ? ` by ${decision.by}` : ""}`, ...decision });
  } else {
    step.checks.push({ name: "judge", passed: true, detail: judgment.line, ...judged });
  }

  options.note(`[${state.callsSeen}] ${call.command}`);
  const before = fingerprint(cwd, bounds.maxFingerprintEntries, state.digests);
  const claims = plan.write.known ? plan.write.claims : [];
  const targetsBefore = snapshotTargets(claims);
  const left = options.deadline - performance.now();
  // The live copy on the terminal is redacted line by line, like everything else the output reaches.
  const toTerminal = (text: string) => void process.stderr.write(text);
  const mirror = options.mirror ? { stdout: redactingWriter(toTerminal), stderr: redactingWriter(toTerminal) } : undefined;
  const receipt = await runArgv({
    argv: plan.argv,
    cwd,
    env: { ...options.toolEnv, ...plan.env, VERDICT_RUN_CALL: String(state.callsSeen) },
    timeoutMs: Math.max(1, Math.min(bounds.callWithinMs, left)),
    maxOutputBytes: bounds.maxOutputBytes,
    graceMs: bounds.graceMs,
    signal: options.signal,
    ...(mirror ? { mirror: (stream, chunk) => mirror[stream].push(chunk) } : {}),
  });
  mirror?.stdout.flush();
  mirror?.stderr.flush();
  const after = fingerprint(cwd, bounds.maxFingerprintEntries, state.digests);
  const diff = diffFingerprints(before, after);
  state.total = accumulate(state.total, diff);
  state.callsRun++;
  state.history.push(call.command);
  step.decision = "ran";
  step.receipt = receiptFields(receipt);
  step.stdout = preview(redact(receipt.stdout.text));
  step.stderr = preview(redact(receipt.stderr.text));
  step.effects = diff;
  evidence.effects = state.total;
  // What the model reads of the output: secrets out first.
  const toolResult = redact(formatReceipt(call.command, cwd, receipt));
  step.toolResult = toolResult;
  options.note(`    ${statusLine(receipt, plan.effectClass, diff)}`);
  if (receipt.stdout.truncated || receipt.stderr.truncated) {
    options.note(`    output truncated to ${bounds.maxOutputBytes} bytes per stream (head and tail kept)`);
  }

  const cancelledBy = options.cancelSignal();
  if (cancelledBy) {
    save(options);
    return { kind: "end", outcome: cancelled(cancelledBy, `during ${call.command}`) };
  }
  if (receipt.timedOut) {
    save(options);
    const limit = Math.min(bounds.callWithinMs, Math.max(0, Math.round(left)));
    const runTime = left < bounds.callWithinMs;
    return {
      kind: "end",
      outcome: outcome(
        "budget-exhausted",
        runTime ? "run-time" : "call-timeout",
        `${call.command} passed its time limit of ${limit} ms${runTime ? " (the run's time left)" : ""} and was stopped`,
        ["the stopped call may have done part of its work", ...describeChanges(diff)],
      ),
    };
  }
  if (plan.effectClass === "read") {
    if (receipt.spawnError === null) recordRead(plan, state.effect);
    if (hasEffects(diff)) {
      step.unexpectedEffects = true;
      options.note(`    warning: the working directory changed during a read-only call (${describeEffects(diff)})`);
      state.obligations.push(`review what the read-only call ${call.command} changed: ${describeEffects(diff)}`);
    }
  } else if (plan.effectClass === "write" && receipt.status === 0) {
    const program = plan.write.program;
    const verification = verifyClaims(claims, targetsBefore, cwd, program);
    step.verification = verification;
    if (verification.verified === false) {
      save(options);
      return {
        kind: "end",
        outcome: outcome(
          "unverified",
          "readback-failed",
          `${call.command} exited 0, but reading back its targets shows: ${verification.detail}`,
          ["the change could not be confirmed by reading it back; check the targets by hand"],
        ),
      };
    }
    if (verification.verified === true) {
      recordWrite(plan, state.effect);
      options.note(`    verified: ${verification.detail}`);
    } else {
      state.obligations.push(`${call.command} was not verified by readback (${verification.detail}): ${describeEffects(diff)}`);
    }
  }
  save(options);
  return { kind: "continue", status: receipt.status, toolResult };
}

async function judge(options: TaskOptions, command: string): Promise<CommandJudgment> {
  return judgeCommand(
    { command, cwd: options.cwd, startedAt: performance.now(), host: "run", event: "tool-call" } as Parameters<typeof judgeCommand>[0],
    options.loaded,
  );
}

function describeChanges(diff: EffectDiff): string[] {
  return hasEffects(diff) ? [`it changed: ${describeEffects(diff)}`] : [];
}

function receiptFields(receipt: Receipt): Record<string, unknown> {
  return {
    startedAt: receipt.startedAt,
    durationMs: receipt.durationMs,
    exitCode: receipt.exitCode,
    signal: receipt.signal,
    status: receipt.status,
    timedOut: receipt.timedOut,
    cancelled: receipt.cancelled,
    spawnError: receipt.spawnError,
    stdoutBytes: receipt.stdout.bytes,
    stderrBytes: receipt.stderr.bytes,
    truncated: { stdout: receipt.stdout.truncated, stderr: receipt.stderr.truncated },
  };
}

function statusLine(receipt: Receipt, effectClass: string, diff: EffectDiff): string {
  const how = receipt.spawnError
    ? receipt.spawnError
    : receipt.timedOut
      ? "stopped at its time limit"
      : receipt.signal
        ? `ended by ${receipt.signal}`
        : `exit ${receipt.exitCode}`;
  return `${how} · ${receipt.durationMs} ms · ${effectClass} · ${describeEffects(diff)}`;
}
