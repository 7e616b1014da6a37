/**
 * Rules packed for a fast start: the rules' JSON text kept as one string, plus an index by program
 * name that is itself a string, so that loading them costs a string constant (or one JSON.parse of a
 * small cache entry) rather than building 250 rule objects at every start. A rule becomes an object
 * only when a command meets it (JSON.parse of its slice of the text).
 *
 * The embedded default's rules are packed when verdict is built (src/policy/embed.ts), a cached
 * policy's own rules when the layer cache is written (src/policy/layer-cache.ts). `packedRuleIndex`
 * turns packs into the RuleIndex the engine uses, giving the same candidates, in the same order, as
 * ruleIndex + candidatesFor over the rules unpacked (tests/rules/packed.test.ts checks this).
 */
import type { Rule } from "../../policy/schema.ts";
import { exactLine, isTightening, markTightening, type IndexedRule, type RuleIndex } from "./compile.ts";
import { compileAny, isPattern, requiredText, safeRegexSources, type Matcher } from "./pattern.ts";

export type PackedRules = {
  /** The rules' JSON texts, one after another. */
  text: string;
  /** Where each rule's JSON starts in `text`, and where the last ends (length: rules + 1). */
  at: number[];
  /** Each rule's id, joined by "\n" (for the ids a stronger layer replaces). */
  ids: string;
  /** "\n<program>\t<position>,<position>\n..." for every program string a rule names, patterns included, as written. */
  names: string;
  /** Each name's positions in `names` include the rules whose patterns match that name (packRules), so a
   * name found there needs no pattern compiled or tried; absent in packs written before. */
  complete?: true;
  /** Rules whose program list holds patterns: [position, patterns]. */
  patterns: [number, string[]][];
  /** Rules without a program that judge redirections, by position. */
  redirects: number[];
  /** Rules for one whole line (match.command_exact), by the line as compared. */
  exact: [string, number[]][];
  /** The sources of the rules' regular expressions that pass the safety check (regex-safety.ts). */
  safe?: string[];
  /** Each rule's outright decision, one character a rule: `a` ask, `d` deny, `-` neither (so that a command's
   * later candidates are not parsed only to learn they decide nothing: engine.ts, outrightAfter). */
  outright?: string;
  /** Positions of rules an untrusted layer added, which may only tighten (compile.ts: markTightening). */
  tightening?: number[];
  /** What a command must show for each rule to match it at all, a line a rule (needsOf), so that a
   * candidate that cannot match is passed over before it is parsed and compiled (match.ts: mayMatch). */
  needs?: string;
};

/** Packs rules (in policy order). Throws when a program name cannot be indexed (a newline or tab in it). */
export function packRules(rules: readonly Rule[]): PackedRules {
  let text = "";
  const at: number[] = [];
  const names = new Map<string, number[]>();
  const patterns: [number, string[]][] = [];
  const redirects: number[] = [];
  const exact = new Map<string, number[]>();
  rules.forEach((rule, position) => {
    at.push(text.length);
    text += JSON.stringify(rule);
    const { match } = rule;
    if (match.command_exact !== undefined) {
      const key = exactLine(match.command_exact);
      exact.set(key, [...(exact.get(key) ?? []), position]);
      return;
    }
    if (match.program === undefined) {
      if (match.redirect !== undefined) redirects.push(position);
      return;
    }
    const programs = Array.isArray(match.program) ? match.program : [match.program];
    for (const name of new Set(programs)) {
      if (/[\n\t]/.test(name))
        throw new Error(`rule ${rule.id}: a program name holds a newline or a tab, which the packed index cannot hold`);
      names.set(name, [...(names.get(name) ?? []), position]);
    }
    const own = programs.filter(isPattern);
    if (own.length > 0) patterns.push([position, own]);
  });
  at.push(text.length);
  // Each name also lists the rules whose patterns match it (python3.12 and python3.*; every name and *):
  // the matchers of the default's patterns (six regular expressions) then cost nothing at the start of
  // a hook whose programs are named here (about 0.5 M instructions for `git status`).
  const matchers = patterns.map(([position, own]): [number, Matcher | null] => {
    try {
      return [position, compileAny(own)];
    } catch {
      return [position, null]; // a pattern that does not compile matches nothing, as positionsFor has it
    }
  });
  for (const [name, positions] of names) {
    const found = new Set(positions);
    for (const [position, matcher] of matchers) if (matcher?.(name)) found.add(position);
    names.set(
      name,
      [...found].sort((a, b) => a - b),
    );
  }
  return {
    text,
    at,
    ids: rules.map((rule) => rule.id).join("\n"),
    names: `\n${[...names].map(([name, positions]) => `${name}\t${positions.join(",")}`).join("\n")}\n`,
    complete: true,
    patterns,
    redirects,
    exact: [...exact],
    safe: [...new Set(safeRegexSources(rules.flatMap((rule) => patternsIn(rule.match))))],
    outright: rules.map((rule) => (rule.decision === "ask" ? "a" : rule.decision === "deny" ? "d" : "-")).join(""),
    tightening: rules.flatMap((rule, position) => (isTightening(rule) ? [position] : [])),
    needs: rules.map((rule) => needsOf(rule.match)).join("\n"),
  };
}

/**
 * What a command must show for a rule to match it, as mayMatch (match.ts) reads it: letters for what
 * the rule's fields require (e: a variable set, o: an option word, p: a pipe into it, v: a wrapper or
 * runner, s: a script on standard input), then, a tab before each, groups of words one of which must be
 * among the arguments: the first words of its subcommands, its args_any when they are all plain words;
 * or, after a ~, texts one of which an argument must contain: those its args_any patterns require.
 * Only what matchesCommand itself requires, so that a rule passed over could not have matched.
 */
function needsOf(match: Rule["match"]): string {
  let letters = "";
  if (match.env_any) letters += "e";
  if (match.option_values || (match.flags_any?.length ?? 0) > 0 || (match.flags_all?.length ?? 0) > 0) letters += "o";
  if (match.stdin_from) letters += "p";
  if (match.via_any) letters += "v";
  if (match.stdin_any) letters += "s";
  const groups = [letters];
  // A word that is not an option: an operand is one of the arguments as given, unless it starts with a dash (see parseArgs).
  const plain = (word: string) => word !== "" && word !== "..." && !isPattern(word) && !/\s/.test(word) && !word.startsWith("-");
  const firsts = (match.subcommand === undefined ? [] : [match.subcommand].flat()).map((s) => s.trim().split(/\s+/)[0] as string);
  if (firsts.length > 0 && firsts.every(plain)) groups.push([...new Set(firsts)].join(" "));
  const args = match.args_any ?? [];
  if (args.length > 0 && args.every((word) => word !== "" && !isPattern(word) && !/\s/.test(word)))
    groups.push([...new Set(args)].join(" "));
  else if (args.length > 0) {
    // Patterns among them: an argument must contain the text each requires (~ marks such a group).
    const texts = args.map(requiredText);
    if (texts.every((text) => text !== "" && !/\s/.test(text))) groups.push(`~${[...new Set(texts)].join(" ")}`);
  }
  return groups.join("\t");
}

/**
 * Every string of a rule's match that compileRule may compile as a pattern: each string as written, and
 * the pieces compileRule splits some into (a subcommand's words, an env_any entry's name and value), so
 * that none of the default's is checked for safety again at the start of every hook.
 */
function patternsIn(match: Rule["match"]): string[] {
  const out = stringsIn(match);
  for (const subcommand of match.subcommand === undefined ? [] : [match.subcommand].flat()) out.push(...subcommand.trim().split(/\s+/));
  for (const entry of match.env_any ?? []) {
    const eq = entry.indexOf("=");
    if (eq !== -1) out.push(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return out;
}

/** Every string in a value, at any depth. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}

/** One rule of a pack, parsed the first time it is read. */
class PackedEntry implements IndexedRule {
  // Declared, not defined: a command's lookup makes an entry for each of its candidates (git: 60), and
  // fields defined with no value cost each of them (about 0.04 M instructions for `git status`).
  declare compiled?: import("./compile.ts").CompiledRule;
  declare tightening?: true;
  declare outright?: "ask" | "deny" | null;
  declare private parsed?: Rule;
  constructor(
    private readonly pack: PackedRules,
    private readonly position: number,
    readonly index: number,
    readonly needs?: string,
  ) {
    if (pack.tightening?.includes(position)) this.tightening = true;
    // Only from a string of one character a rule; else (an entry written otherwise) the rule is read for it.
    const outright = pack.outright?.length === pack.at.length - 1 ? pack.outright[position] : undefined;
    if (outright === "a" || outright === "d" || outright === "-")
      this.outright = outright === "a" ? "ask" : outright === "d" ? "deny" : null;
  }
  get rule(): Rule {
    return (this.parsed ??= JSON.parse(this.pack.text.slice(this.pack.at[this.position], this.pack.at[this.position + 1])) as Rule);
  }
}

/** A pack's rules where the effective list holds them: from `offset`, skipping the ids in `replaced`. */
type Part = {
  pack: PackedRules;
  offset: number;
  replaced?: ReadonlySet<string>;
  entries: (PackedEntry | undefined)[];
  ids?: string[];
  matchers?: (Matcher | null)[];
  needs?: string[];
};

function entryOf(part: Part, position: number): PackedEntry | undefined {
  if (part.replaced && part.replaced.size > 0) {
    part.ids ??= part.pack.ids.split("\n");
    if (part.replaced.has(part.ids[position] as string)) return undefined;
  }
  if (part.needs === undefined) {
    const lines = part.pack.needs?.split("\n");
    // Only from a line a rule; else (a pack written otherwise) every candidate is tried.
    part.needs = lines?.length === part.pack.at.length - 1 ? lines : [];
  }
  return (part.entries[position] ??= new PackedEntry(part.pack, position, part.offset + position, part.needs[position]));
}

const shared = new Map<string, Matcher | null>();

/** Positions of the rules naming `name` exactly (as written) or by one of their patterns, in order. */
function positionsFor(part: Part, name: string): number[] {
  const found = new Set<number>();
  if (!name.includes("\n") && !name.includes("\t")) {
    const { names } = part.pack;
    const start = names.indexOf(`\n${name}\t`);
    if (start !== -1) {
      const from = start + name.length + 2;
      const positions = names.slice(from, names.indexOf("\n", from)).split(",").map(Number);
      // Already in order, the pattern rules that match the name included.
      if (part.pack.complete) return positions;
      for (const position of positions) found.add(position);
    }
  }
  if (part.pack.patterns.length > 0) {
    part.matchers ??= [];
    part.pack.patterns.forEach(([position, patterns], at) => {
      let matcher = part.matchers![at];
      if (matcher === undefined) {
        // Rules often share a list (python3.* names eight of the default's): one matcher for each.
        const key = patterns.join("\n");
        matcher = shared.get(key);
        if (matcher === undefined) {
          try {
            matcher = compileAny(patterns);
          } catch {
            matcher = null; // reported by checkRule when the policy is loaded or checked
          }
          shared.set(key, matcher);
        }
        part.matchers![at] = matcher;
      }
      if (matcher?.(name)) found.add(position);
    });
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * The RuleIndex over packs taken in order (the strongest layer's first, the default's last), each
 * pack's rules minus those a stronger pack replaced (`replaced`, by id). `rules` unpacks the whole
 * list, for callers that want it; the engine only looks names up.
 */
export function packedRuleIndex(parts: { pack: PackedRules; replaced?: ReadonlySet<string> }[], rules: () => readonly Rule[]): RuleIndex {
  let offset = 0;
  const state: Part[] = parts.map(({ pack, replaced }) => {
    const part: Part = { pack, offset, replaced, entries: [] };
    offset += pack.at.length - 1;
    return part;
  });
  const collect = (positionsOf: (part: Part) => readonly number[]): IndexedRule[] => {
    const out: IndexedRule[] = [];
    for (const part of state) {
      for (const position of positionsOf(part)) {
        const entry = entryOf(part, position);
        if (entry) out.push(entry);
      }
    }
    return out;
  };
  const exact = new Map<string, IndexedRule[]>();
  for (const part of state) {
    for (const [line, positions] of part.pack.exact) {
      const entries = positions.map((position) => entryOf(part, position)).filter((entry): entry is PackedEntry => entry !== undefined);
      if (entries.length > 0) exact.set(line, [...(exact.get(line) ?? []), ...entries]);
    }
  }
  const candidates = new Map<string, IndexedRule[]>();
  const tightening = parts.reduce((sum, { pack }) => sum + (pack.tightening?.length ?? 0), 0);
  let all: readonly Rule[] | undefined;
  let allEntries: IndexedRule[] | undefined;
  return {
    get rules() {
      return (all ??= rules());
    },
    get entries() {
      return (allEntries ??= collect((part) => part.pack.at.slice(1).map((_, position) => position)));
    },
    patterns: [],
    redirects: collect((part) => part.pack.redirects),
    exact,
    candidates,
    tightening,
    lookup(name: string): IndexedRule[] {
      let found = candidates.get(name);
      if (!found) candidates.set(name, (found = collect((part) => positionsFor(part, name))));
      return found;
    },
  };
}

/** The rules of a pack as objects, in order. */
export function unpackRules(pack: PackedRules): Rule[] {
  const rules = JSON.parse(
    `[${pack.at
      .slice(0, -1)
      .map((start, position) => pack.text.slice(start, pack.at[position + 1]))
      .join(",")}]`,
  ) as Rule[];
  for (const position of pack.tightening ?? []) if (rules[position]) markTightening(rules[position]);
  return rules;
}
