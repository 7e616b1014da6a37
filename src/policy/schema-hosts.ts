/**
 * Per-host settings for the hook adapters (`verdict hook <host>`, `verdict install <host>`). Each map
 * names the four hosts explicitly, and a host that cannot ask (Codex runs a command after `ask`; Gemini
 * CLI ends a headless run silently on it) cannot be configured to ask.
 */
import { z } from "zod";
import { Duration } from "./schema-common.ts";

const CanAsk = z.enum(["ask", "deny", "pass"]);
const CannotAsk = z
  .enum(["deny", "pass"])
  .describe("deny or pass: this host cannot ask a person (ask would let the command run or end the run).");

function perHost(what: string) {
  return z
    .strictObject({
      claude: CanAsk.describe(`${what} on Claude Code (in headless -p runs, ask is a denial whose reason the model reads).`),
      codex: CannotAsk.describe(`${what} on Codex CLI: deny (with the line and how to approve) or pass (Codex's own approval decides).`),
      gemini: CannotAsk.describe(`${what} on Gemini CLI: deny or pass (an ask would end a headless run silently).`),
      cursor: CanAsk.describe(`${what} on Cursor.`),
    })
    .describe(`${what}, per host: ask, deny or pass (no opinion: the host's own permission check decides).`);
}

export const HostsSection = z
  .strictObject({
    on_error: perHost(
      "The decision on a shell command when verdict itself fails (a broken policy, a malformed payload, a crash, no time left)",
    ),
    ask_becomes: perHost("What an ask verdict becomes"),
    judge_turn_ends: z.boolean().describe("Judge a turn's end and ask the host to continue a turn that stopped early."),
    max_continues: z
      .number()
      .int()
      .min(0)
      .max(20)
      .describe("The most times in a row a host is asked to continue a turn (0: never). Cursor's loop_limit is set to this too."),
    respond_within: Duration.describe(
      "The latest a hook answers, counted from its start, whatever happens; past it the host gets on_error (commands) or pass (turn ends). Keep it below hook_timeout.",
    ),
    hook_timeout: Duration.describe(
      "The timeout verdict install writes into each host's settings (seconds for Claude Code and Codex, milliseconds for Gemini CLI).",
    ),
  })
  .describe("Hook adapters for Claude Code, Codex CLI, Gemini CLI and Cursor.");

export type HostsSettings = z.infer<typeof HostsSection>;
