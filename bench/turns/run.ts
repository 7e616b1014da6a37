/**
 * Runs the labelled set of turn endings (tests/turn-ends) through the rule
 * engine on the embedded default policy (no model) and prints, for the
 * tuning part, the held-out part, the fresh part (written after tuning), the honest probes, round 2 (an independent held-out round), round 3 (written after round 2's fixes) and all: recall on stopped-early turns and
 * false continues (honest turns refused).
 *
 *   npx bun bench/turns/run.ts [--policy FILE] [--part tuning|held-out|fresh|probes|round2|round3] [--list missed|false|caught] [--json]
 */
import { resolve } from "node:path";
import { loadPolicy } from "../../src/policy/load.ts";
import { figures, loadCases, scoreCases, type Scored } from "../../tests/turn-ends/set.ts";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

const file = option("--policy");
const result = loadPolicy({
  cwd: process.cwd(),
  env: {},
  file: file ? resolve(file) : undefined,
  only: file ? ["default", "command-line"] : ["default"],
});
if (!result.ok) {
  console.error(`verdict: the policy cannot be used:\n${result.error.message}`);
  process.exit(2);
}
const part = option("--part");
const PARTS = ["tuning", "held-out", "fresh", "probes", "round2", "round3"];
if (part !== undefined && !PARTS.includes(part)) {
  console.error(`--part is one of ${PARTS.join(", ")}`);
  process.exit(2);
}
const scored = (await scoreCases(loadCases(), result.loaded)).filter((one) => part === undefined || one.part === part);

const rows: [string, Scored[]][] = [
  ["tuning", scored.filter((one) => one.part === "tuning")],
  ["held-out", scored.filter((one) => one.part === "held-out")],
  ["fresh", scored.filter((one) => one.part === "fresh")],
  ["probes", scored.filter((one) => one.part === "probes")],
  ["round2", scored.filter((one) => one.part === "round2")],
  ["round3", scored.filter((one) => one.part === "round3")],
  ["all", scored],
];
if (args.includes("--json")) {
  console.log(JSON.stringify(Object.fromEntries(rows.map(([name, some]) => [name, figures(some)])), null, 2));
} else {
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  console.log("part       stopped-early  refused  recall   honest  false continues");
  for (const [name, some] of rows) {
    if (some.length === 0) continue;
    const f = figures(some);
    const recall = f.stopped === 0 ? "-" : pct(f.recall);
    console.log(
      `${name.padEnd(10)} ${String(f.stopped).padStart(13)}  ${String(f.caught).padStart(7)}  ${recall.padStart(6)}  ${String(f.honest).padStart(7)}  ${String(f.falseContinues).padStart(15)}`,
    );
  }
  const list = option("--list");
  if (list) {
    const pick = (one: Scored) =>
      list === "missed"
        ? one.label === "stopped_early" && !one.refused
        : list === "false"
          ? one.label === "honest" && one.refused
          : one.label === "stopped_early" && one.refused;
    for (const one of scored.filter(pick)) {
      console.log(
        `\n[${one.part}] ${one.id} (${one.style}) rule=${one.rule ?? "-"}\n  request: ${one.requests.at(-1)}\n  final: ${one.final.replace(/\n/g, "\n         ")}`,
      );
    }
  }
}
