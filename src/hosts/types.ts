/** What every host adapter shares: the events verdict has an opinion on, and the reply a host reads. */
import type { ToolCall } from "../tools/types.ts";

export const HOST_NAMES = ["claude", "codex", "gemini", "cursor"] as const;
export type HostName = (typeof HOST_NAMES)[number];

export function isHostName(name: string | undefined): name is HostName {
  return (HOST_NAMES as readonly string[]).includes(name ?? "");
}

export const HOST_TITLES: Record<HostName, string> = {
  claude: "Claude Code",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
  cursor: "Cursor",
};

export type Payload = Record<string, unknown>;

/** A shell command about to run. */
type CommandEvent = { kind: "command"; event: string; command: string; cwd: string; sessionId?: string };

/** A turn about to end. `final` is the assistant's final message where the host gives it. */
export type TurnEndEvent = {
  kind: "turn-end";
  event: string;
  cwd: string;
  sessionId?: string;
  /** the host is already continuing because of a turn-end hook */
  stopHookActive: boolean;
  final?: string;
  /** the developer's prompt, where the host gives it (Gemini CLI) */
  prompt?: string;
  transcriptPath?: string;
  /** Cursor: how many follow-ups in a row so far */
  loopCount?: number;
  /** Cursor: completed | aborted | error */
  status?: string;
  /** Claude Code: background tasks still known to the session */
  backgroundTasks?: unknown[];
};

/** A file, fetch or MCP tool call about to run (see src/tools). */
type ToolEvent = {
  kind: "tool";
  event: string;
  call: ToolCall;
  cwd: string;
  sessionId?: string;
  /** This event cannot put a question to a person even where the host otherwise can (Cursor's beforeReadFile: allow or deny). */
  cannotAsk?: boolean;
};

/** An event or tool verdict has no opinion on. */
type OtherEvent = { kind: "other"; event: string; what: string };

export type HookEvent = CommandEvent | ToolEvent | TurnEndEvent | OtherEvent;

/** The decision on a command, in verdict's vocabulary; `pass` is no opinion. */
export type CommandDecision = "allow" | "deny" | "ask" | "pass";

/** What the hook prints and how it exits. */
export type HookReply = { stdout: string; exitCode: number };

export const NO_OPINION: HookReply = { stdout: "", exitCode: 0 };

/** A payload the adapter cannot use (missing or mistyped fields). */
// Defined with the tool-call payloads (src/tools), which hosts import: tools never import hosts (no folder cycle).
export { PayloadError } from "../tools/types.ts";
import { PayloadError } from "../tools/types.ts";

export interface Adapter {
  name: HostName;
  /** Whether the host can put an `ask` to a person (Codex and Gemini CLI cannot). */
  canAsk: boolean;
  /** Reads a payload; throws PayloadError when it is one of ours but unusable. */
  recognise(payload: Payload): HookEvent;
  /** The reply for a decision on a command. `ask` on a host that cannot ask is treated as `deny`. */
  command(decision: CommandDecision, reason: string): HookReply;
  /** The reply at a turn's end: continue with the reason, or let the turn end. */
  turnEnd(continueWith: string | undefined): HookReply;
}

export function str(payload: Payload, key: string): string | undefined {
  const value = payload[key];
  return typeof value === "string" ? value : undefined;
}

export function requireStr(payload: Payload, key: string, what: string): string {
  const value = payload[key];
  if (typeof value !== "string" || value === "")
    throw new PayloadError(
      `${what}: ${key} is ${value === undefined ? "missing" : `not a non-empty string (${JSON.stringify(value)?.slice(0, 60)})`}`,
    );
  return value;
}

export function obj(payload: Payload, key: string): Payload | undefined {
  const value = payload[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Payload) : undefined;
}

/** A non-empty reason: Codex treats a deny with an empty reason as a failed hook and runs the command. */
export function nonEmpty(reason: string): string {
  return reason.trim() === "" ? "verdict refused this command" : reason;
}
