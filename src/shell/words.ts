// Word-level parsing: quotes, escapes and every kind of expansion. Command and
// process substitutions are parsed in place by the command parser, so code
// hidden in `"...$(rm x)..."`, `${x:-$(rm x)}` or `$(( $(rm x) + 1 ))` comes
// back as a parsed list the extraction can walk.

import type { List, Word, WordPart } from "./ast.ts";
import { parseList, parseNested, skipLinebreaks } from "./parser.ts";
import { nameLength } from "./chars.ts";
import { ParseError, Source, WORD_LIMIT } from "./source.ts";

function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}
/** Characters that end an unquoted word. */
const DELIM = charTable(" \t\n;&|<>()");
/** Characters that need more than "append to the literal run". */
const SPECIAL = charTable(" \t\n;&|<>()\\'\"$`?*+@!");

export function isDelim(ch: string): boolean {
  return ch === "" || (ch.length === 1 && DELIM[ch.charCodeAt(0)] === 1);
}

/** A `[...]` character class makes a word a glob; a lone `[` (the test command) does not. Linear on purpose. */
function hasBracketGlob(lit: string): boolean {
  const open = lit.indexOf("[");
  return open !== -1 && lit.indexOf("]", open + 1) !== -1;
}

const ASSIGN_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/;

/**
 * Word modes: ordinary words; words where an assignment may stand (before the command name),
 * where `name[...]` reads to the matching `]` as bash does (`a[i + 1]=x` is one word); or the
 * right side of `[[ x =~ re ]]`, where `(`, `)` and `|` belong to the regex.
 */
type WordMode = "normal" | "assign" | "regex";

/** Reads one word at the current position; returns null when a delimiter is there (no word). */
export function parseWord(s: Source, mode: WordMode = "normal"): Word | null {
  const start = s.pos;
  const text = s.text;
  // Fast path: a word of plain characters ended by a delimiter, the most common kind by far.
  if (mode === "normal") {
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if ((c < 128 && SPECIAL[c] === 1) || c === 91) break;
      i++;
    }
    if (i > start) {
      const c = text.charCodeAt(i);
      // Not before `(` (`a=(1 2)` is an array) nor `<(`/`>(` (a process substitution joined to the word).
      if (i >= text.length || (c < 128 && DELIM[c] === 1 && c !== 40 && !((c === 60 || c === 62) && text.charCodeAt(i + 1) === 40))) {
        s.pos = i;
        if (++s.budget.words > WORD_LIMIT) s.fail(`more than ${WORD_LIMIT} words in one line`, start);
        return { parts: [{ k: "lit", v: text.slice(start, i), glob: false }], start, end: i };
      }
    }
  }
  const parts: WordPart[] = [];
  let lit = "";
  let glob = false;
  let bracket = false;
  let parenDepth = 0;
  let subscript: WordPart[] | undefined;
  const flush = () => {
    if (lit !== "") {
      parts.push({ k: "lit", v: lit, glob: glob || (bracket && hasBracketGlob(lit)) });
      lit = "";
      glob = false;
      bracket = false;
    }
  };
  for (;;) {
    // Fast path: a run of plain characters.
    let i = s.pos;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c < 128 && SPECIAL[c] === 1) break;
      if (c === 91) {
        bracket = true;
        if (mode === "assign" && lit === "" && parts.length === 0 && i > s.pos && nameLength(text, s.pos) === i - s.pos) {
          const close = closingBracket(s, i);
          const inner = text.slice(i + 1, close - 1);
          if (inner.includes("$") || inner.includes("`")) subscript = parseExpansions(s, inner, i, "array subscript");
          i = close;
          continue;
        }
      }
      i++;
    }
    if (i > s.pos) {
      lit += text.slice(s.pos, i);
      s.pos = i;
    }
    if (s.pos >= text.length) break;
    const ch = text[s.pos] as string;
    if (mode === "regex") {
      if (ch === "(") {
        parenDepth++;
        lit += ch;
        s.pos++;
        continue;
      }
      if (ch === ")" && parenDepth > 0) {
        parenDepth--;
        lit += ch;
        s.pos++;
        continue;
      }
      if ((ch === "|" || ch === "<" || ch === ">" || ch === "&") && parenDepth > 0) {
        lit += ch;
        s.pos++;
        continue;
      }
      if ((ch === " " || ch === "\t") && parenDepth > 0) {
        lit += ch;
        s.pos++;
        continue;
      }
    }
    if ((ch === "<" || ch === ">") && text.charAt(s.pos + 1) === "(" && mode !== "regex") {
      // <(cmd) and >(cmd): process substitution, parsed in place.
      flush();
      const pstart = s.pos;
      s.pos += 2;
      const body = parseNested(s, ")", "<(");
      parts.push({ k: "proc", raw: text.slice(pstart, s.pos), dir: ch, body });
      continue;
    }
    if (isDelim(ch)) {
      if (ch === "(" && mode !== "regex" && parts.length === 0 && ASSIGN_PREFIX.test(lit)) {
        // NAME=(a b c): an array assignment; its elements are words.
        flush();
        parts.push(parseArray(s));
        continue;
      }
      break;
    }
    switch (ch) {
      case "\\": {
        const next = text.charAt(s.pos + 1);
        if (next === "\n") s.pos += 2;
        else if (next === "") {
          lit += "\\";
          s.pos++;
        } else {
          lit += next;
          s.pos += 2;
        }
        continue;
      }
      case "'": {
        flush();
        const end = text.indexOf("'", s.pos + 1);
        if (end === -1) s.fail("unterminated single quote");
        parts.push({ k: "sq", v: text.slice(s.pos + 1, end) });
        s.pos = end + 1;
        continue;
      }
      case '"': {
        flush();
        parts.push(parseDoubleQuoted(s));
        continue;
      }
      case "$": {
        const p = parseDollar(s, "unquoted");
        if (p === null) {
          lit += "$";
          continue;
        }
        flush();
        parts.push(p);
        continue;
      }
      case "`": {
        flush();
        parts.push(parseBackticks(s, false));
        continue;
      }
      default: {
        // ? * + @ !: glob characters, or the start of an extended glob like @(a|b).
        if (text.charAt(s.pos + 1) === "(") {
          lit += readExtglob(s);
          glob = true;
          continue;
        }
        if (ch === "?" || ch === "*") glob = true;
        lit += ch;
        s.pos++;
      }
    }
  }
  flush();
  if (subscript !== undefined) parts.push({ k: "subscript", inner: subscript });
  if (s.pos === start) return null;
  if (++s.budget.words > WORD_LIMIT) s.fail(`more than ${WORD_LIMIT} words in one line`, start);
  return { parts, start, end: s.pos };
}

/** The index after the `]` matching the `[` at `open` (an array subscript, which may hold blanks). */
function closingBracket(s: Source, open: number): number {
  const text = s.text;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 91) depth++;
    else if (c === 93 && --depth === 0) return i + 1;
  }
  return s.fail("unterminated '[' in array subscript", open);
}

/** An extended glob such as `!(*.log)`: kept as literal text, parentheses balanced. */
function readExtglob(s: Source): string {
  const start = s.pos;
  s.pos += 2;
  let depth = 1;
  const text = s.text;
  while (s.pos < text.length) {
    const c = text[s.pos];
    if (c === "\\") s.pos += 2;
    else if (c === "(") {
      depth++;
      s.pos++;
    } else if (c === ")") {
      s.pos++;
      if (--depth === 0) return text.slice(start, s.pos);
    } else if (c === "\n") break;
    else s.pos++;
  }
  return s.fail("unterminated extended glob", start);
}

function parseArray(s: Source): WordPart {
  const start = s.pos;
  s.pos++; // (
  s.enter();
  const words: Word[] = [];
  for (;;) {
    skipLinebreaks(s);
    if (s.pos >= s.text.length) s.fail("unterminated array assignment", start);
    if (s.peek() === ")") {
      s.pos++;
      break;
    }
    const w = parseWord(s);
    if (w === null) s.fail(`unexpected '${s.peek()}' in array assignment`);
    words.push(w);
  }
  s.leave();
  return { k: "array", raw: s.text.slice(start, s.pos), words };
}

function parseDoubleQuoted(s: Source): WordPart {
  const start = s.pos;
  s.pos++; // opening quote
  const parts: WordPart[] = [];
  const text = s.text;
  let lit = "";
  const flush = () => {
    if (lit !== "") {
      parts.push({ k: "lit", v: lit, glob: false });
      lit = "";
    }
  };
  for (;;) {
    let i = s.pos;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34 || c === 92 || c === 36 || c === 96) break; // " \ $ `
      i++;
    }
    if (i > s.pos) {
      lit += text.slice(s.pos, i);
      s.pos = i;
    }
    if (s.pos >= text.length) s.fail("unterminated double quote", start);
    const ch = text[s.pos];
    if (ch === '"') {
      s.pos++;
      break;
    }
    if (ch === "\\") {
      const next = text.charAt(s.pos + 1);
      if (next === "\n") s.pos += 2;
      else if (next === "$" || next === "`" || next === '"' || next === "\\") {
        lit += next;
        s.pos += 2;
      } else {
        lit += "\\";
        s.pos++;
      }
      continue;
    }
    if (ch === "$") {
      const p = parseDollar(s, "dq");
      if (p === null) lit += "$";
      else {
        flush();
        parts.push(p);
      }
      continue;
    }
    flush();
    parts.push(parseBackticks(s, true));
  }
  flush();
  return { k: "dq", parts };
}

type DollarCtx = "unquoted" | "dq" | "heredoc";

/** Parses what starts with `$` at the current position; null when the `$` is a literal dollar sign. */
function parseDollar(s: Source, ctx: DollarCtx): WordPart | null {
  const text = s.text;
  const start = s.pos;
  const next = text.charAt(start + 1);
  if (next === "'" && ctx === "unquoted") {
    return parseAnsiC(s);
  }
  if (next === '"' && ctx === "unquoted") {
    s.pos++;
    return parseDoubleQuoted(s);
  }
  if (next === "(") {
    if (text.charAt(start + 2) === "(") {
      const arith = tryArith(s, start, 3);
      if (arith !== null) return { k: "arith", raw: text.slice(start, s.pos), inner: arith };
    }
    s.pos = start + 2;
    const body = parseNested(s, ")", "$(");
    return { k: "cmd", raw: text.slice(start, s.pos), body };
  }
  if (next === "{") {
    s.pos += 2;
    s.enter();
    const inner = parseBraceParam(s, ctx, start);
    s.leave();
    const raw = text.slice(start, s.pos);
    const m = /^\$\{[!#]?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(raw);
    return { k: "param", raw, name: m?.[1] ?? "", inner };
  }
  let len = nameLength(text, start + 1);
  if (len === 0 && next !== "" && "0123456789@*#?$!-".includes(next)) len = 1;
  if (len === 0) {
    s.pos++;
    return null;
  }
  s.pos = start + 1 + len;
  return { k: "param", raw: text.slice(start, s.pos), name: text.slice(start + 1, s.pos), inner: [] };
}

/**
 * Tries `$((`/`((` as arithmetic, reading to the matching `))`. Returns null (and
 * restores the position) when the text is really a subshell such as `$( (a) )`.
 * Failed attempts are charged to the budget so no input can make this quadratic.
 */
export function tryArith(s: Source, start: number, skip: number): WordPart[] | null {
  const pending = s.pending.slice();
  s.pos = start + skip;
  s.enter();
  const parts: WordPart[] = [];
  const text = s.text;
  let lit = "";
  let depth = 0;
  const flush = () => {
    if (lit !== "") {
      parts.push({ k: "lit", v: lit, glob: false });
      lit = "";
    }
  };
  for (;;) {
    if (s.pos >= text.length) s.fail("unterminated arithmetic expression", start);
    const ch = text[s.pos] as string;
    if (ch === "(") depth++;
    else if (ch === ")") {
      if (depth > 0) depth--;
      else if (text.charAt(s.pos + 1) === ")") {
        s.pos += 2;
        break;
      } else {
        s.budget.backtrack += s.pos - start;
        if (s.budget.backtrack > s.budget.backtrackMax) s.fail("input too complex to parse", start);
        s.pos = start;
        s.pending = pending;
        s.leave();
        return null;
      }
    } else if (ch === "$") {
      const p = parseDollar(s, "dq");
      if (p === null) lit += "$";
      else {
        flush();
        parts.push(p);
      }
      continue;
    } else if (ch === "`") {
      flush();
      parts.push(parseBackticks(s, false));
      continue;
    } else if (ch === '"') {
      flush();
      parts.push(parseDoubleQuoted(s));
      continue;
    } else if (ch === "\\") {
      lit += text.charAt(s.pos + 1);
      s.pos += 2;
      continue;
    }
    lit += ch;
    s.pos++;
  }
  flush();
  s.leave();
  return parts;
}

/** The inside of `${...}` up to its closing brace; nested quotes and expansions are parsed. */
function parseBraceParam(s: Source, ctx: DollarCtx, start: number): WordPart[] {
  const parts: WordPart[] = [];
  const text = s.text;
  let lit = "";
  const flush = () => {
    if (lit !== "") {
      parts.push({ k: "lit", v: lit, glob: false });
      lit = "";
    }
  };
  for (;;) {
    if (s.pos >= text.length) s.fail("unterminated ${", start);
    const ch = text[s.pos] as string;
    if (ch === "}") {
      s.pos++;
      break;
    }
    if (ch === "\\") {
      lit += text.charAt(s.pos + 1);
      s.pos += 2;
      continue;
    }
    if (ch === "'" && ctx === "unquoted") {
      flush();
      const end = text.indexOf("'", s.pos + 1);
      if (end === -1) s.fail("unterminated single quote");
      parts.push({ k: "sq", v: text.slice(s.pos + 1, end) });
      s.pos = end + 1;
      continue;
    }
    if (ch === '"') {
      flush();
      parts.push(parseDoubleQuoted(s));
      continue;
    }
    if (ch === "$") {
      const p = parseDollar(s, ctx);
      if (p === null) lit += "$";
      else {
        flush();
        parts.push(p);
      }
      continue;
    }
    if (ch === "`") {
      flush();
      parts.push(parseBackticks(s, ctx !== "unquoted"));
      continue;
    }
    lit += ch;
    s.pos++;
  }
  flush();
  return parts;
}

const SIMPLE_ESC: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

function parseAnsiC(s: Source): WordPart {
  const text = s.text;
  const start = s.pos;
  s.pos += 2;
  let out = "";
  for (;;) {
    if (s.pos >= text.length) s.fail("unterminated $'", start);
    const ch = text[s.pos] as string;
    if (ch === "'") {
      s.pos++;
      break;
    }
    if (ch !== "\\") {
      let j = s.pos + 1;
      while (j < text.length && text[j] !== "'" && text[j] !== "\\") j++;
      out += text.slice(s.pos, j);
      s.pos = j;
      continue;
    }
    const e = text.charAt(s.pos + 1);
    s.pos += 2;
    const simple = SIMPLE_ESC[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    let m: RegExpExecArray | null;
    const rest = text.slice(s.pos - 1, s.pos + 9);
    if ((m = /^[0-7]{1,3}/.exec(rest)) !== null) {
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      s.pos += m[0].length - 1;
    } else if (e === "x" && (m = /^[0-9a-fA-F]{1,2}/.exec(rest.slice(1))) !== null) {
      out += String.fromCharCode(parseInt(m[0], 16));
      s.pos += m[0].length;
    } else if ((e === "u" || e === "U") && (m = /^[0-9a-fA-F]{1,8}/.exec(rest.slice(1))) !== null) {
      const digits = m[0].slice(0, e === "u" ? 4 : 8);
      const cp = parseInt(digits, 16);
      out += cp <= 0x10ffff ? String.fromCodePoint(cp) : "\ufffd";
      s.pos += digits.length;
    } else if (e === "c" && s.pos < text.length) {
      out += String.fromCharCode(text.charCodeAt(s.pos) & 0x1f);
      s.pos++;
    } else {
      out += "\\" + e;
    }
  }
  return { k: "ansi", v: out };
}

/**
 * `...`: the body is found first (backslash-escaped backticks nest), unescaped
 * the way bash does, then parsed as a script of its own.
 */
function parseBackticks(s: Source, inDq: boolean): WordPart {
  const text = s.text;
  const start = s.pos;
  let i = start + 1;
  let inner = "";
  for (;;) {
    if (i >= text.length) s.fail("unterminated backquote", start);
    const ch = text[i];
    if (ch === "`") break;
    if (ch === "\\" && i + 1 < text.length) {
      const n = text[i + 1] as string;
      if (n === "$" || n === "`" || n === "\\" || (inDq && n === '"')) inner += n;
      else inner += "\\" + n;
      i += 2;
      continue;
    }
    let j = i + 1;
    while (j < text.length && text[j] !== "`" && text[j] !== "\\") j++;
    inner += text.slice(i, j);
    i = j;
  }
  s.pos = i + 1;
  const body = parseSubScript(s, inner, start, "`...`");
  return { k: "cmd", raw: text.slice(start, s.pos), body };
}

/** Parses a piece of text (a backquote body) as a script, mapping its errors to `at` in the outer text. */
function parseSubScript(s: Source, inner: string, at: number, what: string): List {
  s.enter();
  try {
    return parseList(subSource(s, inner), "eof");
  } catch (e) {
    if (e instanceof ParseError) throw new ParseError(`in ${what}: ${e.message}`, at);
    throw e;
  } finally {
    s.leave();
  }
}

function subSource(s: Source, text: string): Source {
  return new Source(text, s.depth, s.budget);
}

/** The expansions in an unquoted here-document body: `$x`, `${..}`, `$(..)`, backquotes; quotes are plain text there. */
export function parseHeredocBody(s: Source, body: string, at: number): WordPart[] {
  return parseExpansions(s, body, at, "here-document");
}

/** Text where only `$...`, backquotes and backslashes are special (here-document bodies, array subscripts). */
function parseExpansions(s: Source, body: string, at: number, what: string): WordPart[] {
  const hs = subSource(s, body);
  const parts: WordPart[] = [];
  let lit = "";
  const flush = () => {
    if (lit !== "") {
      parts.push({ k: "lit", v: lit, glob: false });
      lit = "";
    }
  };
  try {
    while (hs.pos < body.length) {
      const ch = body[hs.pos] as string;
      if (ch === "\\") {
        const n = body.charAt(hs.pos + 1);
        if (n === "\n") hs.pos += 2;
        else if (n === "$" || n === "`" || n === "\\") {
          lit += n;
          hs.pos += 2;
        } else {
          lit += "\\";
          hs.pos++;
        }
      } else if (ch === "$") {
        const p = parseDollar(hs, "heredoc");
        if (p === null) lit += "$";
        else {
          flush();
          parts.push(p);
        }
      } else if (ch === "`") {
        flush();
        parts.push(parseBackticks(hs, false));
      } else {
        const next = nextSpecial(body, hs.pos + 1);
        lit += body.slice(hs.pos, next);
        hs.pos = next;
      }
    }
  } catch (e) {
    if (e instanceof ParseError) throw new ParseError(`in ${what}: ${e.message}`, at);
    throw e;
  }
  flush();
  return parts;
}

function nextSpecial(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 92 || c === 36 || c === 96) break;
    i++;
  }
  return i;
}
