/**
 * Rules compiled once per policy: patterns turned into matchers, and the
 * rules that name a program indexed by that name, so a command is tried
 * only against the rules that could match it.
 */
import type { Rule } from "../../policy/schema.ts";
import { posix } from "node:path";
import type { PathClass } from "./paths.ts";
import { compileAny, compilePattern, isPattern, type Matcher } from "./pattern.ts";

type RedirectSpec = {
  to?: ReadonlySet<PathClass>;
  op?: ReadonlySet<string>;
  file?: "exists" | "missing";
  tracked?: boolean;
};

export type CompiledRule = {
  rule: Rule;
  /** Position in the policy's list: the order rules are tried in. */
  index: number;
  program?: Matcher;
  withValue: ReadonlySet<string>;
  /** Key of withValue, for caching parsed arguments. */
  withValueKey: string;
  /** match.subcommand as written, one string an alternative. */
  subcommands?: string[];
  /** Each subcommand's words as matchers (undefined stands for `...`, any number of words), compiled when first tried (subcommandWords). */
  subcommandWords?: ((Matcher | undefined)[] | undefined)[];
  optionValues?: [string, Matcher][];
  operandsMin?: number;
  operandsMax?: number;
  pathsExist?: boolean;
  pathsTracked?: boolean;
  stdinAny?: Matcher;
  flagsAny?: string[];
  flagsAll?: string[];
  flagsNone?: string[];
  argsAny?: Matcher;
  argsNone?: Matcher;
  pathsAny?: ReadonlySet<PathClass>;
  pathsAll?: ReadonlySet<PathClass>;
  pathsNone?: ReadonlySet<PathClass>;
  targetAny?: ReadonlySet<PathClass>;
  redirect?: RedirectSpec;
  envAny?: { name: Matcher; value?: Matcher }[];
  viaAny?: Matcher;
  stdinFrom?: Matcher;
  /** match.command_exact, as compared: see exactLine. */
  commandExact?: string;
  /** match.where: the folder (absolute, normalised, no trailing slash) the working directory must be in. */
  where?: string;
};

/** A rule in the index: compiled when its policy was loaded (a layer's rules) or the first time a command is tried against it (the embedded default's, proven when verdict was built). */
export type IndexedRule = {
  rule: Rule;
  index: number;
  compiled?: CompiledRule;
  tightening?: true;
  /** The rule's outright ask or deny (null: neither) when known without reading the rule (a packed rule). */
  outright?: "ask" | "deny" | null;
  /** What a command must show for the rule to match, when known without reading the rule (a packed rule: match.ts, mayMatch). */
  needs?: string;
};

/** A rule's outright ask or deny, else undefined; from the index when it holds it, so that a packed rule is not parsed for it. */
export function outrightOf(entry: IndexedRule): "ask" | "deny" | undefined {
  if (entry.outright !== undefined) return entry.outright ?? undefined;
  const decision = entry.rule.decision;
  return decision === "ask" || decision === "deny" ? decision : undefined;
}

/**
 * Rules an untrusted repository layer added (decision ask or deny): they may only tighten, so one that
 * matches does not stand in place of the trusted rule that would have answered; the stricter of the two
 * answers (firstCommandRule in engine.ts). Marked by the loader before the policy's index is built.
 */
const tighteningRules = new WeakSet<Rule>();

export function markTightening(rule: Rule): void {
  tighteningRules.add(rule);
}

/** Whether the loader marked `rule` as only tightening (kept through the layer cache by packed.ts). */
export function isTightening(rule: Rule): boolean {
  return tighteningRules.has(rule);
}

export type RuleIndex = {
  rules: readonly Rule[];
  /** Every rule as an indexed entry, in policy order (compiled on first use). */
  entries: IndexedRule[];
  /** Program patterns (python3*, mkfs.*) by rule position, compiled on first use; null for rules naming programs exactly. */
  patterns: (Matcher | null | undefined)[];
  /** Rules without a program: they judge redirections. */
  redirects: IndexedRule[];
  /** Rules for one whole command line (match.command_exact), by that line as compared (exactLine). */
  exact: Map<string, IndexedRule[]>;
  /** Per program name: every rule that may match it, in policy order (filled on first use of the name). */
  candidates: Map<string, IndexedRule[]>;
  /** Finds a name's candidates without scanning `entries` (a packed index: packed.ts). */
  lookup?: (name: string) => IndexedRule[];
  /** How many rules only tighten (an untrusted layer's): none in the common case. */
  tightening: number;
};

/** match.where as compared: an absolute folder, normalised, without a trailing slash (except /). */
function whereFolder(where: string): string {
  const normal = posix.normalize(where);
  return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}

/** Whether `dir` is the folder `where` or inside it. */
export function inWhere(dir: string | undefined, where: string): boolean {
  if (dir === undefined) return false;
  const d = whereFolder(dir);
  return d === where || d.startsWith(where === "/" ? "/" : `${where}/`);
}

/** A command line as match.command_exact compares it: leading and trailing whitespace left out, nothing else changed. */
export function exactLine(line: string): string {
  return line.trim();
}

const list = (value: string | string[] | undefined): string[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/** The matcher fields of a compiled rule that compileRule may leave to their first use (lazy). */
type LazyField = "program" | "optionValues" | "stdinAny" | "argsAny" | "argsNone" | "envAny" | "viaAny" | "stdinFrom";

/** Compiles one rule; throws with a message naming the bad pattern. */
export function compileRule(rule: Rule, index: number): CompiledRule {
  return compileFields(rule, index, false);
}

/**
 * Compiles the fields a command is tried on first (where, subcommand) now and the other
 * matcher fields the first time matchesCommand reads them: most candidate rules of a command fail on
 * its subcommand, so their argument patterns are never compiled. For rules proven to compile (the
 * embedded default, a layer's rules compiled eagerly at load): a later throw would be a bug, which the
 * engine's caller turns into an answer that allows nothing.
 */
function compileRuleLazily(rule: Rule, index: number): CompiledRule {
  return compileFields(rule, index, true);
}

function compileFields(rule: Rule, index: number, lazy: boolean): CompiledRule {
  const m = rule.match;
  // An option whose value a rule looks at takes a value.
  const withValue = [...new Set([...(m.options_with_value ?? []), ...Object.keys(m.option_values ?? {})])];
  const compiled: CompiledRule = { rule, index, withValue: new Set(withValue), withValueKey: withValue.join(" ") };
  const guard = <T>(field: string, make: () => T): T => {
    try {
      return make();
    } catch (error) {
      throw new Error(`rule ${rule.id}: match.${field}: ${(error as Error).message}`);
    }
  };
  // A matcher field: its value now, or (lazy) a getter that compiles it when first read and keeps it.
  const field = <K extends LazyField>(key: K, make: () => CompiledRule[K]): void => {
    if (!lazy) {
      compiled[key] = make();
      return;
    }
    Object.defineProperty(compiled, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = make();
        Object.defineProperty(compiled, key, { value, writable: true, configurable: true, enumerable: true });
        return value;
      },
    });
  };
  const programs = list(m.program);
  // Lazy too: a rule tried on a command its index found by name does not read it (matchesCommand).
  if (programs) field("program", () => guard("program", () => compileAny(programs)));
  const subcommands = list(m.subcommand);
  if (subcommands) {
    compiled.subcommands = subcommands;
    compiled.subcommandWords = lazy ? [] : guard("subcommand", () => subcommands.map(compileWords));
  }
  if (m.option_values) {
    field("optionValues", () =>
      guard("option_values", () =>
        Object.entries(m.option_values!).map(([option, patterns]) => [option, compileAny(patterns)] as [string, Matcher]),
      ),
    );
  }
  compiled.operandsMin = m.operands_min;
  compiled.operandsMax = m.operands_max;
  compiled.pathsExist = m.paths_exist;
  compiled.pathsTracked = m.paths_tracked;
  if (m.stdin_any) field("stdinAny", () => guard("stdin_any", () => compileAny(m.stdin_any!)));
  compiled.flagsAny = m.flags_any;
  compiled.flagsAll = m.flags_all;
  compiled.flagsNone = m.flags_none;
  if (m.args_any) field("argsAny", () => guard("args_any", () => compileAny(m.args_any!)));
  if (m.args_none) field("argsNone", () => guard("args_none", () => compileAny(m.args_none!)));
  if (m.paths_any) compiled.pathsAny = new Set(m.paths_any);
  if (m.paths_all) compiled.pathsAll = new Set(m.paths_all);
  if (m.paths_none) compiled.pathsNone = new Set(m.paths_none);
  if (m.target_any) compiled.targetAny = new Set(m.target_any);
  if (m.redirect) {
    compiled.redirect = {
      to: m.redirect.to ? new Set(m.redirect.to) : undefined,
      op: m.redirect.op ? new Set(m.redirect.op) : undefined,
      file: m.redirect.file,
      tracked: m.redirect.tracked,
    };
  }
  if (m.env_any) {
    field("envAny", () =>
      guard("env_any", () =>
        m.env_any!.map((entry) => {
          const eq = entry.indexOf("=");
          return eq === -1
            ? { name: compilePattern(entry) }
            : { name: compilePattern(entry.slice(0, eq)), value: compilePattern(entry.slice(eq + 1)) };
        }),
      ),
    );
  }
  if (m.via_any) field("viaAny", () => guard("via_any", () => compileAny(m.via_any!)));
  if (m.stdin_from) field("stdinFrom", () => guard("stdin_from", () => compileAny(m.stdin_from!)));
  if (m.command_exact !== undefined) compiled.commandExact = exactLine(m.command_exact);
  if (m.where !== undefined) compiled.where = whereFolder(m.where);
  return compiled;
}

function compileWords(subcommand: string): (Matcher | undefined)[] {
  return subcommand
    .trim()
    .split(/\s+/)
    .map((word) => (word === "..." ? undefined : compilePattern(word)));
}

/**
 * The words of a rule's subcommand `at`, compiled the first time they are needed; undefined, without
 * compiling them, when the subcommand starts with a plain word that is not `first` (the command's first
 * operand), which it then cannot match. A list may name a hundred subcommands (npm's project-scripts):
 * a command compiles the few that start with its own.
 */
export function subcommandWords(rule: CompiledRule, at: number, first: string | undefined): (Matcher | undefined)[] | undefined {
  const words = rule.subcommandWords as ((Matcher | undefined)[] | undefined)[];
  const known = words[at];
  if (known) return known;
  const text = (rule.subcommands as string[])[at] as string;
  const trimmed = text.trim();
  const blank = trimmed.search(/\s/);
  const head = blank === -1 ? trimmed : trimmed.slice(0, blank);
  if (head !== first && head !== "..." && !isPattern(head)) return undefined;
  try {
    return (words[at] = compileWords(text));
  } catch (error) {
    throw new Error(`rule ${rule.rule.id}: match.subcommand: ${(error as Error).message}`);
  }
}

const indexes = new WeakMap<readonly Rule[], RuleIndex>();
const policyIndexes = new WeakMap<object, RuleIndex>();

/** Gives a policy object its rule index ahead of use (the embedded default, a cached policy: packed.ts). */
export function attachRuleIndex(policy: object, index: RuleIndex): void {
  policyIndexes.set(policy, index);
}

/** The index of a policy's rules: the one attached to it, else built from its rules (which it may not touch otherwise). */
export function ruleIndexFor(policy: { readonly rules: readonly Rule[] }): RuleIndex {
  return policyIndexes.get(policy) ?? ruleIndex(policy.rules);
}

/**
 * The index of a policy's rules, kept for the process. Nothing is compiled
 * up front: the rules that may match a program name are found by one scan
 * the first time that name is seen, and a rule's patterns are compiled when
 * a command first meets it. A hook judging one line pays for the rules its
 * commands need, not for all of them.
 */
export function ruleIndex(rules: readonly Rule[]): RuleIndex {
  const cached = indexes.get(rules);
  if (cached) return cached;
  let tightening = 0;
  const entries = rules.map((rule, at): IndexedRule => {
    if (!tighteningRules.has(rule)) return { rule, index: at };
    tightening++;
    return { rule, index: at, tightening: true };
  });
  const exact = new Map<string, IndexedRule[]>();
  const redirects: IndexedRule[] = [];
  for (const entry of entries) {
    const { match } = entry.rule;
    if (match.command_exact !== undefined) {
      // Tried only for its one line (exactRule in engine.ts), never as a rule for a program.
      const key = exactLine(match.command_exact);
      const same = exact.get(key);
      if (same) same.push(entry);
      else exact.set(key, [entry]);
    } else if (match.program === undefined && match.redirect !== undefined) redirects.push(entry);
  }
  const index: RuleIndex = { rules, entries, patterns: [], redirects, exact, candidates: new Map(), tightening };
  indexes.set(rules, index);
  return index;
}

/**
 * The compiled form of an indexed rule. Every rule of a loaded policy compiles (the loader refuses a
 * layer with one that does not, and the default is proven by the tests), so this throws only on a bug;
 * the engine's caller turns that into an answer that allows nothing, never into a rule dropped.
 */
export function compiledOf(entry: IndexedRule): CompiledRule {
  entry.compiled ??= compileRuleLazily(entry.rule, entry.index);
  return entry.compiled;
}

/** Compiles, now, the rules of `rules` in `only` (a layer's rules, at load): none is compiled lazily later. */
export function compileEagerly(rules: readonly Rule[], only: ReadonlySet<Rule>): void {
  for (const entry of ruleIndex(rules).entries) if (only.has(entry.rule)) entry.compiled ??= compileRule(entry.rule, entry.index);
}

const MAY_HOLD_PATTERN = /[*?[]|(^|\n)\//;

/** The rules that may match a program name, in policy order. */
export function candidatesFor(index: RuleIndex, name: string): IndexedRule[] {
  if (index.lookup) return index.lookup(name);
  const cached = index.candidates.get(name);
  if (cached) return cached;
  const found: IndexedRule[] = [];
  index.entries.forEach((entry, at) => {
    const program = entry.rule.match.program;
    if (program === undefined || entry.rule.match.command_exact !== undefined) return;
    if (program === name || (Array.isArray(program) && program.includes(name))) {
      found.push(entry);
      return;
    }
    let matcher = index.patterns[at];
    if (matcher === undefined) {
      // One test for the whole list first: most lists hold only plain names.
      const names = Array.isArray(program) ? program : [program];
      const patterns = MAY_HOLD_PATTERN.test(names.join("\n")) ? names.filter(isPattern) : [];
      // Compiles: the loader proved every rule's patterns.
      matcher = patterns.length === 0 ? null : compileAny(patterns);
      index.patterns[at] = matcher;
    }
    if (matcher?.(name)) found.push(entry);
  });
  index.candidates.set(name, found);
  return found;
}
