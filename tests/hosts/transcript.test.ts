import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeFacts, codexFacts, developerText, geminiFacts, readTail, transcriptFacts } from "../../src/hosts/transcript.ts";
import { SAMPLES, sampleText } from "./helpers.ts";

const lines = (name: string) => sampleText(name).split("\n").filter(Boolean);

describe("transcripts", () => {
  test("claude: the request and the final message; hook feedback and tool results are not requests", () => {
    expect(claudeFacts(lines("claude-transcript.jsonl"))).toEqual({ requests: ["Run the scripted test command."], final: "FAKE_FINAL: done." });
  });

  test("codex: environment boilerplate and the <hook_prompt> continuation are not requests", () => {
    expect(codexFacts(lines("codex-rollout-transcript.jsonl"))).toEqual({ requests: ["Run the scripted test command."], final: "FAKE_FINAL: done." });
  });

  test("gemini: the session context is not a request; function responses are skipped", () => {
    const facts = geminiFacts(lines("gemini-chat-transcript.jsonl"));
    expect(facts.requests[0]).toBe("Run the scripted test command.");
    expect(facts.final).toBe("FAKE_FINAL: done.");
  });

  test("host tags and injected text", () => {
    expect(developerText("<system-reminder>\nx\n</system-reminder>\nfix the bug")).toBe("fix the bug");
    expect(developerText("Stop hook feedback:\ncontinue")).toBeUndefined();
    expect(developerText('<hook_prompt hook_run_id="stop:1:/x">go</hook_prompt>')).toBeUndefined();
    expect(developerText("<environment_context>\n<cwd>/x</cwd>\n</environment_context>")).toBeUndefined();
  });

  test("only the tail is read, its cut first line skipped; the latest three requests are kept", () => {
    const file = join(tmpdir(), `verdict-tail-${process.pid}.jsonl`);
    const records = Array.from({ length: 200 }, (_, i) => JSON.stringify({ type: "user", message: { role: "user", content: `request ${i} ${"x".repeat(100)}` } }));
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
