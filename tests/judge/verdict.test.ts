import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY_TEXT } from "../../src/policy/load.ts";
import type { Policy } from "../../src/policy/schema.ts";
import { VERDICTS, leaning, oneHot, stricter, type CommandAnswers, type Verdict } from "../../src/core/answers.ts";
import { commandVerdict, neededMb, turnEndVerdict } from "../../src/core/verdict.ts";

const policy = Bun.YAML.parse(DEFAULT_POLICY_TEXT) as Policy;
const ACTS = Object.keys(policy.acts);

function surely(act: string, undo: number, load: number): CommandAnswers {
  return { act: oneHot(ACTS, act, "model"), undo: { score: undo, source: "model" }, load: { score: load, source: "model" } };
}

function spread(probabilities: Record<string, number>, undo: number, load = 1): CommandAnswers {
  const choice = Object.entries(probabilities).sort((a, b) => b[1] - a[1])[0]![0];
  return {
    act: { choice, confidence: probabilities[choice]!, probabilities, source: "model" },
    undo: { score: undo, source: "model" },
    load: { score: load, source: "model" },
  };
}

const verdict = (answers: CommandAnswers, available: number | undefined = 8000): Verdict =>
  commandVerdict(policy, answers, available, "jev").verdict;

describe("the verdict on a command", () => {
  test("ordinary work is allowed", () => {
    expect(verdict(surely("read", 0, 1))).toBe("allow");
    expect(verdict(surely("build", 1, 1))).toBe("allow");
    expect(verdict(surely("edit", 1, 1))).toBe("allow");
  });

  test("each consequential act is put to the user", () => {
    for (const act of ["delete", "history", "system", "remote", "unread"]) expect(verdict(surely(act, 1, 1))).toBe("ask");
  });

  test("anything hard to undo is put to the user, whatever act it is", () => {
    expect(verdict(surely("edit", 2, 1))).toBe("ask");
    expect(verdict(surely("build", 1.6, 1))).toBe("ask");
    expect(verdict(surely("build", 1.59, 1))).toBe("pass");
  });

  test("an unsure answer is neither allowed nor asked", () => {
    expect(verdict(spread({ edit: 0.6, delete: 0.4 }, 1.3))).toBe("pass");
  });

  test("doubt spread over several consequential acts is not a flag", () => {
    expect(verdict(spread({ unread: 0.36, system: 0.2, delete: 0.14, edit: 0.3 }, 1.3))).toBe("pass");
  });

  test("the ask threshold is on one act, inclusive", () => {
    expect(verdict(spread({ delete: 0.6, read: 0.4 }, 1))).toBe("ask");
    expect(verdict(spread({ delete: 0.59, read: 0.41 }, 1))).toBe("pass");
  });

  test("allowing needs both the ordinary probability and a low undo level", () => {
    expect(verdict(spread({ read: 0.9, delete: 0.1 }, 1.2))).toBe("allow");
    expect(verdict(spread({ read: 0.89, delete: 0.11 }, 1.0))).toBe("pass");
    expect(verdict(spread({ read: 0.95, delete: 0.05 }, 1.21))).toBe("pass");
  });

  test("an act outside the policy's options counts as consequential", () => {
    expect(verdict(spread({ obliterate: 0.7, read: 0.3 }, 0))).toBe("ask");
    expect(verdict(spread({ obliterate: 0.2, read: 0.8 }, 0))).toBe("pass");
  });

  test("a heavy command is put to the user when memory is short", () => {
    const { verdict: short, line } = commandVerdict(policy, surely("build", 1, 2), 1500, "jev");
    expect(short).toBe("ask");
    expect(line).toBe("jev: a heavy command (2.0 of 3) with 1.5 GB of memory available");
    expect(verdict(surely("build", 1, 2), 8000)).toBe("allow");
    expect(verdict(surely("edit", 1, 0.3), 1500)).toBe("allow");
    expect(verdict(surely("build", 1, 3), undefined)).toBe("allow");
  });

  test("a risky command short of memory says both", () => {
    const { verdict: both, line } = commandVerdict(policy, surely("delete", 3, 2), 1000, "rules");
    expect(both).toBe("ask");
    expect(line).toBe(
      "rules: deletes or overwrites data nothing regenerates (100%); cannot be undone (3.0 of 3); a heavy command (2.0 of 3) with 1.0 GB of memory available",
    );
  });

  test("the line names the likeliest act, its probability and the undo level", () => {
    expect(commandVerdict(policy, surely("history", 2.3, 1), 8000, "jev").line).toBe(
      "jev: discards or rewrites version-control state (100%); hard to undo (2.3 of 3)",
    );
    expect(commandVerdict(policy, surely("read", 0, 0), 8000, "rules").line).toBe(
      "rules: only reads (100%); nothing to undo (0.0 of 3); allowed",
    );
  });

  test("thresholds come from the policy", () => {
    const lenient = { ...policy, judge: { ...policy.judge, thresholds: { ...policy.judge.thresholds, ask_at_consequential: 0.99 } } };
    expect(commandVerdict(lenient, spread({ delete: 0.95, read: 0.05 }, 1), 8000, "jev").verdict).toBe("pass");
    expect(commandVerdict(policy, spread({ delete: 0.95, read: 0.05 }, 1), 8000, "jev").verdict).toBe("ask");
  });
});

describe("memory needs", () => {
  test("rise between levels", () => {
    expect(neededMb(policy, 0)).toBe(0);
    expect(neededMb(policy, 2)).toBe(3000);
    expect(neededMb(policy, 2.5)).toBe(4500);
    expect(neededMb(policy, 9)).toBe(6000);
    expect(neededMb(policy, -1)).toBe(0);
  });
});

describe("the verdict on a turn's end", () => {
  const endings = Object.keys(policy.endings);
  test("refuses only when confident it stopped early", () => {
    expect(turnEndVerdict(policy, { ending: leaning(endings, "stopped-early", 0.84, "model") }, "jev").verdict).toBe("pass");
    expect(turnEndVerdict(policy, { ending: leaning(endings, "stopped-early", 0.85, "model") }, "jev").verdict).toBe("deny");
  });
  test("the line says how the turn ended", () => {
    const { line } = turnEndVerdict(policy, { ending: oneHot(endings, "finished", "model") }, "jev");
    expect(line).toBe("jev: the turn ended finished; 0% likely stopped early");
  });
});

describe("verdicts", () => {
  test("are ordered weakest first, and stricter picks the stronger", () => {
    expect(VERDICTS).toEqual(["allow", "pass", "ask", "deny"]);
    expect(stricter("allow", "ask")).toBe("ask");
    expect(stricter("deny", "pass")).toBe("deny");
    expect(stricter("pass", "allow")).toBe("pass");
  });
  test("leaning spreads the rest evenly", () => {
    const answer = leaning(["a", "b", "c"], "a", 0.8, "rules");
    expect(answer.probabilities.a).toBe(0.8);
    expect(answer.probabilities.b).toBeCloseTo(0.1);
  });
});
