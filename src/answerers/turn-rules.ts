/**
 * The rule engine as the answerer of a turn's end: "how did this turn end?"
 * answered offline from evidence it can check, by the policy's `turn_rules`:
 * patterns over the final message (it announces what it will do next and
 * names no obstacle; it asks the developer a question; it reports a named
 * failure) and facts from the transcript (the last test command failed).
 *
 * Evidence for a rule (final_matches) is looked for only in the message's
 * own words: text it merely quotes or shows as code (a draft, a template, a
 * code comment) says nothing about the turn. Evidence against a rule
 * (final_not_matches) counts wherever it is, quotes and code included: an
 * error message quoted from a command is still an obstacle. The developer's
 * latest request can be a condition too (request_matches: it asked for all
 * of something; request_not_matches: it asked for a plan, not the work).
 *
 * Conservative by construction: the first rule whose every condition holds
 * leans the answer toward its ending by its confidence; where none holds the
 * answer is spread evenly over the endings, which no threshold reaches, so
 * the verdict is pass. A wrong refusal costs the user a wasted turn.
 */
import { leaning, type EndingAnswers } from "../core/answers.ts";
import { tail } from "../core/questions.ts";
import type { Policy, TurnRule } from "../policy/schema.ts";

/**
 * What the host's transcript says about the turn, as far as an adapter could
 * read it. Absent: no evidence (not evidence that nothing ran).
 */
export type TranscriptFacts = {
  /** The shell commands run since the latest developer request, oldest first. */
  commands: {
    command: string;
    /** The command failed: a non-zero exit status, or the host marked its result an error. */
    failed: boolean;
    exitCode?: number;
  }[];
};

export type TurnRuleHit = { id: string; reason: string; outright: boolean };

type TurnRulesAnswer = { answers: EndingAnswers; rule?: TurnRuleHit };

type Compiled = {
  rule: TurnRule;
  final?: RegExp[];
  notFinal?: RegExp[];
  request?: RegExp[];
  notRequest?: RegExp[];
  lastCommand?: RegExp[];
  problems: string[];
};

const compiledByPolicy = new WeakMap<object, Compiled[]>();

function compileAll(patterns: (string | string[])[] | undefined, field: string, problems: string[]): RegExp[] | undefined {
  if (!patterns) return undefined;
  const out: RegExp[] = [];
  for (const pattern of patterns.flat()) {
    try {
      out.push(new RegExp(pattern, "i"));
    } catch (error) {
      problems.push(`${field}: ${JSON.stringify(pattern)} is not a valid regular expression (${(error as Error).message})`);
    }
  }
  return out;
}

function compile(policy: Pick<Policy, "turn_rules">): Compiled[] {
  const cached = compiledByPolicy.get(policy.turn_rules);
  if (cached) return cached;
  const compiled = policy.turn_rules.map((rule) => {
    const problems: string[] = [];
    return {
      rule,
      final: compileAll(rule.final_matches, "final_matches", problems),
      notFinal: compileAll(rule.final_not_matches, "final_not_matches", problems),
      request: compileAll(rule.request_matches, "request_matches", problems),
      notRequest: compileAll(rule.request_not_matches, "request_not_matches", problems),
      lastCommand: compileAll(rule.last_command?.matches, "last_command.matches", problems),
      problems,
    };
  });
  compiledByPolicy.set(policy.turn_rules, compiled);
  return compiled;
}

/** Problems with the policy's turn rules (bad patterns, unknown endings, no condition), as sentences. */
export function checkTurnRules(policy: Pick<Policy, "turn_rules" | "endings">): string[] {
  const problems: string[] = [];
  compile(policy).forEach(({ rule, problems: own }) => {
    for (const problem of own) problems.push(`turn rule ${rule.id}: ${problem}`);
    if (!policy.endings[rule.ending]) problems.push(`turn rule ${rule.id}: unknown ending ${JSON.stringify(rule.ending)}`);
    if (!rule.final_matches && !rule.final_not_matches && !rule.request_matches && !rule.request_not_matches && !rule.last_command) {
      problems.push(`turn rule ${rule.id}: has no condition, so it never applies`);
    }
  });
  return problems;
}

/**
 * The message's own words: fenced code blocks, quoted lines, inline code and
 * double-quoted text become placeholders, so a pattern cannot match what the
 * message only quotes, and the message keeps its shape (a placeholder, not
 * nothing, where a block was: a message that ends with a code block does not
 * seem to end with the colon before it).
 */
export function ownWords(final: string): string {
  return final
    .replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?(^[ \t]*\1[^\n]*$|(?![\s\S]))/gm, "[code]")
    .replace(/^[ \t]*>[^\n]*$/gm, "[quote]")
    .replace(/`[^`\n]*`/g, "code")
    .replace(/"[^"\n]{1,200}"|“[^”\n]{1,200}”/g, "[quoted]");
}

type Seen = { own: string; written: string; request?: string; facts?: TranscriptFacts };

/** Whether every condition of a rule holds. A rule with a bad pattern or no condition never applies. */
function applies(compiled: Compiled, seen: Seen): boolean {
  const { rule } = compiled;
  if (compiled.problems.length > 0) return false;
  if (!compiled.final && !compiled.notFinal && !compiled.request && !compiled.notRequest && !compiled.lastCommand) return false;
  const own = rule.final_tail ? tail(seen.own, rule.final_tail) : seen.own;
  const written = rule.final_tail ? tail(seen.written, rule.final_tail) : seen.written;
  if (compiled.final && !compiled.final.some((re) => re.test(own))) return false;
  if (compiled.notFinal && compiled.notFinal.some((re) => re.test(written))) return false;
  if (compiled.request && (seen.request === undefined || !compiled.request.some((re) => re.test(seen.request!)))) return false;
  if (compiled.notRequest && seen.request !== undefined && compiled.notRequest.some((re) => re.test(seen.request!))) return false;
  if (compiled.lastCommand && rule.last_command) {
    if (!seen.facts) return false;
    const matching = seen.facts.commands.filter((command) => compiled.lastCommand!.some((re) => re.test(command.command)));
    const last = matching.at(-1);
    if (!last || last.failed !== rule.last_command.failed) return false;
  }
  return true;
}

/** The rule engine's answer to the endings question. */
export function answerTurnByRules(
  input: { final: string; requests?: string[]; transcript?: TranscriptFacts },
  policy: Pick<Policy, "turn_rules" | "endings">,
): TurnRulesAnswer {
  const labels = Object.keys(policy.endings);
  const latest = input.requests?.at(-1);
  const seen: Seen = {
    own: ownWords(input.final),
    written: input.final,
    request: latest === undefined || latest.trim() === "" ? undefined : latest,
    facts: input.transcript,
  };
  for (const compiled of compile(policy)) {
    const { rule } = compiled;
    if (!labels.includes(rule.ending)) continue;
    if (!applies(compiled, seen)) continue;
    return {
      answers: { ending: leaning(labels, rule.ending, rule.confidence, "rules") },
      rule: { id: rule.id, reason: rule.reason, outright: rule.outright === true },
    };
  }
  // No confident rule: an even spread, which reaches no threshold.
  const even = 1 / labels.length;
  const probabilities = Object.fromEntries(labels.map((label) => [label, even]));
  return { answers: { ending: { choice: labels[0] ?? "finished", confidence: even, probabilities, source: "rules" } } };
}
