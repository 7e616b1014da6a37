/**
 * How a command's verdict was reached, for a person deciding whether to trust it or to write a rule:
 * what executes (wrappers and substitutions unwrapped, as the parser found them), each command's path
 * arguments with their classes and what the disk says of them, every rule that matches each command or
 * redirection, the nearest rules that name the program but do not match (and which of their fields
 * fail), the answers, the thresholds they met, and the verdict. Built on the rule engine's own pieces
 * (viewOf, matchesCommand, compileRule), so it cannot tell a different story from the engine's.
 */
import { parseArgs } from "../answerers/rules/args.ts";
import { compileRule, type CompiledRule } from "../answerers/rules/compile.ts";
import { pipeWriters, viewOf, wrapperCommand, wrapperName } from "../answerers/rules/engine.ts";
import { matchesCommand, matchesRedirect, outputRedirects, type View } from "../answerers/rules/match.ts";
import { classifyPath, resolveWord, usableProjectRoot, type PathContext } from "../answerers/rules/paths.ts";
import { diskProbe } from "../answerers/rules/probe.ts";
import type { CommandJudgment } from "../judge/judge.ts";
import type { Policy, Rule } from "../policy/schema.ts";
import { parseCommandLine, type ExecutedCommand } from "../shell/index.ts";
import { thresholdsMet, type Thresholds } from "./thresholds.ts";

type PathFact = { word: string; path?: string; class: string; exists?: boolean; tracked?: boolean };
export type Nearest = { id: string; failing: string[] };
type ExplainedCommand = {
  program: string;
  argv: string[];
  via: string[];
  cwd?: string;
  paths: PathFact[];
  redirects: (PathFact & { op: string; rules: string[] })[];
  rules: string[];
  answered_by?: string;
  nearest: Nearest[];
};

export type CommandExplanation = {
  subject: "command";
  command: string;
  cwd: string;
  project_root?: string;
  parsed: boolean;
  error?: string;
  executed: ExplainedCommand[];
  verdict: string;
  line: string;
  answerer: string;
  rule?: string;
  suggest?: string;
  answers?: CommandJudgment["answers"];
  thresholds: Thresholds;
  model_not_used?: string;
};

function compiledRules(policy: Pick<Policy, "rules">): CompiledRule[] {
  const out: CompiledRule[] = [];
  policy.rules.forEach((rule, index) => {
    try {
      out.push(compileRule(rule, index));
    } catch {
      // policy check reports it
    }
  });
  return out;
}

const FIELDS_NOT_TRIED = new Set(["program", "options_with_value", "command_exact"]);

/** The fields of a rule naming this program that fail for the command: each field tried alone with the program. */
function failingFields(rule: Rule, view: View): string[] {
  const failing: string[] = [];
  for (const [field, value] of Object.entries(rule.match)) {
    if (FIELDS_NOT_TRIED.has(field) || value === undefined) continue;
    const alone = {
      ...rule,
      match: {
        program: rule.match.program,
        ...(rule.match.options_with_value ? { options_with_value: rule.match.options_with_value } : {}),
        [field]: value,
      },
    } as Rule;
    try {
      if (!matchesCommand(compileRule(alone, 0), { ...view, parsed: new Map(), classes: new Map() })) failing.push(field);
    } catch {
      failing.push(field);
    }
  }
  return failing;
}

function pathFact(word: string, ctx: PathContext): PathFact {
  const path = resolveWord(word, ctx);
  const fact: PathFact = { word, class: classifyPath(word, ctx) };
  if (path !== undefined) {
    fact.path = path;
    fact.exists = diskProbe.exists(path);
    fact.tracked = diskProbe.tracked(path, ctx.projectRoot);
  }
  return fact;
}

export function explainCommand(
  command: string,
  cwd: string,
  projectRoot: string | undefined,
  policy: Policy,
  judgment: CommandJudgment,
): CommandExplanation {
  const base = {
    subject: "command" as const,
    command,
    cwd,
    ...(projectRoot ? { project_root: projectRoot } : {}),
    verdict: judgment.verdict,
    line: judgment.line,
    answerer: judgment.answerer,
    ...(judgment.rule ? { rule: judgment.rule.id } : {}),
    ...(judgment.answers ? { answers: judgment.answers } : {}),
    thresholds: thresholdsMet(policy, judgment.answers),
    ...(judgment.modelNotUsed ? { model_not_used: judgment.modelNotUsed } : {}),
  };
  const suggest = judgment.verdict === "ask" || judgment.verdict === "deny" ? judgment.rule?.suggest : undefined;
  const parsed = parseCommandLine(command, { cwd });
  if (!parsed.ok) return { ...base, parsed: false, error: parsed.error, executed: [], ...(suggest ? { suggest } : {}) };
  const home = (process.env.HOME ?? "/").replace(/(.)\/+$/, "$1");
  const ctx: PathContext = { cwd, projectRoot: usableProjectRoot(projectRoot ?? cwd, home), home, tmpdir: process.env.TMPDIR };
  const rules = compiledRules(policy);
  // What the engine judged: the parser's commands and those rules said a runner runs (uv run X).
  const commands: ExecutedCommand[] = judgment.executed.length > 0 ? judgment.executed : parsed.commands;
  const executed = commands.map((cmd) => {
    const { view } = viewOf(cmd, pipeWriters(cmd, parsed.commands), ctx, diskProbe);
    const matching = rules.filter(
      (rule) =>
        rule.program &&
        (matchesCommand(rule, view) ||
          cmd.via.some((label) => {
            const name = wrapperName(label);
            return name !== undefined && matchesCommand(rule, viewOf(wrapperCommand(name, cmd), [], ctx, diskProbe).view);
          })),
    );
    const operands = parseArgs(view.args, new Set(), false).operands;
    const nearest = rules
      .filter((rule) => rule.program && rule.program(view.name) && !matching.includes(rule))
      .map((rule) => ({ id: rule.rule.id, failing: failingFields(rule.rule, view) }))
      .filter((entry) => entry.failing.length > 0)
      .sort((a, b) => a.failing.length - b.failing.length)
      .slice(0, 3);
    const redirects = outputRedirects(view).map((out) => ({
      ...pathFact(out.redirect.target, view.ctx),
      op: out.op,
      rules: rules.filter((rule) => !rule.program && matchesRedirect(rule, view, out)).map((rule) => rule.rule.id),
    }));
    const answeredBy = judgment.rule && judgment.rule.command === cmd ? judgment.rule.id : matching[0]?.rule.id;
    return {
      program: view.name,
      argv: cmd.argv,
      via: cmd.via,
      ...(cmd.cwd !== undefined && cmd.cwd !== cwd ? { cwd: cmd.cwd } : {}),
      paths: operands.map((word) => pathFact(word, view.ctx)),
      redirects,
      rules: matching.map((rule) => rule.rule.id),
      ...(answeredBy ? { answered_by: answeredBy } : {}),
      nearest,
    };
  });
  return { ...base, parsed: true, executed, ...(suggest ? { suggest } : {}) };
}
