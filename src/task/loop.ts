/**
 * The task loop. The request goes to the endpoint verbatim; the model
 * decides what to observe and which commands to run. Each call passes the
 * effect policy, then the judge (an ask goes to `decideAsk`), runs, and its
 * receipt goes back; the working directory is fingerprinted around it and a
 * write is read back. The run ends at the model's final answer, its "did not
 * understand", or at a bound, a refusal, a protocol error or a cancellation.
 * A refused call ends the run: nothing after it runs.
 */
import { runCall } from "./call.ts";
import { complete, type ChatMessage, type ToolCall } from "./client.ts";
import { preview } from "./evidence.ts";
import { describeEffects, DigestCache, emptyDiff, fingerprint, fingerprintDigest, type Fingerprint } from "./fingerprint.ts";
import { cancelled, completed, outcome, type Outcome } from "./outcome.ts";
import { formatNotRun } from "./result.ts";
import { oneLine, ranSoFar, save, type CallResult, type RunState, type TaskBounds, type TaskOptions } from "./state.ts";

export type { TaskBounds, TaskOptions } from "./state.ts";

export async function runTask(options: TaskOptions): Promise<Outcome> {
  const { evidence } = options;
  const digests = new DigestCache();
  const initial = fingerprint(options.cwd, options.bounds.maxFingerprintEntries, digests);
  evidence.fingerprint.initial = summary(initial);
  save(options);
  const state: RunState = {
    messages: [{ role: "user", content: options.request }],
    digests,
    effect: { cwd: options.cwd, mode: options.bounds.effects, observed: new Set(), policy: options.loaded.policy },
    total: emptyDiff(),
    callsRun: 0,
    callsSeen: 0,
    history: [],
    obligations: [],
  };
  let result: Outcome;
  try {
    result = await loop(options, state);
  } catch (error) {
    result = outcome("protocol-error", "internal-error", `verdict failed during the run: ${(error as Error).message ?? String(error)}`, [
      "verdict stopped unexpectedly; the call in progress (if any) may have done part of its work",
    ]);
  }
  const final = fingerprint(options.cwd, options.bounds.maxFingerprintEntries, state.digests);
  evidence.fingerprint.final = summary(final);
  evidence.effects = state.total;
  evidence.outcome = result;
  return result;
}

async function loop(options: TaskOptions, state: RunState): Promise<Outcome> {
  const { bounds, evidence } = options;
  for (let turn = 1; ; turn++) {
    const signal = options.cancelSignal();
    if (signal) return cancelled(signal, "before the next request");
    const left = options.deadline - performance.now();
    if (left <= 0) return runTimeSpent(bounds);
    const started = performance.now();
    const at = new Date().toISOString();
    const reply = await complete(options.client, state.messages, {
      timeoutMs: Math.min(bounds.requestWithinMs, left),
      limitIsRunTime: left < bounds.requestWithinMs,
      signal: options.signal,
    });
    const durationMs = Math.round(performance.now() - started);
    const cancelledBy = options.cancelSignal();
    if (cancelledBy) {
      evidence.steps.push({ kind: "request-failed", turn, at, durationMs, reason: "cancelled", message: "the request was cancelled" });
      return cancelled(cancelledBy, "while waiting for the model");
    }
    if (!reply.ok) {
      const { failure } = reply;
      evidence.steps.push({
        kind: "request-failed",
        turn,
        at,
        durationMs,
        reason: failure.reason,
        message: failure.message,
        ...(failure.httpStatus ? { httpStatus: failure.httpStatus } : {}),
        ...(failure.body ? { body: failure.body } : {}),
      });
      save(options);
      const remaining = ["the model did not finish the task", ...ranSoFar(state)];
      if (failure.kind === "budget-exhausted") return outcome("budget-exhausted", failure.reason, failure.message, remaining);
      if (failure.kind === "protocol-error") return outcome("protocol-error", failure.reason, failure.message, remaining);
      return outcome("unavailable", failure.reason, failure.message, remaining);
    }
    const response = reply.completion;
    evidence.steps.push({
      kind: "response",
      turn,
      at,
      durationMs,
      httpStatus: response.httpStatus,
      ...(response.id ? { id: response.id } : {}),
      finishReason: response.finishReason,
      ...(response.handler !== undefined ? { handler: response.handler } : {}),
      content: preview(response.content),
      toolCalls: response.toolCalls.map((call, index) => ({ ...call, id: call.id || syntheticId(turn, index) })),
      ...(response.toolRefusal ? { toolRefusal: response.toolRefusal.kind } : {}),
    });
    save(options);

    if (response.toolCalls.length === 0) return finish(options, state, response.content, response.handler, response.toolRefusal);

    if (response.content.trim()) options.note(`model: ${oneLine(response.content)}`);
    const calls = response.toolCalls.map((call, index) => ({ ...call, id: call.id || syntheticId(turn, index) }));
    state.messages.push({
      role: "assistant",
      content: response.content,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify({ command: call.command }) },
      })),
    });
    for (const [index, call] of calls.entries()) {
      state.callsSeen++;
      const result =
        state.callsSeen > bounds.maxToolCalls ? overBudget(options, turn, call, bounds) : await runCall(options, state, turn, call);
      if (result.kind === "end") {
        if (result.outcome.status === "refused" && result.toolResult !== undefined) {
          await reportRefusal(options, state, turn, calls, index, result.toolResult);
        }
        markNotRun(options, turn, calls.slice(index + 1), state.callsSeen);
        return result.outcome;
      }
      state.lastStatus = result.status;
      state.lastCommand = call.command;
      state.messages.push({ role: "tool", tool_call_id: call.id, content: result.toolResult });
    }
  }
}

/** The model answered without tool calls: what that means depends on what ran before. */
function finish(
  options: TaskOptions,
  state: RunState,
  content: string,
  handler: string | undefined,
  toolRefusal: { kind: string; text: string } | undefined,
): Outcome {
  const { evidence } = options;
  evidence.finalAnswer = content;
  if (content.trim()) options.note(`model: ${content.trim()}`);
  if (toolRefusal) {
    const fix =
      toolRefusal.kind === "agent-mode-required"
        ? "start the server with agent mode (formal-ai serve --agent-mode, or FORMAL_AI_AGENT_MODE=1) in an isolated environment"
        : "grant the shell tool class in the server's installed packages";
    return outcome("unavailable", toolRefusal.kind, `the model's server refuses to call tools: ${oneLine(toolRefusal.text)}`, [
      fix,
      ...ranSoFar(state),
    ]);
  }
  if ((handler === "unknown" || handler === "fallback") && state.callsRun === 0) {
    return outcome("unsupported", "not-understood", "the model did not understand the request; no tool ran", [
      "rephrase the request, or carry it out another way",
    ]);
  }
  if (state.lastStatus === undefined) {
    return outcome("answered", "answered", "the model answered without calling a tool");
  }
  const last = state.lastStatus;
  const what =
    last === 0
      ? `finished after ${state.callsRun} tool call${state.callsRun === 1 ? "" : "s"}`
      : `finished after ${state.callsRun} tool call${state.callsRun === 1 ? "" : "s"}; the last (${state.lastCommand}) exited with ${last}`;
  const remaining = [...state.obligations];
  if (last !== 0) remaining.unshift(`the last tool call failed: ${state.lastCommand} exited with ${last}`);
  if (!state.total.complete) remaining.push("the working directory's fingerprint was incomplete: changes beyond it were not observed");
  return completed(last, `${what}; ${describeEffects(state.total)}`, remaining);
}

function overBudget(options: TaskOptions, turn: number, call: ToolCall, bounds: TaskBounds): CallResult {
  options.evidence.steps.push({
    kind: "tool",
    turn,
    call: options.evidence.steps.filter((step) => step.kind === "tool").length + 1,
    id: call.id,
    command: call.command,
    decision: "not-run",
    checks: [{ name: "budget", passed: false, detail: `the run allows ${bounds.maxToolCalls} tool calls` }],
  });
  save(options);
  return {
    kind: "end",
    outcome: outcome("budget-exhausted", "tool-calls", `the model asked for more than ${bounds.maxToolCalls} tool calls`, [
      `the task did not finish within ${bounds.maxToolCalls} tool calls (task.max_tool_calls, VERDICT_TASK_MAX_TOOL_CALLS, --max-tool-calls)`,
    ]),
  };
}

/**
 * Tells the server its call was refused (a JSON status it reads as an
 * expected stop), so its dialog ends cleanly. Nothing in its reply runs; a
 * failure here does not change the outcome.
 */
async function reportRefusal(
  options: TaskOptions,
  state: RunState,
  turn: number,
  calls: ToolCall[],
  index: number,
  refusal: string,
): Promise<void> {
  const left = options.deadline - performance.now();
  if (left <= 0 || options.cancelSignal()) return;
  const messages: ChatMessage[] = [...state.messages, { role: "tool", tool_call_id: calls[index]!.id, content: refusal }];
  for (const later of calls.slice(index + 1)) {
    messages.push({
      role: "tool",
      tool_call_id: later.id,
      content: formatNotRun({
        status: "cancelled",
        reason: "earlier-call-refused",
        message: "not run: an earlier call in this turn was refused",
        command: later.command,
      }),
    });
  }
  const started = performance.now();
  const at = new Date().toISOString();
  const reply = await complete(options.client, messages, {
    timeoutMs: Math.min(options.bounds.requestWithinMs, left, 10_000),
    limitIsRunTime: false,
    signal: options.signal,
  });
  const durationMs = Math.round(performance.now() - started);
  if (reply.ok) {
    options.evidence.steps.push({
      kind: "response",
      turn: turn + 1,
      at,
      durationMs,
      httpStatus: reply.completion.httpStatus,
      finishReason: reply.completion.finishReason,
      ...(reply.completion.handler !== undefined ? { handler: reply.completion.handler } : {}),
      content: preview(reply.completion.content),
      toolCalls: reply.completion.toolCalls,
      afterRefusal: true,
    });
  } else {
    options.evidence.steps.push({
      kind: "request-failed",
      turn: turn + 1,
      at,
      durationMs,
      reason: reply.failure.reason,
      message: reply.failure.message,
      afterRefusal: true,
    });
  }
  save(options);
}

function markNotRun(options: TaskOptions, turn: number, calls: ToolCall[], seen: number): void {
  for (const [offset, call] of calls.entries()) {
    options.evidence.steps.push({
      kind: "tool",
      turn,
      call: seen + offset + 1,
      id: call.id,
      command: call.command,
      decision: "not-run",
      checks: [{ name: "run-ended", passed: false, detail: "an earlier call in this turn ended the run" }],
    });
  }
  if (calls.length > 0) save(options);
}

function runTimeSpent(bounds: TaskBounds): Outcome {
  return outcome("budget-exhausted", "run-time", `the run's time (${bounds.runWithinMs} ms) is spent`, [
    "the task did not finish within its time (task.run_within, VERDICT_TASK_RUN_WITHIN, --run-within)",
  ]);
}

function summary(print: Fingerprint) {
  return { entries: print.entries.size, complete: print.complete, digest: fingerprintDigest(print), problems: print.problems };
}

function syntheticId(turn: number, index: number): string {
  return `call_${turn}_${index + 1}`;
}
