/**
 * Whether a compiled rule matches one executed command, or one of its
 * output redirections. A command is looked at through a `View` that caches
 * what several rules ask for (parsed arguments, path classes).
 */
import type { ExecutedCommand, Redirect } from "../../shell/index.ts";
import { parseArgs, hasOption, startsWithDash, type ParsedArgs } from "./args.ts";
import { inWhere, subcommandWords, type CompiledRule } from "./compile.ts";
import { posix } from "node:path";
import { classifyPath, resolveWord, SINKS, type PathClass, type PathContext } from "./paths.ts";
import { writeTargets } from "./writes.ts";
import { isPattern } from "./pattern.ts";

/** What the engine may look up on disk; replaced in examples and tests. */
export type Probe = {
  exists(path: string): boolean;
  /** Whether git tracks the file (the repository's index lists it). */
  tracked(path: string, projectRoot: string | undefined): boolean;
  /** Where a path really leads, symlinks followed (for a path that does not exist, through its deepest existing folder). */
  realpath?(path: string): string;
  /** Whether the path is an existing directory. */
  isDirectory?(path: string): boolean;
};

export type View = {
  command: ExecutedCommand;
  /** The program name rules match (see program.ts). */
  name: string;
  ctx: PathContext;
  /** The words after the program name; for commands fed by xargs, one unknown operand more. */
  args: string[];
  /** The programs whose output reaches this command's standard input through pipes (engine.ts pipeWriters). */
  earlier: string[];
  parsed: Map<string, ParsedArgs>;
  classes: Map<string, PathClass>;
  probe: Probe;
};

/** An output redirection that writes somewhere real (not /dev/null, not a stream duplication); also a write through an option (writes.ts). */
export type OutputRedirect = {
  redirect: Redirect;
  op: string;
  path: string | undefined;
  cls: PathClass;
  seen?: string;
  permissions?: boolean;
};

const OUTPUT_OPS = new Set([">", ">>", "&>", "&>>", ">|", "<>", ">&"]);

export function outputRedirects(view: View): OutputRedirect[] {
  const out: OutputRedirect[] = [];
  for (const redirect of view.command.redirects) {
    if (!OUTPUT_OPS.has(redirect.op)) continue;
    const target = redirect.target;
    if (redirect.op === ">&" && /^(?:\d+|-)$/.test(target)) continue; // 2>&1, >&-
    if (SINKS.has(target) || /^\/dev\/fd\/\d+$/.test(target)) continue;
    // <> opens without truncating but writes over the file's first bytes: its old content is lost as with >.
    const op = redirect.op === ">&" ? "&>" : redirect.op === "<>" ? ">" : redirect.op;
    out.push({ redirect, op, path: resolveWord(target, view.ctx), cls: classOf(view, target, true) });
  }
  return out;
}

/** Classes whose paths are followed through symlinks: a place rules let change freely may really be elsewhere (dist -> ~). */
const FOLLOWED = new Set<PathClass>(["build", "temp", "repo", "project", "outside"]);

/**
 * The class of a word used as a path, by where it really leads. Paths of the classes whose loss
 * rules take lightly (build output, temp) are followed through symlinks always; any write
 * target (`written`) too. One disk look-up a path, only for those.
 */
function classOf(view: View, word: string, written = false): PathClass {
  const key = written ? `\0${word}` : word;
  let cls = view.classes.get(key);
  if (cls === undefined) {
    cls = classifyPath(word, view.ctx);
    if (view.probe.realpath && FOLLOWED.has(cls) && (written || cls === "build" || cls === "temp")) {
      const path = resolveWord(word, view.ctx);
      const real = path === undefined ? undefined : realOf(view, path);
      if (real !== undefined && real !== path) cls = classifyPath(real, realContext(view));
    }
    view.classes.set(key, cls);
  }
  return cls;
}

/** Where a path really leads; for a glob (dist/*), where the folder before the glob leads, the glob kept. */
function realOf(view: View, path: string): string | undefined {
  const real = view.probe.realpath as (path: string) => string;
  const parts = path.split("/");
  const globAt = parts.findIndex((part) => /[*?[]/.test(part));
  if (globAt === -1) return real(path);
  const dir = parts.slice(0, globAt).join("/") || "/";
  return posix.join(real(dir), ...parts.slice(globAt));
}

/** The path context with its own folders resolved too, to classify a real path against (a project reached through a symlink stays the project). */
function realContext(view: View): PathContext {
  const real = view.probe.realpath as (path: string) => string;
  const { projectRoot, home, tmpdir } = view.ctx;
  return {
    ...view.ctx,
    home: real(home),
    projectRoot: projectRoot === undefined ? undefined : real(projectRoot),
    ...(tmpdir ? { tmpdir: real(tmpdir) } : {}),
  };
}

/** The writes a command makes through its options and operands (writes.ts), as redirections to judge. */
export function writeRedirects(view: View): OutputRedirect[] {
  const out: OutputRedirect[] = [];
  for (const target of writeTargets(view.name, view.args)) {
    if (SINKS.has(target.word) || /^\/dev\/fd\/\d+$/.test(target.word)) continue;
    const path = resolveWord(target.word, view.ctx);
    let op: string = target.op;
    // cp x existing-dir: the copy goes inside the folder, it does not replace it.
    if (op === ">" && path !== undefined && view.probe.isDirectory?.(path)) op = ">>";
    out.push({
      redirect: { op: op as Redirect["op"], target: target.word },
      op,
      path,
      cls: classOf(view, target.word, true),
      seen: `${target.how} ${target.word}`,
      ...(target.permissions ? { permissions: true } : {}),
    });
  }
  return out;
}

function argsFor(view: View, rule: CompiledRule): ParsedArgs {
  const key = rule.subcommands ? `sub ${rule.withValueKey}` : rule.withValueKey;
  let parsed = view.parsed.get(key);
  if (parsed === undefined) {
    parsed = parseArgs(view.args, rule.withValue, rule.subcommands !== undefined);
    view.parsed.set(key, parsed);
  }
  return parsed;
}

/** The operands after the subcommand words the rule matched, or undefined when its subcommand does not match. */
function operandsAfterSubcommand(rule: CompiledRule, parsed: ParsedArgs): string[] | undefined {
  if (!rule.subcommands) return parsed.operands;
  for (let at = 0; at < rule.subcommands.length; at++) {
    const words = subcommandWords(rule, at, parsed.operands[0]);
    if (words === undefined) continue;
    const end = matchWords(words, 0, parsed.operands, 0);
    if (end !== undefined) return parsed.operands.slice(end);
  }
  return undefined;
}

/** Where the operands after `words` start, when words[w..] match operands[o..] as a prefix; `undefined` words match any run. */
function matchWords(
  words: readonly (((text: string) => boolean) | undefined)[],
  w: number,
  operands: readonly string[],
  o: number,
): number | undefined {
  if (w === words.length) return o;
  const word = words[w];
  if (word === undefined) {
    for (let k = o; k <= operands.length; k++) {
      const end = matchWords(words, w + 1, operands, k);
      if (end !== undefined) return end;
    }
    return undefined;
  }
  if (o >= operands.length || !word(operands[o] as string)) return undefined;
  return matchWords(words, w + 1, operands, o + 1);
}

/**
 * For a rule whose program runs another command (runs: rest), the words of
 * that command: from the first operand after the subcommand to the end.
 */
export function restCommand(rule: CompiledRule, view: View): string[] | undefined {
  const parsed = argsFor(view, rule);
  const operands = operandsAfterSubcommand(rule, parsed);
  if (operands === undefined || operands.length === 0) return undefined;
  const at = parsed.operandAt[parsed.operands.length - operands.length];
  return at === undefined ? undefined : view.args.slice(at);
}

/**
 * Whether a command shows what a packed rule needs to match it (packed.ts, needsOf): false only when
 * matchesCommand would say no, so that the rule need not be parsed and compiled to learn it. Most
 * candidates of a command are passed over here (those of git's other subcommands; those on variables).
 */
export function mayMatch(needs: string | undefined, view: View): boolean {
  if (!needs) return true;
  const groups = needs.split("\t");
  for (const letter of groups[0] as string) {
    if (letter === "e" && Object.keys(view.command.env).length === 0) return false;
    if (letter === "o" && !view.args.some((arg) => arg.length >= 2 && (arg[0] === "-" || startsWithDash(arg)))) return false;
    if (letter === "p" && view.earlier.length === 0) return false;
    if (letter === "v" && view.command.via.length === 0) return false;
    if (letter === "s" && view.command.stdinScript === undefined) return false;
  }
  for (let at = 1; at < groups.length; at++) {
    const group = groups[at] as string;
    if (group.startsWith("~")) {
      const texts = group.slice(1).split(" ");
      if (!view.args.some((arg) => texts.some((text) => arg.includes(text)))) return false;
      continue;
    }
    const words = group.split(" ");
    if (!view.args.some((arg) => words.includes(arg))) return false;
  }
  return true;
}

/**
 * Whether a rule that names a program matches the command. `named`: the rule is one of the candidates
 * for view.name (candidatesFor), whose program list names it or has a pattern that matches it, so its
 * matcher need not be compiled to say so again; unless the name itself reads as a pattern (a literal
 * `python[23]` is listed under that text, which the glob does not match).
 */
export function matchesCommand(rule: CompiledRule, view: View, named = false): boolean {
  if (!(named && !isPattern(view.name)) && (!rule.program || !rule.program(view.name))) return false;
  if (rule.where !== undefined && !inWhere(view.ctx.cwd, rule.where)) return false;
  // The cheap conditions first: they need no parsing of the arguments.
  if (rule.rule.match.env_any) {
    const env = Object.entries(view.command.env);
    // Most commands set no variable: the rule's matchers (two regular expressions in the default's) are then not compiled.
    if (env.length === 0) return false;
    if (!rule.envAny?.some(({ name, value }) => env.some(([key, val]) => name(key) && (!value || value(val))))) return false;
  }
  if (rule.viaAny && !view.command.via.some(rule.viaAny)) return false;
  if (rule.stdinFrom && !view.earlier.some(rule.stdinFrom)) return false;
  const parsed = argsFor(view, rule);
  const operands = operandsAfterSubcommand(rule, parsed);
  if (operands === undefined) return false;
  if (rule.flagsAny && !rule.flagsAny.some((flag) => hasOption(parsed, flag))) return false;
  if (rule.flagsAll && !rule.flagsAll.every((flag) => hasOption(parsed, flag))) return false;
  if (rule.flagsNone && rule.flagsNone.some((flag) => hasOption(parsed, flag))) return false;
  if (rule.argsAny && !view.args.some(rule.argsAny)) return false;
  if (rule.argsNone && view.args.some(rule.argsNone)) return false;
  // A wrapper's arguments were removed to judge it alone: "has no arguments" says nothing about it.
  if ((rule.argsNone || rule.operandsMax !== undefined) && view.command.wrapperOnly) return false;
  if (
    rule.optionValues &&
    !rule.optionValues.some(([option, match]) => parsed.values.some(([name, value]) => name === option && match(value)))
  )
    return false;
  if (rule.operandsMin !== undefined && operands.length < rule.operandsMin) return false;
  if (rule.operandsMax !== undefined && operands.length > rule.operandsMax) return false;
  if (rule.stdinAny && (view.command.stdinScript === undefined || !rule.stdinAny(view.command.stdinScript))) return false;
  if (rule.pathsAny || rule.pathsAll || rule.pathsNone) {
    const classes = operands.map((word) => classOf(view, word));
    if (rule.pathsAny && !classes.some((cls) => rule.pathsAny!.has(cls))) return false;
    if (rule.pathsAll && (classes.length === 0 || !classes.every((cls) => rule.pathsAll!.has(cls)))) return false;
    if (rule.pathsNone && classes.some((cls) => rule.pathsNone!.has(cls))) return false;
  }
  if (rule.targetAny) {
    const last = operands[operands.length - 1];
    if (last === undefined || !rule.targetAny.has(classOf(view, last))) return false;
  }
  if (rule.pathsExist !== undefined) {
    const exists = operands.some((word) => {
      const path = resolveWord(word, view.ctx);
      return path !== undefined && view.probe.exists(path);
    });
    if (exists !== rule.pathsExist) return false;
  }
  if (rule.pathsTracked !== undefined) {
    const tracked =
      operands.length > 0 &&
      operands.every((word) => {
        const path = resolveWord(word, view.ctx);
        return path !== undefined && view.probe.tracked(path, view.ctx.projectRoot);
      });
    if (tracked !== rule.pathsTracked) return false;
  }
  if (rule.redirect && !outputRedirects(view).some((out) => matchesRedirect(rule, view, out))) return false;
  return true;
}

/** Whether a rule's `redirect` holds for one output redirection. */
export function matchesRedirect(rule: CompiledRule, view: View, out: OutputRedirect): boolean {
  const spec = rule.redirect;
  if (!spec) return false;
  if (rule.where !== undefined && !inWhere(view.ctx.cwd, rule.where)) return false;
  if (spec.to && !spec.to.has(out.cls)) return false;
  if (spec.op && !spec.op.has(out.op)) return false;
  if (spec.file !== undefined) {
    if (out.path === undefined) return false;
    if (view.probe.exists(out.path) !== (spec.file === "exists")) return false;
  }
  if (spec.tracked !== undefined) {
    if (out.path === undefined) return false;
    if (view.probe.tracked(out.path, view.ctx.projectRoot) !== spec.tracked) return false;
  }
  return true;
}
