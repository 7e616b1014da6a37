// The shared flow behind `verdict hook <host>` with a fake judge: mapping of verdicts, ask per host,
// fail-safe answers, and turn ends with their cap.
import { describe, expect, test } from "bun:test";
import { DEFAULT_HOSTS, runHook, sniffKind } from "../../src/hosts/hook.ts";
import { replyEffect } from "../../src/hosts/roundtrip.ts";
import { defaultPolicy, fakeDeps, PRE, sample, withCommand, withHosts } from "./helpers.ts";

const STOP = { claude: "claude-stop.json", codex: "codex-stop.json", gemini: "gemini-afteragent.json" } as const;
const HOSTS = ["claude", "codex", "gemini"] as const;
const cursorPre = (command: string) => ({
  hook_event_name: "beforeShellExecution",
  conversation_id: "c1",
  generation_id: "g1",
  workspace_roots: ["/w"],
  command,
  cwd: "/w",
});

function payload(host: (typeof HOSTS)[number] | "cursor", command = "rm -rf ~"): string {
  return JSON.stringify(host === "cursor" ? cursorPre(command) : withCommand(PRE[host], command));
}

describe("commands", () => {
  test("the judge is given the command, cwd, host and event", async () => {
    const deps = fakeDeps({ command: { verdict: "deny", line: "rules: no" } });
    await runHook("claude", payload("claude", "rm -rf ~"), deps);
    expect(deps.seen.commands[0]).toMatchObject({ command: "rm -rf ~", cwd: "/home/dev/project", host: "claude", event: "PreToolUse" });
  });

  for (const host of [...HOSTS, "cursor"] as const) {
    test(`${host}: deny blocks with the line as the reason`, async () => {
      const outcome = await runHook(
        host,
        payload(host),
        fakeDeps({ command: { verdict: "deny", line: "rules: recursive removal of a home directory" } }),
      );
      expect(outcome.reply.exitCode).toBe(0);
      expect(replyEffect(host, outcome.reply.stdout, 0)).toBe("blocks");
      expect(outcome.reply.stdout).toContain("verdict: rules: recursive removal of a home directory");
    });

    test(`${host}: allow lets it run; pass gives no opinion`, async () => {
      const allowed = await runHook(host, payload(host, "ls"), fakeDeps({ command: { verdict: "allow", line: "rules: reads" } }));
      expect(replyEffect(host, allowed.reply.stdout, 0)).toBe("runs");
      const passed = await runHook(host, payload(host, "ls"), fakeDeps({ command: { verdict: "pass", line: "rules: unknown" } }));
      expect(passed.decision).toBe("pass");
    });
  }

  test("ask: Claude Code and Cursor ask; Codex and Gemini CLI deny with how to get it approved", async () => {
    const deps = () => fakeDeps({ command: { verdict: "ask", line: "rules: deletes files (90%)" } });
    for (const host of ["claude", "cursor"] as const) {
      const outcome = await runHook(host, payload(host), deps());
      expect(replyEffect(host, outcome.reply.stdout, 0)).toBe("asks");
    }
    for (const host of ["codex", "gemini"] as const) {
      const outcome = await runHook(host, payload(host), deps());
      expect(outcome.decision).toBe("deny");
      expect(replyEffect(host, outcome.reply.stdout, 0)).toBe("blocks");
      expect(outcome.reply.stdout).toContain("needs a person's approval");
      expect(outcome.reply.stdout).toContain("rules: deletes files (90%)");
    }
  });

  test("ask on a host that cannot ask goes to the approvals journal: deny with the approve command, allow once approved", async () => {
    const calls: any[] = [];
    let approved = false;
    const deps = {
      ...fakeDeps({ command: { verdict: "ask", line: "rules: deletes files (90%)" } }),
      hostAsk: (call: any) => {
        calls.push(call);
        return approved
          ? { decision: "allow" as const, reason: "approved by dev (scope once, task ab12)" }
          : {
              decision: "deny" as const,
              reason: "rules: deletes files (90%) — this needs a person's approval. To allow it, run: verdict approvals approve ab12",
            };
      },
    };
    const denied = await runHook("codex", payload("codex"), deps);
    expect(replyEffect("codex", denied.reply.stdout, 0)).toBe("blocks");
    expect(denied.reply.stdout).toContain("verdict approvals approve ab12");
    expect(calls[0]).toMatchObject({ command: "rm -rf ~", cwd: "/home/dev/project", host: "codex", session: sample(PRE.codex).session_id });
    approved = true;
    const allowed = await runHook("codex", payload("codex"), deps);
    expect(replyEffect("codex", allowed.reply.stdout, 0)).toBe("runs");
    const gemini = await runHook("gemini", payload("gemini"), deps);
    expect(replyEffect("gemini", gemini.reply.stdout, 0)).toBe("runs");
    // Claude Code can ask: not sent to the journal by default.
    const claude = await runHook("claude", payload("claude"), deps);
    expect(replyEffect("claude", claude.reply.stdout, 0)).toBe("asks");
    expect(calls).toHaveLength(3);
  });

  test("ask: hosts.ask_becomes pass defers to the host's own approval", async () => {
    const policy = withHosts({ ask_becomes: { claude: "ask", codex: "pass", gemini: "pass", cursor: "deny" } });
    const codex = await runHook("codex", payload("codex"), fakeDeps({ command: { verdict: "ask", line: "x" }, policy }));
    expect(codex.reply.stdout).toBe("");
    const cursor = await runHook("cursor", payload("cursor"), fakeDeps({ command: { verdict: "ask", line: "x" }, policy }));
    expect(replyEffect("cursor", cursor.reply.stdout, 0)).toBe("blocks");
  });

  test("another tool or event: no opinion, and the judge is not asked", async () => {
    const deps = fakeDeps({ command: { verdict: "deny", line: "no" } });
    const outcome = await runHook(
      "claude",
      JSON.stringify({ ...sample(PRE.claude), tool_name: "Read", tool_input: { file_path: "/etc/passwd" } }),
      deps,
    );
    expect(outcome.reply).toEqual({ stdout: "", exitCode: 0 });
    expect(deps.seen.commands).toHaveLength(0);
  });
});

describe("fail safe", () => {
  test("the built-in copy of the default hosts section agrees with policy/default.yaml", () => {
    expect(DEFAULT_HOSTS).toEqual(defaultPolicy().policy.hosts);
  });

  const expectedOnError = { claude: "asks", codex: "blocks", gemini: "blocks", cursor: "asks" } as const;

  for (const host of [...HOSTS, "cursor"] as const) {
    test(`${host}: a broken policy gives hosts.on_error with the error in the reason`, async () => {
      const outcome = await runHook(host, payload(host), fakeDeps({ policy: new Error("policy.yaml:3:1: rules.0.act: unknown act") }));
      expect(replyEffect(host, outcome.reply.stdout, outcome.reply.exitCode)).toBe(expectedOnError[host]);
      expect(outcome.reply.stdout).toContain("unknown act");
      expect(outcome.error).toContain("the policy cannot be used");
    });

    test(`${host}: a crash in the judge gives hosts.on_error`, async () => {
      const outcome = await runHook(host, payload(host), fakeDeps({ command: new Error("boom") }));
      expect(replyEffect(host, outcome.reply.stdout, outcome.reply.exitCode)).toBe(expectedOnError[host]);
      expect(outcome.reply.stdout).toContain("judging failed: boom");
    });

    test(`${host}: a malformed payload gives hosts.on_error when it looks like a command`, async () => {
      const raw = payload(host).slice(0, -5);
      const outcome = await runHook(host, raw, fakeDeps({}));
      expect(replyEffect(host, outcome.reply.stdout, outcome.reply.exitCode)).toBe(expectedOnError[host]);
      expect(outcome.error).toContain("malformed");
    });
  }

  test("a broken turn-end payload or a crash at a turn's end lets the turn end", async () => {
    for (const host of HOSTS) {
      const raw = JSON.stringify(sample(STOP[host])).slice(0, -3);
      const outcome = await runHook(host, raw, fakeDeps({}));
      expect(outcome.kind).toBe("turn-end");
      expect(outcome.reply.stdout).toBe("");
      const crashed = await runHook(host, JSON.stringify(sample(STOP[host])), fakeDeps({ turn: new Error("boom") }));
      expect(crashed.decision).toBe("stop");
      expect(crashed.reply.stdout).toBe("");
    }
  });

  test("a shell call without a command is unusable: on_error", async () => {
    const raw = JSON.stringify({ ...sample(PRE.codex), tool_input: { cmd: "rm -rf ~" } });
    const outcome = await runHook("codex", raw, fakeDeps({}));
    expect(replyEffect("codex", outcome.reply.stdout, 0)).toBe("blocks");
    expect(outcome.error).toContain("unusable");
  });

  test("the kind of a payload that does not parse", () => {
    expect(sniffKind('{"hook_event_name":"PreToolUse","tool_input":{"comm')).toBe("command");
    expect(sniffKind('{"hook_event_name": "AfterAgent", "prompt_resp')).toBe("turn-end");
    expect(sniffKind('{"hook_event_name":"SessionStart"')).toBe("other");
    expect(sniffKind("")).toBe("unknown");
  });

  test("on_error pass on Codex prints nothing (the host's own approval decides)", async () => {
    const outcome = await runHook("codex", payload("codex"), {
      ...fakeDeps({ policy: new Error("bad") }),
      loadDefaultPolicy: () => ({
        ok: true,
        loaded: withHosts({ on_error: { claude: "deny", codex: "pass", gemini: "pass", cursor: "deny" } }),
      }),
    });
    expect(outcome.reply.stdout).toBe("");
  });
});

describe("turn ends", () => {
  const stopped = { verdict: "deny" as const, line: "rules: 95% likely stopped early" };

  for (const host of HOSTS) {
    test(`${host}: a turn that stopped early is continued with the reason; a finished one is not`, async () => {
      const deps = fakeDeps({ turn: stopped });
      const transcript = {
        claude: "claude-transcript.jsonl",
        codex: "codex-rollout-transcript.jsonl",
        gemini: "gemini-chat-transcript.jsonl",
      }[host];
      const payload = { ...sample(STOP[host]), transcript_path: `${import.meta.dir}/samples/${transcript}` };
      const outcome = await runHook(host, JSON.stringify(payload), deps);
      expect(outcome.decision).toBe("continue");
      const reply = JSON.parse(outcome.reply.stdout);
      expect(reply.reason).toContain("verdict: rules: 95% likely stopped early");
      expect(deps.seen.turns[0]).toMatchObject({ requests: ["Run the scripted test command."], final: "FAKE_FINAL: done.", host });
      const finished = await runHook(host, JSON.stringify(sample(STOP[host])), fakeDeps({ turn: { verdict: "pass", line: "finished" } }));
      expect(finished.reply.stdout).toBe("");
    });

    test(`${host}: never more continues in a row than hosts.max_continues`, async () => {
      const deps = fakeDeps({ turn: stopped });
      const first = sample(STOP[host]);
      const again = { ...first, stop_hook_active: true };
      const decisions: string[] = [];
      decisions.push((await runHook(host, JSON.stringify(first), deps)).decision);
      for (let i = 0; i < 3; i++) decisions.push((await runHook(host, JSON.stringify(again), deps)).decision);
      expect(decisions).toEqual(["continue", "continue", "stop", "stop"]);
      // A new turn (stop_hook_active false) starts the count again.
      expect((await runHook(host, JSON.stringify(first), deps)).decision).toBe("continue");
    });
  }

  test("max_continues 0 never continues; judge_turn_ends false never judges", async () => {
    const none = fakeDeps({ turn: stopped, policy: withHosts({ max_continues: 0 }) });
    expect((await runHook("claude", JSON.stringify(sample(STOP.claude)), none)).decision).toBe("stop");
    const off = fakeDeps({ turn: stopped, policy: withHosts({ judge_turn_ends: false }) });
    expect((await runHook("claude", JSON.stringify(sample(STOP.claude)), off)).decision).toBe("stop");
    expect(off.seen.turns).toHaveLength(0);
  });

  test("gemini: after a continue, only the new answer is judged (prompt_response holds them all)", async () => {
    const deps = fakeDeps({ turn: stopped });
    const first = { ...sample(STOP.gemini), prompt_response: "I will now run the tests." };
    await runHook("gemini", JSON.stringify(first), deps);
    const second = { ...first, stop_hook_active: true, prompt_response: "I will now run the tests.\nThe tests pass." };
    await runHook("gemini", JSON.stringify(second), deps);
    expect(deps.seen.turns.map((t: any) => t.final)).toEqual(["I will now run the tests.", "The tests pass."]);
  });

  test("claude: the requests come from the transcript, skipping tool results, meta and hook feedback", async () => {
    const deps = fakeDeps({ turn: stopped });
    const payload = {
      ...sample(STOP.claude),
      transcript_path: `${import.meta.dir}/samples/claude-transcript.jsonl`,
      last_assistant_message: "I will now run the tests.",
    };
    await runHook("claude", JSON.stringify(payload), deps);
    expect(deps.seen.turns[0]).toMatchObject({ requests: ["Run the scripted test command."], final: "I will now run the tests." });
  });

  test("codex: the requests come from the rollout, skipping boilerplate and <hook_prompt>", async () => {
    const deps = fakeDeps({ turn: stopped });
    const payload = { ...sample(STOP.codex), transcript_path: `${import.meta.dir}/samples/codex-rollout-transcript.jsonl` };
    await runHook("codex", JSON.stringify(payload), deps);
    expect(deps.seen.turns[0].requests).toEqual(["Run the scripted test command."]);
  });

  test("claude: running background work is an honest in-flight status, not judged", async () => {
    const deps = fakeDeps({ turn: stopped });
    const payload = { ...sample(STOP.claude), background_tasks: [{ id: "b1", type: "bash", status: "running", description: "npm test" }] };
    expect((await runHook("claude", JSON.stringify(payload), deps)).decision).toBe("stop");
    expect(deps.seen.turns).toHaveLength(0);
  });

  test("no final message: nothing to judge", async () => {
    const deps = fakeDeps({ turn: stopped });
    const payload = { ...sample(STOP.codex), last_assistant_message: null, transcript_path: null };
    expect((await runHook("codex", JSON.stringify(payload), deps)).decision).toBe("stop");
  });

  test("cursor: follow-up bounded by loop_count; only completed turns", async () => {
    const stop = (loop_count: number, status = "completed") =>
      JSON.stringify({
        hook_event_name: "stop",
        conversation_id: "c",
        generation_id: "g",
        workspace_roots: ["/w"],
        status,
        loop_count,
        last_assistant_message: "I will do it next.",
      });
    const deps = fakeDeps({ turn: stopped });
    const first = await runHook("cursor", stop(0), deps);
    expect(JSON.parse(first.reply.stdout).followup_message).toContain("stopped early");
    expect((await runHook("cursor", stop(2), deps)).decision).toBe("stop");
    expect((await runHook("cursor", stop(0, "aborted"), deps)).decision).toBe("stop");
  });
});
