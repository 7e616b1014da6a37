/**
 * A rule's own examples: the command lines it must match and must not
 * match, each tried against that rule alone, the way a policy proves what
 * its rules mean. A policy whose rules contradict their examples is refused.
 */
import type { Policy, Rule } from "../../policy/schema.ts";
import { parseCommandLine } from "../../shell/index.ts";
import { compileRule, ruleIndex, type CompiledRule } from "./compile.ts";
import { matchesCommand, matchesRedirect, outputRedirects } from "./match.ts";
import type { PathContext } from "./paths.ts";
import { examplesProbe } from "./probe.ts";
import { exactRule, pipeWriters, viewOf, wrapperCommand, wrapperName } from "./engine.ts";

export type ExampleProblem = { index: number; id: string; example: string; message: string };

/** Where examples run: a project under a home directory, where a name with a dot (notes.txt, .) exists and git tracks nothing. */
export const EXAMPLE_CONTEXT: PathContext = { cwd: "/home/user/project", projectRoot: "/home/user/project", home: "/home/user", tmpdir: "/tmp" };

/** Whether one rule alone matches some executed command (or output redirection) of a line; an error text when the line does not parse. */
export function ruleMatchesLine(compiled: CompiledRule, line: string, ctx: PathContext = EXAMPLE_CONTEXT): boolean | string {
  const parsed = parseCommandLine(line, { cwd: ctx.cwd });
  if (!parsed.ok) return parsed.error;
  if (compiled.commandExact !== undefined) {
    return exactRule(ruleIndex([compiled.rule]), line, parsed.commands, ctx, examplesProbe) !== undefined;
  }
  return parsed.commands.some((command) => {
    const { view } = viewOf(command, pipeWriters(command, parsed.commands), ctx, examplesProbe);
    if (!compiled.program) return outputRedirects(view).some((out) => matchesRedirect(compiled, view, out));
    if (matchesCommand(compiled, view)) return true;
    // The wrappers a command ran through (sudo, ssh) are matched as commands of their own.
    return command.via.some((label) => {
      const name = wrapperName(label);
      return name !== undefined && matchesCommand(compiled, viewOf(wrapperCommand(name, command), [], ctx, examplesProbe).view);
    });
  });
}

export function checkRuleExamples(policy: Pick<Policy, "rules">): ExampleProblem[] {
  const problems: ExampleProblem[] = [];
  policy.rules.forEach((rule: Rule, index) => {
    if (!rule.examples) return;
    let compiled: CompiledRule;
    try {
      compiled = compileRule(rule, index);
    } catch {
      return; // reported by ruleProblems
    }
    for (const example of rule.examples.not_match ?? []) {
      const result = ruleMatchesLine(compiled, example);
      if (typeof result === "string") problems.push({ index, id: rule.id, example, message: `the example cannot be parsed: ${result}` });
      else if (result) problems.push({ index, id: rule.id, example, message: `rule ${rule.id} matches ${JSON.stringify(example)}, which its examples say it must not` });
    }
    for (const example of rule.examples.match ?? []) {
      const result = ruleMatchesLine(compiled, example);
      if (typeof result === "string") problems.push({ index, id: rule.id, example, message: `the example cannot be parsed: ${result}` });
      else if (!result) problems.push({ index, id: rule.id, example, message: `rule ${rule.id} does not match ${JSON.stringify(example)}, which its examples say it must` });
    }
  });
  return problems;
}
