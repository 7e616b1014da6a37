// Each adapter against the payloads the real hosts sent (tests/hosts/samples), and each reply against
// what the real hosts were seen to honour (the same replies are proved with the real CLIs in tests/e2e).
import { describe, expect, test } from "bun:test";
import { ADAPTERS } from "../../src/hosts/hook.ts";
import { replyEffect } from "../../src/hosts/roundtrip.ts";
import { sample } from "./helpers.ts";

const PRE = { claude: "claude-pretooluse.json", codex: "codex-pretooluse.json", gemini: "gemini-beforetool.json" } as const;
const STOP = {
  claude: ["claude-stop.json", "claude-stop-second-call.json"],
  codex: ["codex-stop.json", "codex-stop-second-call.json"],
  gemini: ["gemini-afteragent.json", "gemini-afteragent-second-call.json"],
} as const;
const MARKER = "touch /home/dev/project/hook-e2e-marker";

describe("recognising the captured payloads", () => {
  for (const host of ["claude", "codex", "gemini"] as const) {
    test(`${host}: the pre-tool payload is a command, with its cwd and session`, () => {
      const payload = sample(PRE[host]);
      const event = ADAPTERS[host].recognise(payload);
      expect(event).toMatchObject({ kind: "command", command: MARKER, cwd: "/home/dev/project", sessionId: payload.session_id });
    });

    test(`${host}: the turn-end payloads are turn ends; the second is already continuing`, () => {
      const [first, second] = STOP[host].map((name) => ADAPTERS[host].recognise(sample(name)));
      expect(first).toMatchObject({ kind: "turn-end", stopHookActive: false, final: "FAKE_FINAL: done." });
      expect(second).toMatchObject({ kind: "turn-end", stopHookActive: true });
    });

    test(`${host}: another tool gets no opinion`, () => {
      const payload = { ...sample(PRE[host]), tool_name: host === "gemini" ? "glob" : "Glob", tool_input: { pattern: "*" } };
      expect(ADAPTERS[host].recognise(payload).kind).toBe("other");
    });

    test(`${host}: a file tool is a tool call`, () => {
      const [tool, input] =
        host === "gemini"
          ? ["write_file", { file_path: "/home/dev/.bashrc", content: "x\n" }]
          : host === "codex"
            ? ["apply_patch", { command: "*** Begin Patch\n*** Add File: /home/dev/.bashrc\n+x\n*** End Patch\n" }]
            : ["Write", { file_path: "/home/dev/.bashrc", content: "x\n" }];
      const event = ADAPTERS[host].recognise({ ...sample(PRE[host]), tool_name: tool, tool_input: input });
      expect(event).toMatchObject({
        kind: "tool",
        call: { tool, parts: [{ kind: "write", path: "/home/dev/.bashrc", content: "x\n", added: 1 }] },
      });
    });

    test(`${host}: another event gets no opinion`, () => {
      const payload = { ...sample(PRE[host]), hook_event_name: host === "gemini" ? "AfterTool" : "PostToolUse" };
      expect(ADAPTERS[host].recognise(payload).kind).toBe("other");
    });

    test(`${host}: a shell call without a command is an unusable payload`, () => {
      const payload = { ...sample(PRE[host]), tool_input: {} };
      expect(() => ADAPTERS[host].recognise(payload)).toThrow(/command is missing/);
    });
  }

  test("gemini: AfterAgent carries the prompt and the response", () => {
    const event = ADAPTERS.gemini.recognise(sample("gemini-afteragent-second-call.json"));
    expect(event).toMatchObject({ prompt: "Run the scripted test command.", final: "FAKE_FINAL: done.\nFAKE_FINAL: done." });
  });

  test("codex: the captured apply_patch payloads (a Bash here-document Codex applies itself) are patches", () => {
    const add = ADAPTERS.codex.recognise(sample("codex-pretooluse-apply-patch-add.json"));
    expect(add).toMatchObject({ kind: "tool", call: { tool: "apply_patch", parts: [{ kind: "write", content: "hi\n", added: 1 }] } });
    const update = ADAPTERS.codex.recognise(sample("codex-pretooluse-apply-patch-update.json"));
    expect(update).toMatchObject({ kind: "tool", call: { parts: [{ kind: "edit", old: "hi", content: "ho", added: 1, removed: 1 }] } });
    // Another host's shell running a program named apply_patch is an ordinary command.
    expect(
      ADAPTERS.claude.recognise({
        ...sample(PRE.claude),
        tool_input: { command: (sample("codex-pretooluse-apply-patch-add.json").tool_input as { command: string }).command },
      }).kind,
    ).toBe("command");
  });

  test("every captured file-tool payload becomes the call it is", () => {
    const cases = [
      ["claude", "claude-pretooluse-write.json", { kind: "write", content: "one\n" }],
      ["claude", "claude-pretooluse-edit.json", { kind: "edit", old: "alpha", content: "gamma", added: 1, removed: 1 }],
      ["claude", "claude-pretooluse-read.json", { kind: "read" }],
      ["claude", "claude-pretooluse-webfetch.json", { kind: "fetch", url: "https://example.com/" }],
      ["gemini", "gemini-beforetool-write-file.json", { kind: "write", content: "one\n" }],
      ["gemini", "gemini-beforetool-replace.json", { kind: "edit", old: "alpha", content: "gamma" }],
      ["gemini", "gemini-beforetool-read-file.json", { kind: "read", path: "notes.md" }],
      ["gemini", "gemini-beforetool-web-fetch.json", { kind: "fetch", url: "https://example.com/" }],
    ] as const;
    for (const [host, file, part] of cases) {
      const event = ADAPTERS[host].recognise(sample(file));
      expect(event, file).toMatchObject({ kind: "tool", call: { parts: [part] } });
    }
  });

  test("the captured MCP payloads: server and tool from mcp__server__tool, or from Gemini CLI's mcp_context", () => {
    for (const [host, file] of [
      ["claude", "claude-pretooluse-mcp.json"],
      ["codex", "codex-pretooluse-mcp.json"],
      ["gemini", "gemini-beforetool-mcp.json"],
    ] as const) {
      expect(ADAPTERS[host].recognise(sample(file))).toMatchObject({
        kind: "tool",
        call: { parts: [{ kind: "mcp", server: "e2e", tool: "delete_thing", args: { id: "t1" } }] },
      });
    }
  });

  test("codex: apply_patch is a tool call; a patch that cannot be read is an unusable payload", () => {
    const payload = { ...sample("codex-pretooluse.json"), tool_name: "apply_patch", tool_input: { command: "*** Begin Patch" } };
    expect(() => ADAPTERS.codex.recognise(payload)).toThrow(/the patch cannot be read/);
  });

  test("cursor: beforeShellExecution, the generic Shell preToolUse, and stop with loop_count", () => {
    const base = { conversation_id: "c1", generation_id: "g1", workspace_roots: ["/home/dev/project"] };
    expect(ADAPTERS.cursor.recognise({ ...base, hook_event_name: "beforeShellExecution", command: "ls", cwd: "/w" })).toMatchObject({
      kind: "command",
      command: "ls",
      cwd: "/w",
      sessionId: "c1",
    });
    expect(
      ADAPTERS.cursor.recognise({ ...base, hook_event_name: "preToolUse", tool_name: "Shell", tool_input: { command: "ls" } }),
    ).toMatchObject({ kind: "command", cwd: "/home/dev/project" });
    expect(ADAPTERS.cursor.recognise({ ...base, hook_event_name: "preToolUse", tool_name: "Grep", tool_input: {} }).kind).toBe("other");
    expect(
      ADAPTERS.cursor.recognise({
        ...base,
        hook_event_name: "preToolUse",
        tool_name: "Write",
        tool_input: { file_path: "a.ts", content: "x" },
      }),
    ).toMatchObject({ kind: "tool", call: { parts: [{ kind: "write", path: "a.ts" }] } });
    expect(
      ADAPTERS.cursor.recognise({ ...base, hook_event_name: "beforeReadFile", file_path: "/home/dev/.env", content: "K=v" }),
    ).toMatchObject({ kind: "tool", call: { parts: [{ kind: "read", path: "/home/dev/.env" }] } });
    expect(
      ADAPTERS.cursor.recognise({
        ...base,
        hook_event_name: "beforeMCPExecution",
        tool_name: "delete_repository",
        tool_input: '{"repo":"x"}',
        url: "https://mcp.example",
      }),
    ).toMatchObject({
      kind: "tool",
      call: { parts: [{ kind: "mcp", server: "https://mcp.example", tool: "delete_repository", args: { repo: "x" } }] },
    });
    expect(ADAPTERS.cursor.recognise({ ...base, hook_event_name: "stop", status: "completed", loop_count: 2 })).toMatchObject({
      kind: "turn-end",
      loopCount: 2,
      stopHookActive: true,
      status: "completed",
    });
  });
});

describe("replies in each host's vocabulary", () => {
  test("the reply shapes the hosts honoured in the captured runs", () => {
    // The captured deny runs' hook replies were honoured (the command did not run).
    for (const host of ["claude", "codex", "gemini"] as const) {
      const outcome = sample(`${host}-outcome-deny.json`);
      expect(outcome.command_executed).toBe(false);
      const honoured = JSON.parse(outcome.hook_replies[0].stdout);
      const ours = JSON.parse(ADAPTERS[host].command("deny", "stub: deny by policy").stdout);
      expect(ours).toEqual(honoured);
      const stop = JSON.parse(sample(`${host}-outcome-stop-block.json`).hook_replies[1].stdout);
      const ourStop = JSON.parse(ADAPTERS[host].turnEnd(stop.reason).stdout);
      expect(ourStop.reason).toBe(stop.reason);
      expect(["block", "deny"]).toContain(ourStop.decision);
    }
  });

  const expected = {
    claude: { allow: "runs", deny: "blocks", ask: "asks", pass: "no-opinion" },
    codex: { allow: "runs", deny: "blocks", ask: "blocks", pass: "runs" },
    gemini: { allow: "runs", deny: "blocks", ask: "blocks", pass: "runs" },
    cursor: { allow: "runs", deny: "blocks", ask: "asks", pass: "no-opinion" },
  } as const;
  for (const host of ["claude", "codex", "gemini", "cursor"] as const) {
    test(`${host}: allow, deny, ask and pass mean what they should; exit 0 always`, () => {
      for (const decision of ["allow", "deny", "ask", "pass"] as const) {
        const reply = ADAPTERS[host].command(decision, "a reason");
        expect(reply.exitCode).toBe(0);
        expect(replyEffect(host, reply.stdout, reply.exitCode)).toBe(expected[host][decision]);
      }
    });
  }

  test("codex: a bare allow is never printed (Codex treats it as a failed hook)", () => {
    expect(ADAPTERS.codex.command("allow", "fine").stdout).toBe("");
  });

  test("codex and gemini never print ask", () => {
    for (const host of ["codex", "gemini"] as const) expect(ADAPTERS[host].command("ask", "why").stdout).not.toContain('"ask"');
  });

  test("codex: a deny always carries a non-empty reason (an empty one fails open)", () => {
    const reply = JSON.parse(ADAPTERS.codex.command("deny", "  ").stdout);
    expect(reply.hookSpecificOutput.permissionDecisionReason.trim()).not.toBe("");
  });

  test("turn ends: continue with the reason, or print nothing", () => {
    expect(JSON.parse(ADAPTERS.claude.turnEnd("go on").stdout)).toEqual({ decision: "block", reason: "go on" });
    expect(JSON.parse(ADAPTERS.codex.turnEnd("go on").stdout)).toEqual({ decision: "block", reason: "go on" });
    expect(JSON.parse(ADAPTERS.gemini.turnEnd("go on").stdout)).toEqual({ decision: "deny", reason: "go on" });
    expect(JSON.parse(ADAPTERS.cursor.turnEnd("go on").stdout)).toEqual({ followup_message: "go on" });
    for (const host of ["claude", "codex", "gemini"] as const) expect(ADAPTERS[host].turnEnd(undefined).stdout).toBe("");
  });
});
