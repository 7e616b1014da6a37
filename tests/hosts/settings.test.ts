import { describe, expect, test } from "bun:test";
import {
  commandBinary,
  hookCommand,
  isOwnCommand,
  planInstall,
  planUninstall,
  registeredCommands,
  settingsPath,
  staleMatchers,
  TOOL_MATCHERS,
} from "../../src/hosts/settings.ts";
import { sampleText } from "./helpers.ts";

const CMD = "/opt/verdict/bin/verdict hook claude";
const OPTS = { timeoutMs: 30000, maxContinues: 2 };

describe("whose hook is it", () => {
  test("verdict's commands, however installed", () => {
    expect(isOwnCommand("/usr/local/bin/verdict hook claude")).toBe(true);
    expect(isOwnCommand("'/home/a b/verdict' hook codex")).toBe(true);
    expect(isOwnCommand("/x/dist/verdict-linux-x64 hook gemini")).toBe(true);
    expect(isOwnCommand("/usr/bin/bun /src/verdict/src/cli/main.ts hook cursor")).toBe(true);
    expect(isOwnCommand("node /home/dev/hooks/hook-recorder.mjs PRE /home/dev/hooks/stub.json")).toBe(false);
    expect(isOwnCommand("verdict-like-tool hook claude --other")).toBe(false);
    expect(isOwnCommand("echo verdict hook claude; rm -rf /")).toBe(false);
  });

  test("a binary path with spaces is quoted, and read back", () => {
    const command = hookCommand(["/home/a b/verdict"], "claude");
    expect(command).toBe("'/home/a b/verdict' hook claude");
    expect(commandBinary(command)).toBe("/home/a b/verdict");
  });

  test("where each host keeps its settings", () => {
    const env = { HOME: "/h" };
    expect(settingsPath("claude", "project", "/p", env)).toBe("/p/.claude/settings.json");
    expect(settingsPath("claude", "user", "/p", env)).toBe("/h/.claude/settings.json");
    expect(settingsPath("codex", "user", "/p", { HOME: "/h", CODEX_HOME: "/c" })).toBe("/c/hooks.json");
    expect(settingsPath("gemini", "project", "/p", env)).toBe("/p/.gemini/settings.json");
    expect(settingsPath("cursor", "user", "/p", env)).toBe("/h/.cursor/hooks.json");
  });
});

describe("install and uninstall", () => {
  const existing = JSON.stringify({
    permissions: { allow: ["Bash(ls:*)"] },
    hooks: {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "node /home/dev/hooks/audit.mjs", timeout: 5 }] },
        { matcher: "Write|Edit", hooks: [{ type: "command", command: "prettier-hook" }] },
      ],
      Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
      SessionStart: [{ hooks: [{ type: "command", command: "echo hi" }] }],
    },
    model: "opus",
  });

  test("claude: keeps every other hook and setting, adds verdict's; a second install changes nothing", () => {
    const first = planInstall("claude", existing, "s.json", CMD, OPTS);
    expect(first.changed).toBe(true);
    const before = JSON.parse(existing);
    const after = first.after as any;
    expect(after.permissions).toEqual(before.permissions);
    expect(after.model).toBe("opus");
    expect(after.hooks.SessionStart).toEqual(before.hooks.SessionStart);
    expect(after.hooks.PreToolUse.slice(0, 2)).toEqual(before.hooks.PreToolUse);
    expect(after.hooks.PreToolUse[2]).toEqual({
      matcher: TOOL_MATCHERS.claude,
      hooks: [{ type: "command", command: CMD, timeout: 30, onFailure: "block" }],
    });
    expect(TOOL_MATCHERS.claude).toBe("Bash|Write|Edit|MultiEdit|NotebookEdit|Read|WebFetch|mcp__.*");
    expect(after.hooks.Stop[0]).toEqual(before.hooks.Stop[0]);
    expect(after.hooks.Stop[1].hooks[0].command).toBe(CMD);
    const second = planInstall("claude", first.text, "s.json", CMD, OPTS);
    expect(second.changed).toBe(false);
    expect(second.text).toBe(first.text);
  });

  test("claude: a reinstall from another path replaces verdict's entries in place", () => {
    const first = planInstall("claude", existing, "s.json", "/old/verdict hook claude", OPTS).text;
    const again = planInstall("claude", first, "s.json", CMD, { ...OPTS, timeoutMs: 10000 });
    const commands = registeredCommands(again.after);
    expect(commands.map((c) => c.command)).toEqual([CMD, CMD]);
    expect((again.after as any).hooks.PreToolUse).toHaveLength(3);
    expect((again.after as any).hooks.PreToolUse[2].hooks[0].timeout).toBe(10);
  });

  test("claude: uninstall removes exactly verdict's entries", () => {
    const installed = planInstall("claude", existing, "s.json", CMD, OPTS).text;
    const removed = planUninstall("claude", installed, "s.json");
    expect(removed.removed).toBe(2);
    expect(removed.after).toEqual(JSON.parse(existing));
    expect(planUninstall("claude", removed.text, "s.json").changed).toBe(false);
  });

  test("claude: a verdict handler sharing a group with another hook is taken out of it, the other kept", () => {
    const shared = JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "audit" },
              { type: "command", command: "/old/verdict hook claude" },
            ],
          },
        ],
      },
    });
    const removed = planUninstall("claude", shared, "s.json").after as any;
    expect(removed.hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: "audit" }] }]);
  });

  test("an empty or missing file gets only verdict's hooks; uninstall leaves an empty object", () => {
    const plan = planInstall("codex", undefined, "hooks.json", "/v/verdict hook codex", OPTS);
    expect(Object.keys(plan.after)).toEqual(["hooks"]);
    expect(Object.keys((plan.after as any).hooks)).toEqual(["PreToolUse", "Stop"]);
    expect(planUninstall("codex", plan.text, "hooks.json").after).toEqual({});
  });

  test("codex: the captured hooks.json shape; other hooks kept", () => {
    const plan = planInstall("codex", sampleText("codex-hooks.json"), "hooks.json", "/v/verdict hook codex", OPTS);
    const after = plan.after as any;
    expect(after.hooks.PreToolUse).toHaveLength(2);
    expect(after.hooks.PreToolUse[1]).toEqual({
      matcher: "Bash|apply_patch|mcp__.*",
      hooks: [{ type: "command", command: "/v/verdict hook codex", timeout: 30 }],
    });
    expect(Object.keys(after)).toEqual(["hooks"]);
  });

  test("gemini: BeforeTool on run_shell_command and AfterAgent, timeouts in milliseconds, named hooks", () => {
    const plan = planInstall("gemini", sampleText("gemini-project-settings.json"), "settings.json", "/v/verdict hook gemini", OPTS);
    const after = plan.after as any;
    expect(after.hooks.BeforeTool[1]).toEqual({
      matcher: "run_shell_command|write_file|replace|read_file|read_many_files|web_fetch|mcp_.*",
      hooks: [{ type: "command", name: "verdict", command: "/v/verdict hook gemini", timeout: 30000 }],
    });
    expect(after.hooks.AfterAgent[1].hooks[0]).toMatchObject({ name: "verdict-turn-end", timeout: 30000 });
    expect(planInstall("gemini", plan.text, "settings.json", "/v/verdict hook gemini", OPTS).changed).toBe(false);
  });

  test("cursor: version 1, flat entries, fail closed before a command, loop_limit at the turn's end", () => {
    const existingCursor = JSON.stringify({
      version: 1,
      hooks: { beforeShellExecution: [{ command: "./audit.sh" }], afterFileEdit: [{ command: "./fmt.sh" }] },
    });
    const plan = planInstall("cursor", existingCursor, "hooks.json", "/v/verdict hook cursor", OPTS);
    const after = plan.after as any;
    expect(after.hooks.beforeShellExecution).toEqual([{ command: "./audit.sh" }, { command: "/v/verdict hook cursor", failClosed: true }]);
    expect(after.hooks.stop).toEqual([{ command: "/v/verdict hook cursor", loop_limit: 2 }]);
    expect(after.hooks.afterFileEdit).toEqual([{ command: "./fmt.sh" }]);
    expect(planUninstall("cursor", plan.text, "hooks.json").after).toEqual(JSON.parse(existingCursor));
  });

  test("a settings file that is not JSON is refused, not overwritten", () => {
    expect(() => planInstall("claude", "{ not json", "/p/.claude/settings.json", CMD, OPTS)).toThrow(/not valid JSON/);
  });
});

describe("tool matchers", () => {
  test("an install registered for the shell alone is found stale by doctor's check; a fresh install is not", () => {
    const old = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "/v/verdict hook claude" }] }] } };
    expect(staleMatchers("claude", old)).toEqual([`PreToolUse (matcher "Bash", not ${JSON.stringify(TOOL_MATCHERS.claude)})`]);
    const fresh = planInstall("claude", JSON.stringify(old), "settings.json", "/v/verdict hook claude", {
      timeoutMs: 30000,
      maxContinues: 2,
    });
    expect(staleMatchers("claude", fresh.after)).toEqual([]);
    // uninstall removes exactly verdict's group, whatever its matcher
    const removed = planUninstall("claude", fresh.text, "settings.json");
    expect(removed.after.hooks).toBeUndefined();
  });

  test("cursor: file reads and MCP calls are registered, and removed again", () => {
    const plan = planInstall("cursor", undefined, "hooks.json", "/v/verdict hook cursor", { timeoutMs: 30000, maxContinues: 2 });
    const hooks = plan.after.hooks as Record<string, unknown[]>;
    expect(Object.keys(hooks)).toEqual(["beforeShellExecution", "beforeReadFile", "beforeMCPExecution", "stop"]);
    expect(hooks.beforeReadFile).toEqual([{ command: "/v/verdict hook cursor", failClosed: true }]);
    expect(planUninstall("cursor", plan.text, "hooks.json").after.hooks).toBeUndefined();
  });
});
