/**
 * The patterns rules are written with: a glob (`*` anything, `?` one
 * character, `[abc]` a class; everything else literal), or a regular
 * expression written `/.../` or `/.../i` (case-insensitive). Compiled once per policy.
 */

import { nestedRepetition } from "./regex-safety.ts";

export type Matcher = (text: string) => boolean;

const REGEX_FORM = /^\/(.+)\/(i?)$/s;

/** True for patterns written as regular expressions. */
function isRegexPattern(pattern: string): boolean {
  return (
    pattern.length > 2 &&
    pattern.charCodeAt(0) === 47 /* / */ &&
    (pattern.endsWith("/") || pattern.endsWith("/i")) &&
    REGEX_FORM.test(pattern)
  );
}

/** True for globs and regular expressions; false for a plain word. */
export function isPattern(pattern: string): boolean {
  return pattern.includes("*") || pattern.includes("?") || pattern.includes("[") || isRegexPattern(pattern);
}

/**
 * Regular expressions of the embedded default, proven safe when verdict was built (packed.ts,
 * embed.ts): not checked again at every start, where the check costs more than the rest of a rule.
 */
const proven = new Set<string>();

export function provenSafe(sources: Iterable<string>): void {
  for (const source of sources) proven.add(source);
}

/** The source of every regular expression among `patterns` that passes the safety check. */
export function safeRegexSources(patterns: Iterable<string>): string[] {
  const out: string[] = [];
  for (const pattern of patterns) {
    const regex = REGEX_FORM.exec(pattern);
    if (regex && !nestedRepetition(regex[1] as string)) out.push(regex[1] as string);
  }
  return out;
}

/** Throws on an invalid regular expression; the message says which. */
export function compilePattern(pattern: string): Matcher {
  const regex = REGEX_FORM.exec(pattern);
  if (regex) {
    const risky = proven.has(regex[1] as string) ? undefined : nestedRepetition(regex[1] as string);
    if (risky) throw new Error(`${risky}; rewrite it without nested repetition`);
    const re = new RegExp(regex[1] as string, regex[2]);
    return (text) => re.test(text);
  }
  if (!isPattern(pattern)) return (text) => text === pattern;
  // The common globs without a regular expression: prefix*, *suffix, *.
  const star = pattern.indexOf("*");
  if (!/[?[]/.test(pattern) && star === pattern.lastIndexOf("*")) {
    const before = pattern.slice(0, star);
    const after = pattern.slice(star + 1);
    return (text) => text.length >= before.length + after.length && text.startsWith(before) && text.endsWith(after);
  }
  const re = new RegExp(`^${globSource(pattern)}$`, "s");
  return (text) => re.test(text);
}

function globSource(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*") out += ".*";
    else if (ch === "?") out += ".";
    else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        let body = glob.slice(i + 1, close);
        const negate = body.startsWith("!") || body.startsWith("^");
        if (negate) body = body.slice(1);
        out += `[${negate ? "^" : ""}${body.replace(/[\\\]]/g, "\\$&")}]`;
        i = close;
      }
    } else out += ch.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return out;
}

/**
 * A text that every string the pattern matches contains, or "" when none is known: the longest
 * literal run of a glob or a plain word; for a regular expression, the longest run of plain
 * characters at its top level when it has no top-level alternation and no flag (cautious: an
 * escape of a letter or a digit gives up). For passing over rules cheaply (packed.ts, needsOf).
 */
export function requiredText(pattern: string): string {
  if (!isPattern(pattern)) return pattern;
  const regex = REGEX_FORM.exec(pattern);
  return regex ? (regex[2] === "" ? regexText(regex[1] as string) : "") : globText(pattern);
}

function globText(glob: string): string {
  let best = "";
  let run = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*" || ch === "?" || ch === "[") {
      if (run.length > best.length) best = run;
      run = "";
      const close = ch === "[" ? glob.indexOf("]", i + 2) : -1;
      if (close !== -1) i = close;
    } else run += ch;
  }
  return run.length > best.length ? run : best;
}

function regexText(source: string): string {
  let best = "";
  let run = "";
  let depth = 0;
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === "\\") {
      const next = source[i + 1];
      // \d, \b, \x41, \1...: not one literal character.
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return "";
      i++;
      if (depth === 0) run += next;
      continue;
    }
    if (ch === "[") {
      // A class: to its closing bracket, escapes skipped.
      end();
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      continue;
    }
    if (ch === "(") {
      depth++;
      end();
      continue;
    }
    if (ch === ")") {
      depth--;
      continue;
    }
    if (depth > 0) continue;
    if (ch === "|") return "";
    if (ch === "?" || ch === "*" || ch === "+" || ch === "{") {
      // The character before a quantifier may be absent (or repeated): it is not part of the run.
      run = run.slice(0, -1);
      end();
      if (ch === "{") {
        // {4,}: its bounds are no text of the match.
        const close = source.indexOf("}", i);
        if (close === -1) return "";
        i = close;
      }
      continue;
    }
    if (ch === "." || ch === "^" || ch === "$" || ch === "}" || ch === "]") {
      end();
      continue;
    }
    run += ch;
  }
  end();
  return best;
}

/** One matcher for several patterns: true when any matches. */
export function compileAny(patterns: readonly string[]): Matcher {
  const exact = new Set(patterns.filter((p) => !isPattern(p)));
  const others = patterns.filter((p) => !exact.has(p)).map(compilePattern);
  if (others.length === 0) return (text) => exact.has(text);
  return (text) => exact.has(text) || others.some((m) => m(text));
}
