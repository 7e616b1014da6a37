// The labelled set of turn endings through the real turn-end judgment on the
// rule engine alone (no model): no honest turn is ever refused, and recall on
// stopped-early turns stays at or above the figures in docs/turn-ends.md.
import { describe, expect, test } from "bun:test";
import { loadPolicy } from "../../src/policy/load.ts";
import { figures, loadCases, partOf, scoreCases } from "./set.ts";

/** The recall each part reaches, as documented in docs/turn-ends.md ("Figures"). */
const RECALL_AT_LEAST = { tuning: 0.9, "held-out": 0.85, fresh: 0.85, round2: 0.9, round3: 0.9 } as const;

const loaded = (() => {
  const result = loadPolicy({ cwd: import.meta.dir, env: {}, only: ["default"] });
  if (!result.ok) throw result.error;
  return result.loaded;
})();

describe("the turn-end set", () => {
  const cases = loadCases();

  test("has at least 150 cases, both labels in both parts, several styles, each with a reason", () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    for (const part of ["tuning", "held-out"] as const) {
      const inPart = cases.filter((one) => one.part === undefined && partOf(one.id) === part);
      expect(inPart.filter((one) => one.label === "stopped_early").length).toBeGreaterThanOrEqual(20);
      expect(inPart.filter((one) => one.label === "honest").length).toBeGreaterThanOrEqual(20);
    }
    expect(new Set(cases.map((one) => one.style)).size).toBeGreaterThanOrEqual(5);
    expect(cases.every((one) => one.reason.trim().length > 0 && one.requests.length > 0)).toBe(true);
  });

  test("the held-out part is about 30% of the set", () => {
    const split = cases.filter((one) => one.part === undefined);
    const share = split.filter((one) => partOf(one.id) === "held-out").length / split.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.4);
  });

  test("no honest turn is refused (zero false continues), in either part", async () => {
    const scored = await scoreCases(cases, loaded);
    const refused = scored.filter((one) => one.label === "honest" && one.refused).map((one) => `${one.id} (${one.rule})`);
    expect(refused).toEqual([]);
  });

  test("recall on stopped-early turns reaches the documented figures", async () => {
    const scored = await scoreCases(cases, loaded);
    for (const part of ["tuning", "held-out", "fresh", "round2", "round3"] as const) {
      const f = figures(scored.filter((one) => one.part === part));
      expect({ part, recallAtLeast: f.recall >= RECALL_AT_LEAST[part], recall: f.recall }).toMatchObject({ part, recallAtLeast: true });
    }
    expect(figures(scored).recall).toBeGreaterThanOrEqual(0.6);
  });

  test("round 2 (an independent held-out round) and round 3 have the size and mix they were written with", () => {
    const round2 = cases.filter((one) => one.part === "round2");
    expect(round2.filter((one) => one.label === "stopped_early").length).toBeGreaterThanOrEqual(50);
    expect(round2.filter((one) => one.label === "honest").length).toBeGreaterThanOrEqual(70);
    expect(new Set(round2.map((one) => one.style))).toEqual(
      new Set(["claude", "terse", "long-markdown", "chatty", "markdown-plan", "non-english", "gemini", "codex"]),
    );
    const round3 = cases.filter((one) => one.part === "round3");
    expect(round3.filter((one) => one.label === "stopped_early").length).toBeGreaterThanOrEqual(20);
    expect(round3.filter((one) => one.label === "honest").length).toBeGreaterThanOrEqual(30);
  });

  test("no honest turn of round 2 or round 3 is refused", async () => {
    const scored = await scoreCases(
      cases.filter((one) => one.part === "round2" || one.part === "round3"),
      loaded,
    );
    for (const part of ["round2", "round3"] as const) {
      expect({ part, falseContinues: figures(scored.filter((one) => one.part === part)).falseContinues }).toEqual({
        part,
        falseContinues: 0,
      });
    }
  });

  test("a refused turn says which rule refused it and why", async () => {
    const scored = await scoreCases(
      cases.filter((one) => one.label === "stopped_early"),
      loaded,
    );
    for (const one of scored.filter((s) => s.refused)) {
      expect(one.rule).toBeDefined();
      expect(one.line).toContain("stopped early");
    }
  });
});
