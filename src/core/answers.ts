/**
 * The typed answers to a judgment's questions. A model and the rule engine
 * both answer in this shape, so one verdict function serves both.
 */

/** The verdicts, weakest first. `pass` is no opinion: the host's own check applies. */
export const VERDICTS = ["allow", "pass", "ask", "deny"] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * How strict a verdict is: the one order allow < pass < ask < deny that every
 * place combining verdicts uses (the parts of a line, several rules on one
 * part, a batch of checked lines).
 */
export function strictness(verdict: Verdict): number {
  return VERDICTS.indexOf(verdict);
}

/** The stricter of two verdicts. */
export function stricter(a: Verdict, b: Verdict): Verdict {
  return strictness(a) >= strictness(b) ? a : b;
}

/** The strictest of some verdicts; `allow` for none. */
export function strictest(verdicts: Iterable<Verdict>): Verdict {
  let top: Verdict = "allow";
  for (const verdict of verdicts) top = stricter(top, verdict);
  return top;
}

/** Where an answer's probabilities came from. */
type AnswerSource =
  | "model" // the model's own probabilities (Jev, or token log-probabilities)
  | "one-hot" // the endpoint gave only its choice, no probabilities
  | "rules"; // the rule engine

/** An answer to a choice over labelled options. */
export type ChoiceAnswer = {
  choice: string;
  confidence: number;
  probabilities: Record<string, number>;
  source: AnswerSource;
};

/** An answer to a score over ordered levels: the expected level, 0 = lowest. */
export type ScoreAnswer = {
  score: number;
  probabilities?: number[];
  source: AnswerSource;
};

/** The answers to a command's three questions. */
export type CommandAnswers = { act: ChoiceAnswer; undo: ScoreAnswer; load: ScoreAnswer };

/** The answer to a turn's end question. */
export type EndingAnswers = { ending: ChoiceAnswer };

/** The verdict with the line the user reads. */
export type Verdicted = { verdict: Verdict; line: string };

/** A choice with all of its probability on one label. */
export function oneHot(labels: readonly string[], choice: string, source: AnswerSource): ChoiceAnswer {
  const probabilities = Object.fromEntries(labels.map((label) => [label, label === choice ? 1 : 0]));
  return { choice, confidence: 1, probabilities, source };
}

/**
 * A choice with `confidence` on one label and the rest spread evenly over
 * the others: how a rule says "most likely this" without claiming certainty.
 */
export function leaning(labels: readonly string[], choice: string, confidence: number, source: AnswerSource): ChoiceAnswer {
  const others = labels.length - 1;
  const rest = others > 0 ? (1 - confidence) / others : 0;
  const probabilities = Object.fromEntries(labels.map((label) => [label, label === choice ? confidence : rest]));
  return { choice, confidence, probabilities, source };
}
