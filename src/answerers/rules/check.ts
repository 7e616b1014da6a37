/**
 * What a rule or a turn rule must satisfy beyond the schema before a policy
 * holding it is used: every pattern compiles (and cannot backtrack
 * catastrophically), and the rule can match something. Each problem names
 * where in the rule it is, so the loader can point at the file's line.
 */
import type { Rule, TurnRule } from "../../policy/schema.ts";
import { catastrophicBacktracking, catastrophicShapes } from "./backtracking.ts";
import { exactLine } from "./compile.ts";
import { compilePattern } from "./pattern.ts";

export type RuleCheckProblem = { segments: (string | number)[]; message: string; found?: string; hint?: string };

const REGEX_FORM = /^\/(.+)\/(i?)$/s;

const SLOW_HINT =
  "each repetition of the group must start in a way the others cannot (a separator, or alternatives that begin differently)";

/** A pattern that could backtrack catastrophically: the problem, in one wording for every kind of rule. */
export function slowProblem(
  source: string,
  ignoreCase: boolean,
  check = catastrophicBacktracking,
): { message: string; hint: string } | undefined {
  const slow = check(source, ignoreCase);
  return slow ? { message: `${slow}; rewrite it without nested repetition or overlapping alternatives`, hint: SLOW_HINT } : undefined;
}

/** A rule pattern's problem: it could backtrack catastrophically, or it does not compile. */
function patternProblem(pattern: string): { message: string; hint?: string } | undefined {
  const regex = REGEX_FORM.exec(pattern);
  const slow = regex ? slowProblem(regex[1] as string, regex[2] === "i") : undefined;
  if (slow) return slow;
  try {
    compilePattern(pattern);
  } catch (error) {
    return { message: regex ? "not a valid regular expression" : "not a valid pattern", hint: (error as Error).message };
  }
  return undefined;
}

function regexProblem(pattern: string): { message: string; hint?: string } | undefined {
  try {
    new RegExp(pattern, "i");
  } catch (error) {
    return { message: "not a valid regular expression", hint: (error as Error).message };
  }
  return slowProblem(pattern, true, catastrophicShapes);
}

const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Problems with one rule, with segments relative to the rule (["match", "args_any", 0]). */
export function checkRule(rule: Rule): RuleCheckProblem[] {
  const problems: RuleCheckProblem[] = [];
  const m = rule.match;
  const each = (field: string, patterns: string[], single: boolean) =>
    patterns.forEach((pattern, at) => {
      const problem = patternProblem(pattern);
      if (problem)
        problems.push({ segments: single ? ["match", field] : ["match", field, at], found: JSON.stringify(pattern), ...problem });
    });
  for (const field of ["program", "subcommand"] as const) {
    const value = m[field];
    if (field === "subcommand") {
      list(value).forEach((words, at) => {
        for (const word of words.trim().split(/\s+/)) {
          if (word === "...") continue;
          const problem = patternProblem(word);
          if (problem)
            problems.push({
              segments: typeof value === "string" ? ["match", field] : ["match", field, at],
              found: JSON.stringify(word),
              ...problem,
            });
        }
      });
    } else each(field, list(value), typeof value === "string");
  }
  for (const field of ["stdin_any", "args_any", "args_none", "via_any", "stdin_from"] as const) each(field, m[field] ?? [], false);
  for (const [option, patterns] of Object.entries(m.option_values ?? {})) {
    patterns.forEach((pattern, at) => {
      const problem = patternProblem(pattern);
      if (problem) problems.push({ segments: ["match", "option_values", option, at], found: JSON.stringify(pattern), ...problem });
    });
  }
  (m.env_any ?? []).forEach((entry, at) => {
    const eq = entry.indexOf("=");
    for (const part of eq === -1 ? [entry] : [entry.slice(0, eq), entry.slice(eq + 1)]) {
      const problem = patternProblem(part);
      if (problem) problems.push({ segments: ["match", "env_any", at], found: JSON.stringify(entry), ...problem });
    }
  });
  if (m.where !== undefined && !m.where.startsWith("/")) {
    problems.push({
      segments: ["match", "where"],
      message: "match.where must be an absolute folder",
      found: JSON.stringify(m.where),
      hint: "write the folder from the root: /home/me/project",
    });
  }
  if (m.program === undefined && m.redirect === undefined && m.command_exact === undefined) {
    problems.push({
      segments: ["match"],
      message: "the rule can match nothing",
      hint: "a rule needs match.program (to judge commands), match.redirect (to judge redirections) or match.command_exact (to judge one whole line)",
    });
  }
  if (m.command_exact !== undefined && exactLine(m.command_exact) === "") {
    problems.push({
      segments: ["match", "command_exact"],
      message: "match.command_exact is blank, so the rule can match nothing (an empty line runs nothing)",
    });
  }
  if (rule.runs === "rest" && m.program === undefined) {
    problems.push({
      segments: ["runs"],
      message: "runs: rest needs match.program: only a program can run the rest of its words",
      hint: "add match.program, or remove runs",
    });
  }
  return problems;
}

/** Problems with one turn rule, with segments relative to the rule. */
export function checkTurnRule(rule: TurnRule): RuleCheckProblem[] {
  const problems: RuleCheckProblem[] = [];
  const fields = [
    [["final_matches"], rule.final_matches],
    [["final_not_matches"], rule.final_not_matches],
    [["request_matches"], rule.request_matches],
    [["request_not_matches"], rule.request_not_matches],
    [["last_command", "matches"], rule.last_command?.matches],
  ] as const;
  for (const [field, items] of fields) {
    (items ?? []).forEach((item, at) => {
      // An item may be a shared list (a YAML alias): each of its patterns is checked.
      const patterns: [string, (string | number)[]][] =
        typeof item === "string" ? [[item, [at]]] : item.map((one, inner) => [one, [at, inner]]);
      for (const [pattern, path] of patterns) {
        const problem = regexProblem(pattern);
        if (problem) problems.push({ segments: [...field, ...path], found: JSON.stringify(pattern), ...problem });
      }
    });
  }
  if (!rule.final_matches && !rule.final_not_matches && !rule.request_matches && !rule.request_not_matches && !rule.last_command) {
    problems.push({
      segments: [],
      message: "the turn rule has no condition, so it never applies",
      hint: "add final_matches, final_not_matches, request_matches, request_not_matches or last_command",
    });
  }
  return problems;
}
