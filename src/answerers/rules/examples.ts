/**
 * A rule's own examples, proven with the engine itself: each example line is
 * judged by the engine under the whole policy (so `runs: rest` finds `pytest`
 * in `uv run pytest -q`, exactly as a hook would), and the rule must match
 * (or must not match) some command or wrapper the engine looked at. There is
 * no second walker: what a policy check says a rule matches is what the
 * engine matches.
 */
import type { Rule } from "../../policy/schema.ts";
import { parseCommandLine } from "../../shell/index.ts";
import { compileRule, ruleIndex, type CompiledRule } from "./compile.ts";
import { answerLine, exactRule, redirectRuleMatches, type LinePolicy, type RuleContext } from "./engine.ts";
import { matchesCommand, outputRedirects, type View } from "./match.ts";
import type { PathContext } from "./paths.ts";
import { examplesProbe } from "./probe.ts";

/** A rule's example that does not hold: where it is in the rule, and why. */
export type ExampleProblem = { segments: (string | number)[]; example: string; message: string };

/** Where examples run: a project under a home directory, where a name with a dot (notes.txt, .) exists and git tracks nothing. */
const EXAMPLE_CONTEXT: PathContext = { cwd: "/home/user/project", projectRoot: "/home/user/project", home: "/home/user", tmpdir: "/tmp" };

const ENGINE_CONTEXT: RuleContext = {
  cwd: "/home/user/project",
  projectRoot: "/home/user/project",
  home: "/home/user",
  tmpdir: "/tmp",
  probe: examplesProbe,
};

/**
 * Whether `compiled` matches some command of `line` as the engine judges it under `policy`; an
 * error text when the line does not parse.
 */
function ruleMatchesLine(compiled: CompiledRule, line: string, policy: LinePolicy): boolean | string {
  if (compiled.commandExact !== undefined) {
    const parsed = parseCommandLine(line, { cwd: EXAMPLE_CONTEXT.cwd });
    if (!parsed.ok) return parsed.error;
    return exactRule(ruleIndex([compiled.rule]), line, parsed.commands, EXAMPLE_CONTEXT, examplesProbe) !== undefined;
  }
  let matched = false;
  const observe = (view: View, wrapper: boolean) => {
    if (matched) return;
    if (!compiled.program) matched = !wrapper && outputRedirects(view).some((out) => redirectRuleMatches(compiled, view, out));
    else matched = matchesCommand(compiled, view);
  };
  const answer = answerLine(line, ENGINE_CONTEXT, policy, observe);
  if (!answer.parsed) return answer.error;
  return matched;
}

/** The examples of `rule` (at `index` of its own file) that do not hold under `policy`, the effective policy it is part of. */
export function proveRuleExamples(rule: Rule, policy: LinePolicy, compiled: CompiledRule = compileRule(rule, 0)): ExampleProblem[] {
  const problems: ExampleProblem[] = [];
  const kinds = [
    ["match", true],
    ["not_match", false],
  ] as const;
  for (const [kind, must] of kinds) {
    (rule.examples?.[kind] ?? []).forEach((example, at) => {
      const segments = ["examples", kind, at];
      const result = ruleMatchesLine(compiled, example, policy);
      if (typeof result === "string") problems.push({ segments, example, message: `the example cannot be parsed: ${result}` });
      else if (result !== must) {
        problems.push({
          segments,
          example,
          message: must
            ? `rule ${rule.id} does not match ${JSON.stringify(example)}, which its examples say it must`
            : `rule ${rule.id} matches ${JSON.stringify(example)}, which its examples say it must not`,
        });
      }
    });
  }
  return problems;
}
