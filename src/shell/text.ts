// What a word looks like to the rule engine: its text with quotes removed,
// expansions kept as written (`$HOME/x`, `$(date)`), whether it is dynamic,
// and the command/process substitutions it holds.

import type { List, Word, WordPart } from "./ast.ts";

/**
 * Values of `$1`..`$9` while walking a function body or a `sh -c` script called with arguments;
 * an argument that is itself an expansion is undefined (its value is unknown).
 */
export type Positional = readonly (string | undefined)[] | undefined;

/** The value of `$1`..`$9`, `$#`, `$@`/`$*` (joined) when the positional parameters are known. */
function positionalValue(p: WordPart & { k: "param" }, positional: Positional): string | undefined {
  if (positional === undefined || p.inner.length > 0) return undefined;
  const name = p.name;
  if (name.length !== 1 || !(p.raw.length === 2 || p.raw === `\${${name}}`)) return undefined;
  const c = name.charCodeAt(0);
  if (c >= 49 && c <= 57) return c - 49 < positional.length ? positional[c - 49] : "";
  if (name === "#") return String(positional.length);
  if (name === "@" || name === "*") return joinedArguments(positional);
  return undefined;
}

// The last joined "$*": a body that says it many times shares one string, not one copy each.
let lastPositional: Positional;
let lastJoined: string | undefined;

function joinedArguments(positional: readonly (string | undefined)[]): string | undefined {
  if (positional !== lastPositional) {
    lastPositional = positional;
    lastJoined = positional.includes(undefined) ? undefined : positional.join(" ");
  }
  return lastJoined;
}

export function partsText(parts: readonly WordPart[], positional?: Positional): string {
  let out = "";
  for (const p of parts) {
    switch (p.k) {
      case "lit":
      case "sq":
      case "ansi":
        out += p.v;
        break;
      case "dq":
        out += partsText(p.parts, positional);
        break;
      case "param":
        out += positionalValue(p, positional) ?? p.raw;
        break;
      case "subscript":
        break;
      default:
        out += p.raw;
    }
  }
  return out;
}

export function wordText(w: Word, positional?: Positional): string {
  const p = w.parts[0];
  if (w.parts.length === 1 && p?.k === "lit") return p.v;
  return partsText(w.parts, positional);
}

/** True when the word's value is only known at run time: it holds an expansion, or an unquoted glob. */
export function isDynamic(w: Word, positional?: Positional): boolean {
  const walk = (parts: readonly WordPart[], quoted: boolean): boolean => {
    for (const p of parts) {
      if (p.k === "lit" && p.glob && !quoted) return true;
      if (p.k === "dq" && walk(p.parts, true)) return true;
      if (p.k === "param" && positionalValue(p, positional) === undefined) return true;
      if (p.k === "cmd" || p.k === "arith" || p.k === "proc" || p.k === "array" || p.k === "subscript") return true;
    }
    return false;
  };
  return walk(w.parts, false);
}

export type Substitution = { label: "$( )" | "<( )" | ">( )"; body: List };

/** Every command and process substitution directly inside these parts (nested ones are found when their body is walked). */
export function collectSubstitutions(parts: readonly WordPart[], out: Substitution[]): Substitution[] {
  for (const p of parts) {
    switch (p.k) {
      case "cmd":
        out.push({ label: "$( )", body: p.body });
        break;
      case "proc":
        out.push({ label: p.dir === "<" ? "<( )" : ">( )", body: p.body });
        break;
      case "dq":
        collectSubstitutions(p.parts, out);
        break;
      case "param":
      case "arith":
      case "subscript":
        collectSubstitutions(p.inner, out);
        break;
      case "array":
        for (const w of p.words) collectSubstitutions(w.parts, out);
        break;
      default:
    }
  }
  return out;
}
