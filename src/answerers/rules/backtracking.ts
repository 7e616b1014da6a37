/**
 * A static check for regular expressions whose matching time can explode
 * (catastrophic backtracking), run when a policy is loaded. JavaScript's
 * engine backtracks, so `(a+)+$` against a long run of `a`s followed by `!`
 * takes time exponential in the length, and a hook has a deadline: one such
 * pattern in a layer, met by one long command, would make every verdict the
 * deadline's fallback. The two shapes behind nearly every such case are refused:
 *   - a repeated group that itself holds a repetition: `(a+)+`, `(\w*\s?)*`, `(?:x{2,})+`;
 *   - a repeated group whose alternatives can begin with the same character: `(a|a)*`, `(\w|_)+`, `(.|\s)*`.
 * "Repeated" means without an upper bound (`*`, `+`, `{n,}`). The check is
 * conservative: a pattern it refuses may be harmless (`(ab+c)*`), and it can
 * always be written without the nesting. See docs/decisions.md.
 */
import { nestedRepetition } from "./regex-safety.ts";

type Group = {
  /** What the group's unbounded repetitions (at any depth) can match, as first characters. */
  repeated: string[];
  /** The first characters each alternative can begin with ("*" for any). */
  firsts: string[];
  /** Each alternative's literal beginning (the characters it must start with), and whether it is still growing. */
  prefixes: { text: string; open: boolean }[];
  /** Whether the current alternative has its first atom yet. */
  started: boolean;
  start: number;
};

const WIDE = "*";

/** The flag the classes of the pattern being checked are tested with (set per check). */
let ignoreCaseFlag = "";

/**
 * Why a rule pattern (`/.../` in rules and tool rules) could backtrack catastrophically, or undefined:
 * this module's two shapes, then regex-safety.ts's, which compilePattern also enforces (it counts a
 * bounded repetition such as `{0,4}` of a repeating group as a repetition too).
 */
export function catastrophicBacktracking(source: string, ignoreCase = false): string | undefined {
  return catastrophicShapes(source, ignoreCase) ?? nestedRepetition(source);
}

/**
 * This module's two shapes alone, for turn rules: their patterns are compiled by the turn-rule answerer,
 * not compilePattern, and the default's use bounded repetitions of separated words (`(\S+ ){0,4}`),
 * which are not exponential and which regex-safety.ts's stricter test would refuse.
 */
export function catastrophicShapes(source: string, ignoreCase = false): string | undefined {
  ignoreCaseFlag = ignoreCase ? "i" : "";
  const stack: Group[] = [{ repeated: [], firsts: [], prefixes: [{ text: "", open: true }], started: false, start: 0 }];
  const top = () => stack[stack.length - 1] as Group;
  /** Records the first atom of the current alternative. */
  let lastAtom: string | undefined;
  const atom = (first: string) => {
    lastAtom = first;
    const group = top();
    const prefix = group.prefixes[group.prefixes.length - 1];
    if (prefix?.open) {
      if (first.length === 1 && first !== WIDE) prefix.text += first;
      else prefix.open = false;
    }
    if (!group.started) {
      group.firsts.push(first);
      group.started = true;
    }
  };
  let closed: Group | undefined;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    const lastClosed = closed;
    const previousAtom = lastAtom;
    closed = undefined;
    lastAtom = undefined;
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      i++;
      // \d \w \s are classes of their own; \D \W \S, \p{...} and the rest stand for any character.
      if (next === "d" || next === "w" || next === "s") atom(`\\${next}`);
      else if (/[DWSpPbB]/.test(next)) {
        if (next === "p" || next === "P") i = Math.max(i, source.indexOf("}", i));
        atom(WIDE);
      } else atom(ignoreCase ? next.toLowerCase() : next);
      continue;
    }
    if (ch === "[") {
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      // The class itself: which characters it can be is known (overlaps), so `(\.[a-z]+)+` is seen separated.
      atom(source.slice(i, j + 1));
      i = j;
      continue;
    }
    if (ch === "(") {
      atom(WIDE);
      lastAtom = undefined;
      let j = i + 1;
      if (source[j] === "?") {
        // (?: (?= (?! (?<= (?<! (?<name>
        j++;
        if (source[j] === "<" && source[j + 1] !== "=" && source[j + 1] !== "!") j = source.indexOf(">", j);
        else if (source[j] === "<") j++;
        i = j;
      }
      stack.push({ repeated: [], firsts: [], prefixes: [{ text: "", open: true }], started: false, start: i });
      continue;
    }
    if (ch === ")") {
      if (stack.length > 1) {
        closed = stack.pop();
        if (closed) top().repeated.push(...closed.repeated);
      }
      continue;
    }
    if (ch === "|") {
      top().started = false;
      top().prefixes.push({ text: "", open: true });
      continue;
    }
    const quantifier = unboundedQuantifier(source, i);
    if (quantifier !== undefined) {
      // A quantified character is not a certain part of its alternative's beginning.
      const prefix = top().prefixes[top().prefixes.length - 1];
      if (prefix?.open && previousAtom !== undefined) {
        if (previousAtom.length === 1 && previousAtom !== WIDE) prefix.text = prefix.text.slice(0, -1);
        prefix.open = false;
      }
      if (quantifier.unbounded) {
        if (previousAtom !== undefined) top().repeated.push(previousAtom);
        if (lastClosed) {
          top().repeated.push(...lastClosed.firsts);
          // Each repetition of the group starts with one of its first characters: an inner repetition
          // that can match one of them makes the split between repetitions ambiguous.
          const nested = lastClosed.repeated.some((inner) => lastClosed.firsts.some((first) => overlaps(inner, first)));
          if (nested)
            return `a repeated group holds a repetition of its own (${JSON.stringify(snippet(source, lastClosed.start, i))}), which can take exponential time`;
          const overlap = overlapping(lastClosed.firsts, lastClosed.prefixes);
          if (overlap)
            return `a repeated group's alternatives can begin with the same character (${JSON.stringify(snippet(source, lastClosed.start, i))}), which can take exponential time`;
        }
      }
      // A quantifier after the first atom makes that atom optional or repeated: still its first character.
      i = quantifier.end;
      continue;
    }
    if (ch === "^" || ch === "$") continue;
    atom(ch === "." ? WIDE : ignoreCase ? ch.toLowerCase() : ch);
  }
  return undefined;
}

/** The quantifier at `i`, if any: whether it has no upper bound, and where it ends (a lazy or possessive mark included). */
function unboundedQuantifier(source: string, i: number): { unbounded: boolean; end: number } | undefined {
  const ch = source[i];
  let end = i;
  let unbounded: boolean;
  if (ch === "*" || ch === "+") unbounded = true;
  else if (ch === "?") unbounded = false;
  else if (ch === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
    if (!match) return undefined;
    end = i + match[0].length - 1;
    unbounded = match[2] !== undefined && (match[3] === "" || Number(match[3]) > 64);
  } else return undefined;
  if (source[end + 1] === "?" || source[end + 1] === "+") end++;
  return { unbounded, end };
}

/**
 * Whether two alternatives can begin the same way: when both begin with literal text and the two texts
 * differ somewhere, no string starts both, so each repetition has one way to go; otherwise their first
 * characters are compared.
 */
function overlapping(firsts: string[], prefixes: { text: string }[]): boolean {
  for (let a = 0; a < firsts.length; a++) {
    for (let b = a + 1; b < firsts.length; b++) {
      const pa = prefixes[a]?.text ?? "";
      const pb = prefixes[b]?.text ?? "";
      if (pa !== "" && pb !== "") {
        if (pa.startsWith(pb) || pb.startsWith(pa)) return true;
        continue;
      }
      if (overlaps(firsts[a] as string, firsts[b] as string)) return true;
    }
  }
  return false;
}

const CLASSES: Record<string, RegExp> = { "\\d": /\d/, "\\w": /\w/, "\\s": /\s/ };

/** Whether two first characters (a character, a class \d \w \s or [...], or any) can be the same character. */
function overlaps(a: string, b: string): boolean {
  if (a === WIDE || b === WIDE || a === b) return true;
  const bracketA = a.length > 1 && a.startsWith("[");
  const bracketB = b.length > 1 && b.startsWith("[");
  if (bracketA || bracketB) {
    const [cls, other] = bracketA ? [a, b] : [b, a];
    // A class against one character: test it; against another class, assume they share one.
    if (other.length !== 1) return true;
    try {
      return new RegExp(cls, ignoreCaseFlag).test(other);
    } catch {
      return true;
    }
  }
  const ca = CLASSES[a];
  const cb = CLASSES[b];
  if (ca && cb) return (a === "\\d" && b === "\\w") || (a === "\\w" && b === "\\d");
  if (ca) return ca.test(b);
  if (cb) return cb.test(a);
  return false;
}

function snippet(source: string, start: number, end: number): string {
  const open = source.lastIndexOf("(", start);
  return source.slice(open >= 0 ? open : start, end + 1);
}
