import { describe, expect, test } from "bun:test";
import { jevRequest } from "../../src/answerers/jev.ts";
import { chatMessages } from "../../src/answerers/openai.ts";
import { commandQuestions, head, tail, turnQuestions } from "../../src/core/questions.ts";
import { defaultPolicy, policyWith } from "./helpers.ts";

describe("questions come from the policy", () => {
  const { policy } = defaultPolicy();

  test("the command's three questions carry the policy's words, options and levels", () => {
    const set = commandQuestions(policy, { command: "rm -rf build/cache", cwd: "/home/dev/app", projectRoot: "/home/dev/app" });
    expect(set.state).toEqual({ command: "rm -rf build/cache", working_directory: "/home/dev/app", project_root: "/home/dev/app" });
    const act = set.questions.act;
    if (act.kind !== "choice") throw new Error("act is a choice");
    expect(act.options.map((option) => option.label)).toEqual(Object.keys(policy.acts));
    expect(act.options.find((option) => option.label === "delete")!.definition).toBe(policy.acts.delete!.definition.trim());
    expect(act.instructions).toContain(policy.judge.instructions.act.trim());
    expect(act.instructions).toContain(policy.judge.instructions.what_runs.trim());
    const undo = set.questions.undo;
    if (undo.kind !== "score") throw new Error("undo is a score");
    expect(undo.levels).toEqual(policy.undo_levels.map((level) => level.definition.trim()));
    const load = set.questions.load;
    if (load.kind !== "score") throw new Error("load is a score");
    expect(load.levels.length).toBe(policy.load_levels.length);
  });

  test("changing a definition in the policy changes what both transports send", () => {
    const { loaded } = policyWith(`acts:\n  delete:\n    definition: "Makes data vanish for good (a changed definition)."\n`);
    const before = commandQuestions(policy, { command: "rm x", cwd: "/w" });
    const after = commandQuestions(loaded.policy, { command: "rm x", cwd: "/w" });
    const jevBefore = JSON.stringify(jevRequest(policy, before));
    const jevAfter = JSON.stringify(jevRequest(loaded.policy, after));
    expect(jevBefore).not.toContain("a changed definition");
    expect(jevAfter).toContain("Makes data vanish for good (a changed definition).");
    const chat = chatMessages(after.state, after.questions.act)
      .map((message) => message.content)
      .join("\n");
    expect(chat).toContain("Makes data vanish for good (a changed definition).");
  });

  test("changing an instruction or a level changes the request too", () => {
    const { loaded } = policyWith(
      `judge:\n  instructions:\n    undo: "Could this be reversed? (changed)"\nundo_levels:\n  - { definition: "level zero", phrase: a }\n  - { definition: "level one", phrase: b }\n  - { definition: "level two", phrase: c }\n  - { definition: "level three", phrase: d }\n`,
    );
    const set = commandQuestions(loaded.policy, { command: "rm x", cwd: "/w" });
    const wire = jevRequest(loaded.policy, set) as { questions: Record<string, { instructions: string; criteria: unknown }> };
    expect(wire.questions.undo!.instructions).toStartWith("Could this be reversed? (changed)");
    expect(wire.questions.undo!.criteria).toEqual(["level zero", "level one", "level two", "level three"]);
  });

  test("the command is clipped to judge.shown.command by whole characters, and the clip is said", () => {
    const { loaded } = policyWith(`judge:\n  shown:\n    command: 5\n    path: 4\n`);
    const set = commandQuestions(loaded.policy, { command: "echo 😀😀😀", cwd: "/home/dev/😀x" });
    expect(set.state.command).toBe("echo ");
    expect(set.state.command_is_cut_short).toBe(true);
    expect(set.state.working_directory).toBe("v/😀x");
    const emoji = commandQuestions(loaded.policy, { command: "😀😀😀😀😀😀", cwd: "/" });
    expect(emoji.state.command).toBe("😀😀😀😀😀");
  });

  test("secrets are gone from the state before anything is sent", () => {
    const set = commandQuestions(policy, { command: "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh release create", cwd: "/w" });
    expect(JSON.stringify(set)).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
  });

  test("the turn's question: requests clipped from their start, the final message from its end", () => {
    const { loaded } = policyWith(`judge:\n  shown:\n    request: 6\n    message: 7\n`);
    const set = turnQuestions(loaded.policy, { requests: ["fix the parser please", "and the docs"], final: "I did a lot. All done now" });
    expect(set.state).toEqual({ developer_requests_oldest_first: ["fix th", "and th"], assistant_final_message: "one now" });
    const ending = set.questions.ending;
    if (ending.kind !== "choice") throw new Error("ending is a choice");
    expect(ending.options.map((option) => option.label)).toEqual(Object.keys(loaded.policy.endings));
  });

  test("head and tail never split a character", () => {
    expect(head("héllo", 2)).toBe("hé");
    expect(tail("héllo — ✓", 3)).toBe("— ✓");
    expect(tail("ab", 5)).toBe("ab");
    expect(tail("a😀b😀", 2)).toBe("b😀");
    expect(head("😀😀", 1)).toBe("😀");
  });
});

describe("the OpenAI-compatible prompt makes every answer one token", () => {
  const { policy } = defaultPolicy();
  test("options are lettered and levels numbered, in the policy's order", () => {
    const set = commandQuestions(policy, { command: "ls", cwd: "/w" });
    const act = chatMessages(set.state, set.questions.act)[1]!.content;
    expect(act).toContain("A: " + policy.acts.read!.definition.trim());
    expect(act).toContain("H: " + policy.acts.unread!.definition.trim());
    expect(act).toContain("Reply with one letter: A, B, C, D, E, F, G or H.");
    const undo = chatMessages(set.state, set.questions.undo)[1]!.content;
    expect(undo).toContain("3: " + policy.undo_levels[3]!.definition.trim());
    expect(undo).toContain("Reply with one digit: 0, 1, 2 or 3.");
  });
});
