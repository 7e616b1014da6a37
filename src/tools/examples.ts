/**
 * A tool rule's own examples, each tried against that rule alone, as the shell rules' examples are: in a
 * project at /home/user/project (home /home/user) where a name with a dot exists and git tracks nothing,
 * unless the example says otherwise (exists, tracked).
 */
import { examplesProbe } from "../answerers/rules/probe.ts";
import type { Policy } from "../policy/schema.ts";
import type { z } from "zod";
import type { ToolExample } from "../policy/schema-tool-rules.ts";
import { partFacts, resolveContext } from "./facts.ts";
import { compileToolRule, matches } from "./rules.ts";
import { lineCount, type ToolPart } from "./types.ts";

type Example = z.output<typeof ToolExample>;

const TOOL_EXAMPLE_CONTEXT = { cwd: "/home/user/project", projectRoot: "/home/user/project", home: "/home/user", tmpdir: "/tmp" };

function exampleText(example: Example): string {
  return JSON.stringify(example);
}

function examplePart(example: Example): ToolPart {
  const part: ToolPart = { kind: example.kind };
  if (example.path !== undefined) part.path = example.path;
  if (example.url !== undefined) part.url = example.url;
  if (example.content !== undefined) {
    part.content = example.content;
    part.added = lineCount(example.content);
  }
  if (example.server !== undefined) part.server = example.server;
  if (example.args !== undefined) part.args = example.args;
  part.tool = example.tool ?? example.kind;
  return part;
}

/** Whether one compiled rule matches an example's part. */
function ruleMatchesExample(rule: ReturnType<typeof compileToolRule>, example: Example): boolean {
  const probe = {
    exists: (path: string) => example.exists ?? examplesProbe.exists(path),
    tracked: () => example.tracked ?? false,
  };
  const resolved = resolveContext({ ...TOOL_EXAMPLE_CONTEXT, probe, realpath: (path) => path, read: () => undefined });
  const part = examplePart(example);
  return matches(rule, part, partFacts(part, resolved));
}

type ToolExampleProblem = { index: number; id: string; example: string; message: string };

export function checkToolRuleExamples(policy: Pick<Policy, "tool_rules">): ToolExampleProblem[] {
  const problems: ToolExampleProblem[] = [];
  policy.tool_rules.forEach((rule, index) => {
    if (!rule.examples) return;
    let compiled: ReturnType<typeof compileToolRule>;
    try {
      compiled = compileToolRule(rule, index);
    } catch {
      return; // reported by toolRuleProblems
    }
    for (const example of rule.examples.not_match ?? []) {
      if (ruleMatchesExample(compiled, example))
        problems.push({
          index,
          id: rule.id,
          example: exampleText(example),
          message: `tool rule ${rule.id} matches ${exampleText(example)}, which its examples say it must not`,
        });
    }
    for (const example of rule.examples.match ?? []) {
      if (!ruleMatchesExample(compiled, example))
        problems.push({
          index,
          id: rule.id,
          example: exampleText(example),
          message: `tool rule ${rule.id} does not match ${exampleText(example)}, which its examples say it must`,
        });
    }
  });
  return problems;
}
