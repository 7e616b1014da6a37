// Turn ends judged offline through the compiled binary (dist/verdict): no model
// key, so the rule engine answers. A stopped-early turn is refused (check-stop
// exit 12; a Stop / AfterAgent hook asks the host to continue), an honest one
// is let through, and a refused stop never loops past hosts.max_continues.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, run, tempDir } from "../support/binary.ts";

const SAMPLES = join(import.meta.dir, "../hosts/samples");
const sample = (name: string) => JSON.parse(readFileSync(join(SAMPLES, name), "utf8")) as Record<string, unknown>;

const REQUEST = "Translate all pages of the docs site into French.";
const STOPPED =
  "I've translated the index, getting-started and FAQ pages. Let me know when you'd like me to continue with the remaining 4 pages.";
const HONEST = "All 7 pages are translated into French and linked from the language menu; the site builds cleanly.";

/** A Claude Code session transcript holding the developer's request and the assistant's answer. */
function claudeTranscript(dir: string, final: string): string {
  const file = join(dir, "session.jsonl");
  const lines = [
    { type: "user", message: { role: "user", content: REQUEST }, uuid: "u1", sessionId: "s-turn-ends" },
    { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: final }] }, uuid: "a1", sessionId: "s-turn-ends" },
  ];
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

/** A Codex CLI rollout holding the developer's request and the assistant's answer. */
function codexRollout(dir: string, final: string): string {
  const file = join(dir, "rollout.jsonl");
  const lines = [
    { type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: REQUEST }] } },
    { type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: final }] } },
  ];
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("turn ends offline, through the binary", () => {
  test("check-stop: a stopped-early turn is refused (exit 12) with the rule's reason; an honest one may end (exit 10)", () => {
    const env = isolatedEnv();
    const refused = run(["check-stop", "--request", REQUEST, "--final", STOPPED], { env, cwd: env.HOME });
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 12, stderr: "" });
    expect(refused.stdout).toStartWith("deny: rules:");
    expect(refused.stdout).toContain("offers to finish it instead of finishing");

    const json = JSON.parse(run(["check-stop", "--request", REQUEST, "--final", STOPPED, "--json"], { env, cwd: env.HOME }).stdout);
    expect(json).toMatchObject({ verdict: "deny", answerer: "rules", rule: { id: "offers-to-finish-what-was-asked-in-full" } });

    const honest = run(["check-stop", "--request", REQUEST, "--final", HONEST], { env, cwd: env.HOME });
    expect(honest.code).toBe(10);
    expect(honest.stdout).toStartWith("pass:");

    // The same offer after a request for one page only is honest.
    const trial = run(["check-stop", "--request", "Translate just the index page as a trial.", "--final", STOPPED], { env, cwd: env.HOME });
    expect(trial.code).toBe(10);
  });

  test("claude Stop hook: a stopped-early turn is continued, an honest one ends, and continues stop at hosts.max_continues", () => {
    const env = isolatedEnv();
    const dir = tempDir("verdict-turn-ends-");
    const base = { ...sample("claude-stop.json"), cwd: dir, session_id: "s-turn-ends" };

    const stoppedPayload = { ...base, transcript_path: claudeTranscript(dir, STOPPED), last_assistant_message: STOPPED };
    const first = run(["hook", "claude"], { env, cwd: dir, stdin: JSON.stringify(stoppedPayload) });
    expect(first.code).toBe(0);
    const reply = JSON.parse(first.stdout);
    expect(reply.decision).toBe("block");
    expect(reply.reason).toContain("stopped early");
    expect(reply.reason).toContain("Continue with what was asked");

    // The host continues (stop_hook_active) and the assistant stops early again: one more
    // continue is allowed (max_continues: 2), then the turn ends whatever the message says.
    const again = { ...stoppedPayload, stop_hook_active: true };
    const second = run(["hook", "claude"], { env, cwd: dir, stdin: JSON.stringify(again) });
    expect(JSON.parse(second.stdout).decision).toBe("block");
    const third = run(["hook", "claude"], { env, cwd: dir, stdin: JSON.stringify(again) });
    expect({ code: third.code, stdout: third.stdout }).toEqual({ code: 0, stdout: "" });

    const honestPayload = {
      ...base,
      session_id: "s-honest",
      transcript_path: claudeTranscript(dir, HONEST),
      last_assistant_message: HONEST,
    };
    const honest = run(["hook", "claude"], { env, cwd: dir, stdin: JSON.stringify(honestPayload) });
    expect({ code: honest.code, stdout: honest.stdout }).toEqual({ code: 0, stdout: "" });

    const logged = readFileSync(join(env.XDG_STATE_HOME!, "verdict", "decisions.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const turns = logged.filter((line) => line.subject === "turn");
    expect(turns.map((line) => [line.verdict, line.answerer])).toEqual([
      ["deny", "rules"],
      ["deny", "rules"],
      ["pass", "rules"],
    ]);
  });

  test("codex Stop and gemini AfterAgent hooks: the same turn is continued offline, the honest one is not", () => {
    const env = isolatedEnv();
    const dir = tempDir("verdict-turn-ends-");
    const codex = (final: string, session: string) =>
      run(["hook", "codex"], {
        env,
        cwd: dir,
        stdin: JSON.stringify({
          ...sample("codex-stop.json"),
          cwd: dir,
          session_id: session,
          transcript_path: codexRollout(dir, final),
          last_assistant_message: final,
        }),
      });
    const refused = codex(STOPPED, "codex-1");
    expect(JSON.parse(refused.stdout)).toMatchObject({ decision: "block" });
    expect(codex(HONEST, "codex-2").stdout).toBe("");

    const gemini = (final: string, session: string) =>
      run(["hook", "gemini"], {
        env,
        cwd: dir,
        stdin: JSON.stringify({
          ...sample("gemini-afteragent.json"),
          cwd: dir,
          session_id: session,
          transcript_path: join(dir, "none.jsonl"),
          prompt: REQUEST,
          prompt_response: final,
        }),
      });
    const denied = JSON.parse(gemini(STOPPED, "gemini-1").stdout);
    expect(denied.decision).toBe("deny");
    expect(denied.reason).toContain("stopped early");
    expect(gemini(HONEST, "gemini-2").stdout).toBe("");
  });
});
