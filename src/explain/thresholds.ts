/** Which of the policy's thresholds a judgment's answers met: the numbers behind the verdict's line. */
import type { CommandAnswers } from "../core/answers.ts";
import type { Policy } from "../policy/schema.ts";

export type Thresholds = {
  ask_at_consequential: { threshold: number; value?: number; act?: string; met: boolean };
  ask_at_undo: { threshold: number; value?: number; met: boolean };
  allow_at_ordinary: { threshold: number; value?: number; met: boolean };
  allow_undo_at_most: { threshold: number; value?: number; met: boolean };
};

export function thresholdsMet(policy: Pick<Policy, "judge" | "acts">, answers: CommandAnswers | undefined): Thresholds {
  const t = policy.judge.thresholds;
  if (!answers) {
    return {
      ask_at_consequential: { threshold: t.ask_at_consequential, met: false },
      ask_at_undo: { threshold: t.ask_at_undo, met: false },
      allow_at_ordinary: { threshold: t.allow_at_ordinary, met: false },
      allow_undo_at_most: { threshold: t.allow_undo_at_most, met: false },
    };
  }
  const acts = Object.entries(answers.act.probabilities);
  const isConsequential = (label: string) => policy.acts[label]?.consequential ?? true;
  const ordinary = acts.filter(([label]) => !isConsequential(label)).reduce((sum, [, p]) => sum + p, 0);
  const [act, most] = acts
    .filter(([label]) => isConsequential(label))
    .reduce<[string | undefined, number]>((best, [label, p]) => (p > best[1] ? [label, p] : best), [undefined, 0]);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  const undo = answers.undo.score;
  return {
    ask_at_consequential: {
      threshold: t.ask_at_consequential,
      value: round(most),
      ...(act ? { act } : {}),
      met: most >= t.ask_at_consequential,
    },
    ask_at_undo: { threshold: t.ask_at_undo, value: round(undo), met: undo >= t.ask_at_undo },
    allow_at_ordinary: { threshold: t.allow_at_ordinary, value: round(ordinary), met: ordinary >= t.allow_at_ordinary },
    allow_undo_at_most: { threshold: t.allow_undo_at_most, value: round(undo), met: undo <= t.allow_undo_at_most },
  };
}
