import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeFacts, codexFacts, developerText, geminiFacts, readTail, transcriptFacts } from "../../src/hosts/transcript.ts";
import { SAMPLES, sampleText } from "./helpers.ts";

const lines = (name: string) => sampleText(name).split("\n").filter(Boolean);

describe("transcripts", () => {
  test("claude: the request and the final message; hook feedback and tool results are not requests", () => {
    expect(claudeFacts(lines("claude-transcript.jsonl"))).toEqual({
      requests: ["Run the scripted test command."],
      final: "FAKE_FINAL: done.",
      commands: [{ command: "touch /home/dev/project/hook-e2e-marker", failed: false }],
    });
  });

  test("codex: environment boilerplate and the <hook_prompt> continuation are not requests", () => {
    expect(codexFacts(lines("codex-rollout-transcript.jsonl"))).toEqual({
      requests: ["Run the scripted test command."],
      final: "FAKE_FINAL: done.",
      commands: [{ command: "touch /home/dev/project/hook-e2e-marker", failed: false, exitCode: 0 }],
    });
  });

  test("gemini: the session context is not a request; function responses are skipped", () => {
    const facts = geminiFacts(lines("gemini-chat-transcript.jsonl"), "Run the scripted test command.");
    expect(facts.requests[0]).toBe("Run the scripted test command.");
    expect(facts.final).toBe("FAKE_FINAL: done.");
    expect(facts.commands).toEqual([{ command: "touch /home/dev/project/hook-e2e-marker", failed: false }]);
  });

  test("the turn's commands: a failed Bash result, a non-zero exit, a blocked call; a new request starts a new turn", () => {
    const claude = [
      { type: "user", message: { role: "user", content: "old request" } },
      {
        type: "assistant",
        message: { role: "assistant", content: [{ type: "tool_use", id: "t0", name: "Bash", input: { command: "ls" } }] },
      },
      { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t0", content: "a b" }] } },
      { type: "user", message: { role: "user", content: "run the tests" } },
      {
        type: "assistant",
        message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }] },
      },
      {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Exit code 1\nnpm ERR!", is_error: true }] },
      },
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "All tests pass." }] } },
    ].map((r) => JSON.stringify(r));
    expect(claudeFacts(claude)).toEqual({
      requests: ["old request", "run the tests"],
      final: "All tests pass.",
      commands: [{ command: "npm test", failed: true, exitCode: 1 }],
    });
    const codex = [
      { type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "run the tests" }] } },
      {
        type: "response_item",
        payload: { type: "function_call", name: "exec_command", call_id: "c1", arguments: JSON.stringify({ cmd: "pytest" }) },
      },
      {
        type: "response_item",
        payload: { type: "function_call_output", call_id: "c1", output: "Chunk ID: 1\nProcess exited with code 2\nOutput:\n" },
      },
      {
        type: "response_item",
        payload: { type: "function_call", name: "exec_command", call_id: "c2", arguments: JSON.stringify({ cmd: "rm -rf ~" }) },
      },
      {
        type: "response_item",
        payload: { type: "function_call_output", call_id: "c2", output: "Command blocked by PreToolUse hook: no. Command: rm -rf ~" },
      },
    ].map((r) => JSON.stringify(r));
    expect(codexFacts(codex).commands).toEqual([
      { command: "pytest", failed: true, exitCode: 2 },
      { command: "rm -rf ~", failed: true },
    ]);
  });

  test("host tags and injected text", () => {
    expect(developerText("<system-reminder>\nx\n</system-reminder>\nfix the bug")).toBe("fix the bug");
    expect(developerText("Stop hook feedback:\ncontinue")).toBeUndefined();
    expect(developerText('<hook_prompt hook_run_id="stop:1:/x">go</hook_prompt>')).toBeUndefined();
    expect(developerText("<environment_context>\n<cwd>/x</cwd>\n</environment_context>")).toBeUndefined();
  });

  test("only the tail is read, its cut first line skipped; the latest three requests are kept", () => {
    const file = join(tmpdir(), `verdict-tail-${process.pid}.jsonl`);
    const records = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify({ type: "user", message: { role: "user", content: `request ${i} ${"x".repeat(100)}` } }),
    );
    writeFileSync(file, records.join("\n") + "\n");
    const tail = readTail(file, 1000);
    expect(tail.cut).toBe(true);
    expect(tail.lines.every((line) => line.startsWith("{"))).toBe(true);
    const facts = transcriptFacts("claude", file);
    expect(facts.requests.map((r) => r.split(" ").slice(0, 2).join(" "))).toEqual(["request 197", "request 198", "request 199"]);
  });

  test("a missing transcript gives no facts, and says why", () => {
    const facts = transcriptFacts("claude", join(SAMPLES, "nope.jsonl"));
    expect(facts.requests).toEqual([]);
    expect(facts.error).toContain("cannot read");
  });
});
