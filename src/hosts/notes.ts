/** What each host needs from the person after an install: its own trust step. */
import type { Scope } from "./settings.ts";
import type { HostName } from "./types.ts";

export function trustNotes(host: HostName, scope: Scope, file: string, cwd: string): string[] {
  switch (host) {
    case "claude":
      return ["Claude Code loads these hooks with no trust step; the next session uses them."];
    case "codex":
      return [
        "Codex skips new or changed hooks until you trust them: start codex, type /hooks and trust verdict's two hooks (PreToolUse and Stop).",
        'Trust is kept by hash in $CODEX_HOME/config.toml ([hooks.state."' +
          file +
          ':pre_tool_use:N:0"]), so a change to the hook command needs trusting again.',
        ...(scope === "project"
          ? [`Project hooks load only when the project is trusted ([projects."${cwd}"] trust_level = "trusted").`]
          : []),
        "verdict doctor reports whether the hooks are trusted.",
      ];
    case "gemini":
      return scope === "project"
        ? [
            `Gemini CLI loads project hooks only in a trusted folder: trust ${cwd} when Gemini asks (or add it to ~/.gemini/trustedFolders.json as "TRUST_FOLDER").`,
            'On first sight Gemini CLI prints a "project-level hooks have been detected" warning and runs them.',
          ]
        : ["Gemini CLI loads user hooks with no trust step; the next session uses them."];
    case "cursor":
      return [
        "Cursor reads hooks.json when it starts: restart Cursor. Its stop hook can only send a follow-up message, bounded by loop_limit.",
      ];
  }
}
