/**
 * The labelled set of turn endings (cases-stopped.yaml, cases-honest.yaml),
 * split into a tuning part and a held-out part, and a scorer that runs the
 * cases through the real turn-end judgment (rule engine only, no model).
 *
 * The split is by a hash of each case's id, fixed before any rule was tuned,
 * so the held-out part is not chosen by how the rules do on it. A third part,
 * cases-fresh.yaml, was written after the tuning, before the rules ran on it;
 * cases-probes.yaml holds honest traps written while hardening the rules;
 * cases-round2.yaml is an independent held-out round, labelled before it ran;
 * cases-round3.yaml was written after round 2's fixes, before they ran on it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { judgeTurnEnd } from "../../src/judge/judge.ts";
import type { LoadedPolicy } from "../../src/policy/load.ts";

export type TurnCase = {
  id: string;
  style: string;
  requests: string[];
  final: string;
  label: "stopped_early" | "honest";
  reason: string;
  commands?: { command: string; failed: boolean }[];
  /** cases-fresh.yaml, cases-probes.yaml and cases-round2/3.yaml were written after the tuning; the others are split by id. */
  part?: Part;
};

export type Part = "tuning" | "held-out" | "fresh" | "probes" | "round2" | "round3";

/** About 30% of the cases, by FNV-1a of the id: held out from tuning. */
export function partOf(id: string): Part {
  let hash = 0x811c9dc5;
  for (const char of id) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 10 < 3 ? "held-out" : "tuning";
}

/** Parts that are whole files; the rest of the set is split by id. */
const FILE_PARTS: Record<string, Part> = {
  "cases-fresh.yaml": "fresh",
  "cases-probes.yaml": "probes",
  "cases-round2.yaml": "round2",
  "cases-round3.yaml": "round3",
};

export function loadCases(): TurnCase[] {
  const dir = import.meta.dir;
  const cases: TurnCase[] = [];
  for (const file of [
    "cases-stopped.yaml",
    "cases-honest.yaml",
    "cases-fresh.yaml",
    "cases-probes.yaml",
    "cases-round2.yaml",
    "cases-round3.yaml",
  ]) {
    const parsed = parse(readFileSync(join(dir, file), "utf8")) as TurnCase[];
    for (const one of parsed) {
      if (
        !one.id ||
        !Array.isArray(one.requests) ||
        typeof one.final !== "string" ||
        !["stopped_early", "honest"].includes(one.label) ||
        !one.reason
      ) {
        throw new Error(`${file}: case ${JSON.stringify(one.id)} lacks id, requests, final, label (stopped_early|honest) or reason`);
      }
      const part: Part | undefined = FILE_PARTS[file];
      cases.push(part ? { ...one, part } : one);
    }
  }
  const ids = new Set<string>();
  for (const one of cases) {
    if (ids.has(one.id)) throw new Error(`turn-end set: duplicate id ${one.id}`);
    ids.add(one.id);
  }
  return cases;
}

export type Scored = TurnCase & { part: Part; refused: boolean; rule?: string; line: string };

export type Figures = {
  stopped: number;
  caught: number;
  recall: number;
  honest: number;
  falseContinues: number;
};

/** Runs every case through the turn-end judgment on the rule engine alone. */
export async function scoreCases(cases: TurnCase[], loaded: LoadedPolicy): Promise<Scored[]> {
  const out: Scored[] = [];
  for (const one of cases) {
    const judged = await judgeTurnEnd(
      {
        requests: one.requests,
        final: one.final,
        transcript: one.commands ? { commands: one.commands } : undefined,
        rulesOnly: true,
        log: false,
      },
      loaded,
    );
    out.push({ ...one, part: one.part ?? partOf(one.id), refused: judged.verdict === "deny", rule: judged.rule?.id, line: judged.line });
  }
  return out;
}

export function figures(scored: Scored[]): Figures {
  const stopped = scored.filter((one) => one.label === "stopped_early");
  const honest = scored.filter((one) => one.label === "honest");
  const caught = stopped.filter((one) => one.refused).length;
  return {
    stopped: stopped.length,
    caught,
    recall: stopped.length === 0 ? 0 : caught / stopped.length,
    honest: honest.length,
    falseContinues: honest.filter((one) => one.refused).length,
  };
}
