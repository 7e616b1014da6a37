/** Per-host settings for the hook adapters. */
import { z } from "zod";

const OnError = z.enum(["ask", "deny", "pass"]);

export const HostsSection = z
  .strictObject({
    on_error: z.strictObject({ claude: OnError, codex: OnError, gemini: OnError, cursor: OnError }),
    max_continues: z.number().int().min(0).max(20),
  })
  .describe("Hook adapters for Claude Code, Codex CLI, Gemini CLI and Cursor.");
