/**
 * The shared flow behind `verdict hook <host>`: read the payload, recognise the event, load the policy,
 * judge, and answer in the host's vocabulary. Whatever goes wrong, it still answers: a command gets the
 * policy's hosts.on_error for the host (with the error in the reason), a turn's end gets pass.
 */
import { DEFAULT_POLICY } from "../policy/generated/default-policy.ts";
import { redact } from "../core/redact.ts";
import type { CommandJudgment, TurnJudgment } from "../judge/index.ts";
import type { ToolInput, ToolJudgment } from "../judge/tool.ts";
import { callText, type ToolCall } from "../tools/types.ts";
import type { LoadedPolicy, LoadResult } from "../policy/index.ts";
import type { HostsSettings } from "../policy/schema-hosts.ts";
import { afterPrevious, readContinueState, writeContinues } from "./continues.ts";
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import { transcriptFacts, type RanCommand } from "./transcript.ts";
import {
  HOST_TITLES,
  NO_OPINION,
  PayloadError,
  type Adapter,
  type CommandDecision,
  type HookEvent,
  type HookReply,
  type HostName,
  type Payload,
  type TurnEndEvent,
} from "./types.ts";

export const ADAPTERS: Record<HostName, Adapter> = { claude, codex, gemini, cursor };

/** The hosts section of the embedded default policy, for when no policy can be loaded at all. */
/** The embedded default's hosts section: what a hook falls back on when no policy can be loaded. */
export const DEFAULT_HOSTS: HostsSettings = DEFAULT_POLICY.hosts;

export interface HookDeps {
  loadPolicy(cwd: string): LoadResult;
  /** the embedded default policy alone, for a broken user policy's on_error */
  loadDefaultPolicy(): LoadResult;
  judgeCommand(
    input: { command: string; cwd: string; host: string; event: string; startedAt: number },
    loaded: LoadedPolicy,
  ): Promise<CommandJudgment>;
  /** A file, fetch or MCP tool call; absent: no opinion on tool calls. */
  judgeTool?(input: ToolInput, loaded: LoadedPolicy): Promise<ToolJudgment>;
  judgeTurnEnd(
    input: {
      requests: string[];
      final: string;
      host: string;
      event: string;
      cwd: string;
      startedAt: number;
      transcript?: { commands: RanCommand[] };
    },
    loaded: LoadedPolicy,
  ): Promise<TurnJudgment>;
  /**
   * An ask on a host that cannot ask (approvals.hosts_that_cannot_ask): open or find the approval task for
   * the call and say what to do, or allow it if a person already approved it. Absent: a plain denial.
   */
  hostAsk?(
    call: { command: string; cwd: string; host: string; session?: string; tool?: string; program?: string },
    judgment: CommandJudgment | ToolJudgment,
    loaded: LoadedPolicy,
  ): { decision: "allow" | "deny"; reason: string };
  startedAt: number;
  stateDir: string;
  /** called as soon as the hosts settings are known (the CLI re-arms its deadline with them) */
  onSettings?(hosts: HostsSettings): void;
  /** called as soon as the kind of event is known (the CLI's deadline answers accordingly) */
  onKind?(kind: EventKind): void;
}

export type EventKind = "command" | "turn-end" | "other" | "unknown";

export type HookOutcome = {
  reply: HookReply;
  kind: EventKind;
  event: string;
  /** what verdict decided, in its own vocabulary, and what the host was told */
  decision: CommandDecision | "continue" | "stop" | "none";
  line: string;
  error?: string;
  command?: string;
  judgment?: CommandJudgment | TurnJudgment | ToolJudgment;
};

// Tool calls (Cursor's beforeReadFile and beforeMCPExecution too) are answered like commands at the deadline.
const COMMAND_EVENTS = new Set(["PreToolUse", "BeforeTool", "beforeShellExecution", "preToolUse", "beforeReadFile", "beforeMCPExecution"]);
const TURN_END_EVENTS = new Set(["Stop", "AfterAgent", "stop"]);

/** The kind of event in a payload that may not parse. */
export function sniffKind(raw: string): EventKind {
  const match = /"hook_event_name"\s*:\s*"([A-Za-z]+)"/.exec(raw);
  if (match && COMMAND_EVENTS.has(match[1]!)) return "command";
  if (match && TURN_END_EVENTS.has(match[1]!)) return "turn-end";
  if (match) return "other";
  return /"(tool_input|command)"\s*:/.test(raw) ? "command" : "unknown";
}

function reasonFor(line: string): string {
  return `verdict: ${line}`;
}

/** The reply when verdict cannot judge: on_error for a command, pass for anything else. */
export function fallbackReply(host: HostName, kind: EventKind, raw: string, hosts: HostsSettings = DEFAULT_HOSTS): HookOutcome {
  // An error may carry part of a payload or a file: what reaches the host (and its model) is redacted.
  const error = redact(raw);
  const adapter = ADAPTERS[host];
  if (kind !== "command") {
    const reply = kind === "turn-end" ? adapter.turnEnd(undefined) : NO_OPINION;
    return {
      reply,
      kind,
      event: "",
      decision: kind === "turn-end" ? "stop" : "none",
      line: `verdict could not judge this: ${error}`,
      error,
    };
  }
  const decision = hosts.on_error[host] as CommandDecision;
  const what = decision === "deny" ? "refused" : decision === "ask" ? "put to you" : "left to the usual permission check";
  const line = `verdict could not judge this command, so it is ${what} (hosts.on_error.${host}: ${decision}): ${error}`;
  return { reply: adapter.command(decision, line), kind, event: "", decision, line, error };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message.split("\n").slice(0, 6).join("; ");
  return String(error);
}

export async function runHook(host: HostName, raw: string, deps: HookDeps): Promise<HookOutcome> {
  const adapter = ADAPTERS[host];
  let kind: EventKind = sniffKind(raw);
  deps.onKind?.(kind);
  let payload: Payload;
  try {
    const parsed = JSON.parse(raw);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new PayloadError("the payload is not a JSON object");
    payload = parsed as Payload;
  } catch (error) {
    return fallbackReply(host, kind, `malformed ${HOST_TITLES[host]} payload: ${errorText(error)}`);
  }
  let event: HookEvent;
  try {
    event = adapter.recognise(payload);
  } catch (error) {
    return fallbackReply(host, kind, `unusable ${HOST_TITLES[host]} payload: ${errorText(error)}`);
  }
  // A tool call is answered like a command (hosts.on_error, hosts.ask_becomes apply to it).
  kind = event.kind === "tool" ? "command" : event.kind;
  deps.onKind?.(kind);
  if (event.kind === "other") {
    return { reply: NO_OPINION, kind, event: event.event, decision: "none", line: `no opinion on ${event.what} (${event.event})` };
  }

  let loaded: LoadedPolicy;
  const result = safe(() => deps.loadPolicy(event.cwd));
  if (!result.ok) {
    const fallback = safe(() => deps.loadDefaultPolicy());
    const hosts = fallback.ok ? fallback.loaded.policy.hosts : DEFAULT_HOSTS;
    deps.onSettings?.(hosts);
    const message = "error" in result ? errorText(result.error) : "unknown error";
    const command = event.kind === "command" ? event.command : event.kind === "tool" ? callText(event.call) : undefined;
    return { ...fallbackReply(host, kind, `the policy cannot be used: ${message}`, hosts), event: event.event, command };
  }
  loaded = result.loaded;
  const hosts = loaded.policy.hosts;
  deps.onSettings?.(hosts);

  if (event.kind === "command") {
    try {
      const judged = await deps.judgeCommand(
        { command: event.command, cwd: event.cwd, host, event: event.event, startedAt: deps.startedAt },
        loaded,
      );
      // A rule's safer form (suggest:) goes with an ask or a deny, so the assistant can take it.
      // From the rule that matched: looking it up by id in policy.rules would unpack every rule (≈2.5 M instructions).
      const suggest = judged.verdict === "ask" || judged.verdict === "deny" ? judged.rule?.suggest : undefined;
      const judgment = suggest ? { ...judged, line: `${judged.line}. Instead: ${suggest}` } : judged;
      const asked = judgment.verdict === "ask" ? askWithoutAsking(adapter, hosts, judgment, event, loaded, deps) : undefined;
      return { ...(asked ?? commandReply(adapter, hosts, judgment)), kind, event: event.event, command: event.command, judgment };
    } catch (error) {
      return { ...fallbackReply(host, kind, `judging failed: ${errorText(error)}`, hosts), event: event.event, command: event.command };
    }
  }
  if (event.kind === "tool") {
    const command = callText(event.call);
    if (!deps.judgeTool)
      return { reply: NO_OPINION, kind, event: event.event, decision: "none", line: `no opinion on tool ${event.call.tool}` };
    try {
      const judgment = await deps.judgeTool(
        { call: event.call, cwd: event.cwd, host, event: event.event, startedAt: deps.startedAt },
        loaded,
      );
      const shown = judgment.suggest ? { ...judgment, line: `${judgment.line}. Instead: ${judgment.suggest}` } : judgment;
      const replier = event.cannotAsk ? { ...adapter, canAsk: false } : adapter;
      // What an approval task shows (the call's digest, its content included) only for an ask.
      const approval = () => ({ command: toolApprovalText(event.call), tool: event.call.tool, program: toolProgram(event.call) });
      const asked =
        judgment.verdict === "ask" ? askWithoutAsking(replier, hosts, shown, { ...event, ...approval() }, loaded, deps) : undefined;
      return { ...(asked ?? commandReply(replier, hosts, shown)), kind, event: event.event, command, judgment };
    } catch (error) {
      return { ...fallbackReply(host, kind, `judging failed: ${errorText(error)}`, hosts), event: event.event, command };
    }
  }
  try {
    return { ...(await turnEnd(adapter, hosts, event, loaded, deps)), kind, event: event.event };
  } catch (error) {
    return { ...fallbackReply(host, kind, `judging the turn's end failed: ${errorText(error)}`, hosts), event: event.event };
  }
}

function safe(load: () => LoadResult): LoadResult | { ok: false; error: unknown } {
  try {
    return load();
  } catch (error) {
    return { ok: false, error };
  }
}

/** A command verdict in the host's vocabulary; `ask` becomes what hosts.ask_becomes says for the host. */
function commandReply(
  adapter: Adapter,
  hosts: HostsSettings,
  judgment: Pick<CommandJudgment, "verdict" | "line">,
): Pick<HookOutcome, "reply" | "decision" | "line"> {
  const verdict = judgment.verdict as CommandDecision;
  let decision: CommandDecision = verdict;
  let line = judgment.line;
  if (verdict === "ask") {
    decision = hosts.ask_becomes[adapter.name] as CommandDecision;
    if (decision === "ask" && !adapter.canAsk) decision = "deny";
    if (decision === "deny") {
      line = `${line}. This needs a person's approval, and ${HOST_TITLES[adapter.name]} cannot ask for it here, so it is refused: ask the developer to run it or to allow it (verdict approvals)`;
    }
  }
  return { reply: adapter.command(decision, reasonFor(line)), decision, line };
}

/**
 * An ask on a host that cannot ask, when the policy sends it to the approvals journal
 * (approvals.hosts_that_cannot_ask) and hosts.ask_becomes does not say pass: a denial naming the approval
 * task and the command that approves it, or an allow once a person has approved this very call.
 */
function askWithoutAsking(
  adapter: Adapter,
  hosts: HostsSettings,
  judgment: CommandJudgment | ToolJudgment,
  event: { command: string; cwd: string; sessionId?: string; tool?: string; program?: string },
  loaded: LoadedPolicy,
  deps: HookDeps,
): Pick<HookOutcome, "reply" | "decision" | "line"> | undefined {
  const becomes = hosts.ask_becomes[adapter.name];
  const cannotAsk = (loaded.policy.approvals?.hosts_that_cannot_ask as readonly string[] | undefined)?.includes(adapter.name) ?? false;
  if (!deps.hostAsk || !cannotAsk || becomes === "pass") return undefined;
  try {
    const call = {
      command: event.command,
      cwd: event.cwd,
      host: adapter.name,
      session: event.sessionId,
      ...(event.tool ? { tool: event.tool, program: event.program } : {}),
    };
    const result = deps.hostAsk(call, judgment, loaded);
    if (result.decision === "allow") {
      const line = `${judgment.line}; ${result.reason}`;
      return { reply: adapter.command("allow", reasonFor(line)), decision: "allow", line };
    }
    return { reply: adapter.command("deny", reasonFor(result.reason)), decision: "deny", line: result.reason };
  } catch (error) {
    const line = `${judgment.line}. This needs a person's approval, and the approval task could not be opened (${errorText(error)}), so it is refused`;
    return { reply: adapter.command("deny", reasonFor(line)), decision: "deny", line };
  }
}

/**
 * What an approval task shows and binds for a tool call: each part with its path and diff summary, and
 * the digest of the exact call, content included (a changed content is another call, needing its own
 * approval).
 */
function toolApprovalText(call: ToolCall): string {
  const digest = new Bun.CryptoHasher("sha256").update(JSON.stringify(call)).digest("hex").slice(0, 16);
  return `${callText(call)} [content ${digest}]`;
}

/** The program an approval task names for a tool call: the MCP server and tool, or the tool's name. */
function toolProgram(call: ToolCall): string {
  const first = call.parts[0];
  return first?.kind === "mcp" ? `${first.server}:${first.tool}` : call.tool;
}

function hasRunningBackgroundWork(event: TurnEndEvent): boolean {
  return (event.backgroundTasks ?? []).some((task) => {
    const status = (task as { status?: unknown })?.status;
    return typeof status === "string" && /running|pending|in_progress|started/i.test(status);
  });
}

async function turnEnd(
  adapter: Adapter,
  hosts: HostsSettings,
  event: TurnEndEvent,
  loaded: LoadedPolicy,
  deps: HookDeps,
): Promise<Omit<HookOutcome, "kind" | "event">> {
  const stop = (line: string, judgment?: TurnJudgment): Omit<HookOutcome, "kind" | "event"> => ({
    reply: adapter.turnEnd(undefined),
    decision: "stop",
    line,
    judgment,
  });
  if (!hosts.judge_turn_ends) return stop("turn ends are not judged (hosts.judge_turn_ends: false)");
  if (event.status !== undefined && event.status !== "completed") return stop(`the turn ended ${event.status}, not completed; not judged`);
  if (hasRunningBackgroundWork(event)) return stop("background work is still running; the turn's end is not judged");

  // In a row: the host's own count where it gives one (Cursor), else ours, reset when the host is not
  // already continuing because of a turn-end hook.
  const state =
    event.stopHookActive && event.loopCount === undefined ? readContinueState(deps.stateDir, adapter.name, event.sessionId) : { count: 0 };
  const count = event.loopCount ?? state.count;
  if (event.loopCount === undefined && !event.stopHookActive) writeContinues(deps.stateDir, adapter.name, event.sessionId, 0);
  if (count >= hosts.max_continues) {
    return stop(
      `already continued ${count} time${count === 1 ? "" : "s"} in a row; the policy allows at most ${hosts.max_continues} (hosts.max_continues)`,
    );
  }
  if (event.stopHookActive && event.loopCount === undefined && !event.sessionId) {
    return stop("the host is already continuing and gives no session id to count continues by");
  }

  const facts = transcriptFacts(adapter.name, event.transcriptPath, event.prompt);
  const requests = event.prompt !== undefined ? [event.prompt] : facts.requests;
  let final = event.final ?? facts.final;
  // Gemini CLI's prompt_response after a continue holds every answer of the turn, newline-joined: judge
  // only what came after the answer verdict last judged.
  if (final !== undefined) final = afterPrevious(final, state);
  if (final === undefined || final.trim() === "") return stop("no final message to judge");

  const transcript = facts.commands && !facts.error ? { commands: facts.commands } : undefined;
  const judgment = await deps.judgeTurnEnd(
    { requests, final, host: adapter.name, event: event.event, cwd: event.cwd, startedAt: deps.startedAt, transcript },
    loaded,
  );
  if (judgment.verdict !== "deny") {
    if (event.loopCount === undefined) writeContinues(deps.stateDir, adapter.name, event.sessionId, 0);
    return stop(judgment.line, judgment);
  }
  if (event.loopCount === undefined) writeContinues(deps.stateDir, adapter.name, event.sessionId, count + 1, event.final);
  const reason = `${reasonFor(judgment.line)}. Continue with what was asked, or say plainly what stops you.`;
  return { reply: adapter.turnEnd(reason), decision: "continue", line: judgment.line, judgment };
}
