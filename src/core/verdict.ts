/**
 * The verdict math: pure functions from typed answers and the policy's
 * thresholds to a verdict and the line the user reads. No I/O here; the
 * answers, the memory available and the policy come in as arguments.
 */
import type { Policy } from "../policy/schema.ts";
import { megabytes } from "./units.ts";
import type { CommandAnswers, EndingAnswers, Verdicted } from "./answers.ts";

function percent(probability: number): number {
  return Math.round(probability * 100);
}

/** The level phrase nearest to an expected level. */
function phraseAt(levels: readonly { phrase: string }[], expected: number): string {
  const index = Math.min(Math.max(Math.round(expected), 0), levels.length - 1);
  return levels[index]!.phrase;
}

/**
 * The memory in MB that a command of expected load level `load` should find
 * available, interpolated between the levels' needs.
 */
export function neededMb(policy: Pick<Policy, "load_levels">, load: number): number {
  const needs = policy.load_levels.map((level) => megabytes(level.needs));
  const top = needs.length - 1;
  const clamped = Math.min(Math.max(load, 0), top);
  const below = Math.floor(clamped);
  const above = Math.min(below + 1, top);
  return needs[below]! + (needs[above]! - needs[below]!) * (clamped - below);
}

/**
 * The verdict on a command from the probability of each act, the expected
 * undo level, the expected load level and the memory available now
 * (`undefined` where it cannot be measured, which leaves load unjudged).
 * `who` names the answerer at the start of the line ("rules", "jev").
 */
export function commandVerdict(
  policy: Pick<Policy, "acts" | "undo_levels" | "load_levels" | "judge">,
  answers: CommandAnswers,
  availableMb: number | undefined,
  who: string,
): Verdicted {
  const { thresholds } = policy.judge;
  const acts = Object.entries(answers.act.probabilities);
  const isConsequential = (label: string) => policy.acts[label]?.consequential ?? true;
  // An unknown label counts as consequential: a model that answers outside
  // the options must not make a command look ordinary.
  const ordinary = acts.filter(([label]) => !isConsequential(label)).reduce((sum, [, p]) => sum + p, 0);
  const consequential = acts.filter(([label]) => isConsequential(label)).reduce((most, [, p]) => Math.max(most, p), 0);
  const [likeliest, likelihood] = acts.reduce<[string, number]>(
    (best, entry) => (entry[1] > best[1] ? entry : best),
    [answers.act.choice, 0],
  );
  const undo = answers.undo.score;
  const load = answers.load.score;
  const undoTop = policy.undo_levels.length - 1;
  const loadTop = policy.load_levels.length - 1;
  const phrase = policy.acts[likeliest]?.phrase ?? likeliest;
  const said = `${who}: ${phrase} (${percent(likelihood)}%); ${phraseAt(policy.undo_levels, undo)} (${undo.toFixed(1)} of ${undoTop})`;

  const short =
    availableMb !== undefined && availableMb < neededMb(policy, load)
      ? `${phraseAt(policy.load_levels, load)} command (${load.toFixed(1)} of ${loadTop}) with ${(availableMb / 1000).toFixed(1)} GB of memory available`
      : undefined;
  const risky = consequential >= thresholds.ask_at_consequential || undo >= thresholds.ask_at_undo;

  if (risky) return { verdict: "ask", line: short ? `${said}; ${short}` : said };
  if (short) return { verdict: "ask", line: `${who}: ${short}` };
  if (ordinary >= thresholds.allow_at_ordinary && undo <= thresholds.allow_undo_at_most) {
    return { verdict: "allow", line: `${said}; allowed` };
  }
  return { verdict: "pass", line: `${said}; left to the usual permission check` };
}

/**
 * The verdict on a turn's end: `deny` (the turn may not end yet, the host is
 * asked to continue) when the endings marked stopped_early together reach
 * the threshold; `pass` otherwise.
 */
export function turnEndVerdict(policy: Pick<Policy, "endings" | "judge">, answers: EndingAnswers, who: string): Verdicted {
  const probabilities = Object.entries(answers.ending.probabilities);
  const stoppedEarly = probabilities.filter(([label]) => policy.endings[label]?.stopped_early === true).reduce((sum, [, p]) => sum + p, 0);
  if (stoppedEarly >= policy.judge.thresholds.block_stop_at) {
    return {
      verdict: "deny",
      line: `${who}: ${percent(stoppedEarly)}% likely stopped early: work asked for is left undone and no obstacle is named`,
    };
  }
  const [likeliest] = probabilities.reduce<[string, number]>(
    (best, entry) => (entry[1] > best[1] ? entry : best),
    [answers.ending.choice, 0],
  );
  const phrase = policy.endings[likeliest]?.phrase ?? likeliest;
  return { verdict: "pass", line: `${who}: the turn ended ${phrase}; ${percent(stoppedEarly)}% likely stopped early` };
}
