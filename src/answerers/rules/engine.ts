/**
 * The rule engine: a command line's executed commands, each judged by the
 * first rule that matches it (and each of its output redirections by the
 * first redirect rule), combined into one answer for the line: the hardest
 * to undo among them.
 */
import { leaning, type CommandAnswers } from "../../core/answers.ts";
import type { Policy } from "../../policy/schema.ts";
import { parseCommandLine, type ExecutedCommand, type Redirect } from "../../shell/index.ts";
import { candidatesFor, compiledOf, exactLine, ruleIndex, type CompiledRule, type RuleIndex } from "./compile.ts";
import { matchesCommand, matchesRedirect, outputRedirects, restCommand, type Probe, type View } from "./match.ts";
import { usableProjectRoot, type PathContext } from "./paths.ts";
import { diskProbe } from "./probe.ts";
import { programOf } from "./program.ts";

export type RuleContext = {
  cwd: string;
  /** The repository root; the working directory stands for the project when absent. */
  projectRoot?: string;
  home?: string;
  tmpdir?: string;
  /** Disk look-ups (file exists, git tracks it); the real disk by default. */
  probe?: Probe;
};

/** The rule that decided, and the executed command it matched. */
export type RuleHit = {
  id: string;
  reason: string;
  command: ExecutedCommand;
  decision?: "allow" | "ask" | "deny";
  /** For a redirect rule: the redirection it matched. */
  redirect?: Redirect;
};

/** An executed command no rule knows, and why, when there is more to say than that. */
export type Unknown = { command: ExecutedCommand; why?: string };

export type RulesAnswer =
  | { parsed: false; error: string; executed: [] }
  | {
      parsed: true;
      executed: ExecutedCommand[];
      /** Undefined when no rule knows an executed command and nothing known is risky: no confident answer. */
      answers?: CommandAnswers;
      /** A rule's outright decision, which stands before any model is asked. */
      decision?: "allow" | "ask" | "deny";
      /** The rule whose answer stands for the line (the hardest to undo). */
      rule?: RuleHit;
      /** Executed commands no rule knows. */
      unknown: ExecutedCommand[];
      /** Why each unknown command is unknown, in the same order. */
      unknownWhy: string[];
      /** Every rule that answered, one per executed command or redirection. */
      hits: RuleHit[];
    };

type Judged = { hit: RuleHit; rule: CompiledRule };

const DECISION_RANK = { deny: 2, ask: 1, allow: 0 } as const;

/** Expands a working directory the parser left as ~ or ~/x. */
function expandHome(dir: string | undefined, home: string): string | undefined {
  if (dir === undefined) return undefined;
  if (dir === "~") return home;
  if (dir.startsWith("~/")) return home + dir.slice(1);
  return dir;
}

function hitOf(rule: CompiledRule, command: ExecutedCommand, redirect?: Redirect): RuleHit {
  const hit: RuleHit = { id: rule.rule.id, reason: rule.rule.reason, command };
  if (rule.rule.decision) hit.decision = rule.rule.decision;
  if (redirect) hit.redirect = redirect;
  return hit;
}

/**
 * The commands whose output reaches a command's standard input through pipes, nearest first and
 * transitively (`curl u | tee log | sh`: tee, then curl), as the parser recorded them (`stdinFrom`
 * indexes `commands`). A command no pipe feeds has none: `curl u; sh` is not `curl u | sh`.
 */
export function pipeWriters(command: ExecutedCommand, commands: readonly ExecutedCommand[]): ExecutedCommand[] {
  const found: ExecutedCommand[] = [];
  const seen = new Set<number>();
  let frontier = command.stdinFrom ?? [];
  while (frontier.length > 0 && found.length < 16) {
    const next: number[] = [];
    for (const at of frontier) {
      const writer = commands[at];
      if (writer === undefined || seen.has(at)) continue;
      seen.add(at);
      found.push(writer);
      next.push(...(writer.stdinFrom ?? []));
    }
    frontier = next;
  }
  return found;
}

/** Builds the view of one executed command that matching works on; `writers` feed its standard input (pipeWriters). */
export function viewOf(command: ExecutedCommand, writers: readonly ExecutedCommand[], base: PathContext, probe: Probe): { view: View; untrusted?: string } {
  const overridden = ["HOME", "TMPDIR", "PWD"].filter((name) => name in command.env);
  const ctx: PathContext = {
    ...base,
    cwd: expandHome(command.cwd, base.home),
    ...(overridden.length > 0 ? { overridden: new Set([...(base.overridden ?? []), ...overridden]) } : {}),
  };
  const program = programOf(command, ctx);
  let args = command.argv.slice(1);
  // find's -exec ... ; segments are commands of their own (the parser lists them): find's own options stop at -exec.
  if (FIND.has(program.name)) args = withoutExecSegments(args);
  // xargs and parallel add arguments read from standard input: unknown ones.
  if (command.via.some((label) => label === "xargs" || label === "parallel") && !args.some((arg) => arg.includes("{}"))) args.push("{}");
  const view: View = { command, name: program.name, ctx, args, parsed: new Map(), classes: new Map(), probe, earlier: writers.map((c) => c.name) };
  return { view, untrusted: program.untrusted };
}

const FIND = new Set(["find", "gfind", "bfs"]);
const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** find's arguments with the words of each -exec segment left out (the -exec itself stays). */
function withoutExecSegments(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    out.push(word);
    if (!EXEC_ACTIONS.has(word)) continue;
    let j = i + 1;
    while (j < args.length && !(args[j] === ";" || (args[j] === "+" && args[j - 1] === "{}"))) j++;
    i = j;
  }
  return out;
}

/**
 * The first rule naming a program that matches the command. `exact`, a rule
 * for the whole line (match.command_exact), stands in its place in the
 * order: rules tried before it still answer for what they match.
 */
export function firstCommandRule(index: RuleIndex, view: View, exact?: CompiledRule): CompiledRule | undefined {
  if (index.tightening > 0) return strictestCommandRule(index, view, exact);
  for (const entry of candidatesFor(index, view.name)) {
    if (exact && entry.index > exact.index) return exact;
    const rule = compiledOf(entry);
    if (rule && matchesCommand(rule, view)) return rule;
  }
  return exact;
}

/**
 * firstCommandRule when an untrusted layer added rules that may only tighten: such a rule that matches
 * answers only when its decision is stricter than the answer of the first trusted rule that matches.
 */
function strictestCommandRule(index: RuleIndex, view: View, exact?: CompiledRule): CompiledRule | undefined {
  let tight: CompiledRule | undefined;
  let found: CompiledRule | undefined = exact;
  for (const entry of candidatesFor(index, view.name)) {
    if (exact && entry.index > exact.index) break;
    const rule = compiledOf(entry);
    if (!matchesCommand(rule, view)) continue;
    if (entry.tightening) {
      if (!tight || decisionRank(rule) > decisionRank(tight)) tight = rule;
      continue;
    }
    found = rule;
    break;
  }
  if (tight && (!found || decisionRank(tight) > decisionRank(found))) return tight;
  return found;
}

function decisionRank(rule: CompiledRule): number {
  const decision = rule.rule.decision;
  return decision === "deny" || decision === "ask" ? DECISION_RANK[decision] : 0;
}

/** Whether a command_exact rule's other fields hold for one command; its program may also be named as written, path left out. */
function exactHoldsFor(rule: CompiledRule, view: View): boolean {
  if (!rule.program) return true;
  if (matchesCommand(rule, view)) return true;
  const written = view.command.name;
  return written !== view.name && rule.program(written) && matchesCommand(rule, { ...view, name: written });
}

/**
 * The first rule for exactly this line (match.command_exact) whose other
 * fields hold for some command of the line or a wrapper it runs through.
 * One map look-up for a line no such rule names.
 */
export function exactRule(index: RuleIndex, line: string, commands: readonly ExecutedCommand[], base: PathContext, probe: Probe): CompiledRule | undefined {
  if (index.exact.size === 0) return undefined;
  const entries = index.exact.get(exactLine(line));
  if (!entries) return undefined;
  for (const entry of entries) {
    const rule = compiledOf(entry);
    if (!rule) continue;
    const holds = commands.some(
      (command) =>
        exactHoldsFor(rule, viewOf(command, pipeWriters(command, commands), base, probe).view) ||
        command.via.some((label) => {
          const name = wrapperName(label);
          return name !== undefined && exactHoldsFor(rule, viewOf(wrapperCommand(name, command), [], base, probe).view);
        }),
    );
    if (holds) return rule;
  }
  return undefined;
}

export function redirectRuleMatches(rule: CompiledRule, view: View, out: ReturnType<typeof outputRedirects>[number]): boolean {
  if (!matchesRedirect(rule, view, out)) return false;
  if (rule.viaAny && !view.command.via.some(rule.viaAny)) return false;
  return true;
}

/** Wrappers judged on their own (sudo: anything run with it changes the machine); the rest only pass their command on. */
export function wrapperName(label: string): string | undefined {
  const name = label.split(" ")[0] as string;
  return /^[a-z][a-z0-9_.-]*$/.test(name) && !name.endsWith("()") ? name : undefined;
}

/** A wrapper (sudo, ssh) as a command of its own, without its arguments. */
export function wrapperCommand(name: string, command: ExecutedCommand): ExecutedCommand {
  const pseudo: ExecutedCommand = { program: name, name, argv: [name], env: {}, redirects: [], via: [], dynamic: false };
  if (command.cwd !== undefined) pseudo.cwd = command.cwd;
  return pseudo;
}

/**
 * Sees each view the engine judges, in order: every executed command (those a `runs: rest` rule
 * found included) and every wrapper it ran through. Proving a rule's examples uses it, so examples
 * are matched against exactly what the engine matches (examples.ts).
 */
export type ViewObserver = (view: View, wrapper: boolean) => void;

export function answerLine(line: string, context: RuleContext, policy: Pick<Policy, "rules" | "acts" | "judge">, observe?: ViewObserver): RulesAnswer {
  const parsed = parseCommandLine(line, { cwd: context.cwd });
  if (!parsed.ok) return { parsed: false, error: parsed.error, executed: [] };
  const commands = parsed.commands;
  // node:os only when HOME is unset: loading it costs about 0.4 M instructions at every start.
  const home = (context.home ?? process.env.HOME ?? (require("node:os") as typeof import("node:os")).homedir()).replace(/(.)\/+$/, "$1");
  const assigned = ["HOME", "TMPDIR", "PWD"].filter((name) => name in parsed.assignments || commands.some((c) => c.name === "export" && c.argv.some((a) => a.startsWith(`${name}=`))));
  const base: PathContext = {
    cwd: context.cwd,
    projectRoot: usableProjectRoot(context.projectRoot ?? context.cwd, home),
    home,
    tmpdir: context.tmpdir ?? process.env.TMPDIR,
  };
  if (assigned.length > 0) base.overridden = new Set(assigned);
  const probe = context.probe ?? diskProbe;
  const index = ruleIndex(policy.rules);
  const labels = Object.keys(policy.acts);
  const exact = exactRule(index, line, commands, base, probe);

  const judged: Judged[] = [];
  const unknown: ExecutedCommand[] = [];
  const unknownWhy: string[] = [];
  const wrappersSeen = new Set<string>();
  // Labels of commands found through a rule's `runs: rest` (uv run X): the runner was judged as a command already.
  const runnerLabels = new Set<string>();

  // Commands that rules say another program runs (uv run X) are judged too; they join the list as they are found.
  const executed = [...commands];
  // What pipes feed each command, kept by identity: commands found through `runs: rest` join the list
  // below and shift its indexes, and they read what their runner reads.
  const writersOf = new Map<ExecutedCommand, ExecutedCommand[]>(commands.map((command) => [command, pipeWriters(command, commands)]));
  for (let i = 0; i < executed.length; i++) {
    const command = executed[i] as ExecutedCommand;
    const { view, untrusted } = viewOf(command, writersOf.get(command) ?? [], base, probe);
    observe?.(view, false);
    const rule = firstCommandRule(index, view, exact);
    if (rule?.rule.runs === "rest" && command.via.length < 32) {
      const rest = restCommand(rule, view);
      if (rest && rest.length > 0) {
        const program = rest[0] as string;
        const label = `${view.name} ${rule.rule.match.subcommand ? [rule.rule.match.subcommand].flat()[0] : ""}`.trim();
        runnerLabels.add(label);
        const run: ExecutedCommand = {
          program,
          name: program.slice(program.lastIndexOf("/") + 1) || program,
          argv: rest,
          env: command.env,
          redirects: [],
          via: [...command.via, label],
          dynamic: /[$`*?[]/.test(program),
          ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
        };
        writersOf.set(run, writersOf.get(command) ?? []);
        executed.splice(i + 1, 0, run);
      }
    }
    if (rule) judged.push({ hit: hitOf(rule, command), rule });
    else {
      unknown.push(command);
      unknownWhy.push(untrusted ?? `no rule knows ${command.dynamic ? "a program named by an expansion" : view.name}`);
    }
    for (const out of outputRedirects(view)) {
      let redirectRule: CompiledRule | undefined;
      for (const entry of index.redirects) {
        if (exact && entry.index > exact.index) break;
        const candidate = compiledOf(entry);
        if (candidate && redirectRuleMatches(candidate, view, out)) {
          redirectRule = candidate;
          break;
        }
      }
      redirectRule ??= exact;
      if (redirectRule) judged.push({ hit: hitOf(redirectRule, command, out.redirect), rule: redirectRule });
    }
    for (const label of command.via) {
      const name = wrapperName(label);
      if (!name || wrappersSeen.has(label) || runnerLabels.has(label)) continue;
      wrappersSeen.add(label);
      const wrapperView = viewOf(wrapperCommand(name, command), [], base, probe).view;
      observe?.(wrapperView, true);
      const wrapper = firstCommandRule(index, wrapperView, exact);
      // A wrapper no rule knows only passes its command on: it is not an unknown command.
      if (wrapper && wrapper.rule.act !== undefined) judged.push({ hit: hitOf(wrapper, command), rule: wrapper });
    }
  }

  const hits = judged.map((j) => j.hit);
  if (executed.length === 0) {
    // Nothing executes (an empty line, a comment, an assignment): nothing to undo.
    return { parsed: true, executed: [], answers: answersOf(labels, "read", 1, 0, 0), unknown, unknownWhy, hits };
  }
  if (judged.length === 0) return { parsed: true, executed, unknown, unknownWhy, hits };

  const hardest = judged.reduce((best, j) => (harder(j.rule, best.rule, policy) ? j : best));
  const load = Math.max(...judged.map((j) => j.rule.rule.load ?? 0));
  const top = hardest.rule.rule;
  const answers = answersOf(labels, top.act, top.confidence ?? 1, top.undo, load);

  const decisions = judged.map((j) => j.rule.rule.decision);
  let decision: "allow" | "ask" | "deny" | undefined;
  if (decisions.includes("deny")) decision = "deny";
  else if (decisions.includes("ask")) decision = "ask";
  else if (unknown.length === 0 && decisions.every((d) => d === "allow")) decision = "allow";

  if (unknown.length > 0 && decision === undefined && !risky(top, policy)) {
    // Something unknown runs and nothing known is worth asking about: no confident answer.
    return { parsed: true, executed, unknown, unknownWhy, hits };
  }
  const result: RulesAnswer = { parsed: true, executed, answers, rule: hardest.hit, unknown, unknownWhy, hits };
  if (decision) result.decision = decision;
  return result;
}

function answersOf(labels: string[], act: string, confidence: number, undo: number, load: number): CommandAnswers {
  return {
    act: leaning(labels.includes(act) ? labels : [...labels, act], act, confidence, "rules"),
    undo: { score: undo, source: "rules" },
    load: { score: load, source: "rules" },
  };
}

function consequential(act: string, policy: Pick<Policy, "acts">): boolean {
  return policy.acts[act]?.consequential ?? true;
}

/** Whether a rule's answer alone would be asked about. */
function risky(rule: CompiledRule["rule"], policy: Pick<Policy, "acts" | "judge">): boolean {
  const t = policy.judge.thresholds;
  return (consequential(rule.act, policy) && (rule.confidence ?? 1) >= t.ask_at_consequential) || rule.undo >= t.ask_at_undo;
}

/** Whether answer a is harder to undo than b: an outright deny or ask first, then the undo level, then a consequential act, then confidence. */
function harder(a: CompiledRule, b: CompiledRule, policy: Pick<Policy, "acts" | "judge">): boolean {
  const ra = a.rule.decision === "deny" || a.rule.decision === "ask" ? DECISION_RANK[a.rule.decision] : 0;
  const rb = b.rule.decision === "deny" || b.rule.decision === "ask" ? DECISION_RANK[b.rule.decision] : 0;
  if (ra !== rb) return ra > rb;
  const sa = risky(a.rule, policy) ? 1 : 0;
  const sb = risky(b.rule, policy) ? 1 : 0;
  if (sa !== sb) return sa > sb;
  if (a.rule.undo !== b.rule.undo) return a.rule.undo > b.rule.undo;
  const ca = consequential(a.rule.act, policy) ? 1 : 0;
  const cb = consequential(b.rule.act, policy) ? 1 : 0;
  if (ca !== cb) return ca > cb;
  return (a.rule.confidence ?? 1) > (b.rule.confidence ?? 1);
}
