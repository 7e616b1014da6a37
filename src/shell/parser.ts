// A recursive-descent parser for the POSIX shell grammar plus the bash
// constructs assistants type ([[ ]], (( )), $'..', <( ), here-strings, arrays,
// `function`). It is strict where bash is strict: a stray `)`, `fi`, `}` or
// `done`, an empty command between operators, or anything left open is an
// error, so nothing bash would refuse is ever judged as if it ran.

import type { AndOr, Command, List, Pipeline, Redir, RedirOp, Word } from "./ast.ts";
import { assignmentPrefix } from "./chars.ts";
import { COMMAND_LIMIT, type Source } from "./source.ts";
import { isDelim, parseHeredocBody, parseWord, tryArith } from "./words.ts";

/** What ends a list: end of input, a `)`, or one of some reserved words. */
type Stop = "eof" | ")" | readonly string[];

const RESERVED = new Set([
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "do",
  "done",
  "case",
  "esac",
  "while",
  "until",
  "for",
  "select",
  "in",
  "function",
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "time",
  "coproc",
]);
/** Reserved words that close something; met where nothing is open, they are syntax errors. */
const CLOSERS = new Set(["then", "elif", "else", "fi", "do", "done", "esac", "}", "]]"]);

/** Skips blanks, line continuations and a comment; stops at a newline. */
function skipBlanks(s: Source): void {
  const text = s.text;
  for (;;) {
    const c = text.charCodeAt(s.pos);
    if (c === 32 || c === 9) s.pos++;
    else if (c === 92 && text.charCodeAt(s.pos + 1) === 10) s.pos += 2;
    else if (c === 35 /* # */) {
      const nl = text.indexOf("\n", s.pos);
      s.pos = nl === -1 ? text.length : nl;
    } else return;
  }
}

/** Skips blanks, comments and newlines; each newline reads the here-document bodies that are due. */
export function skipLinebreaks(s: Source): void {
  for (;;) {
    skipBlanks(s);
    if (s.text.charCodeAt(s.pos) !== 10) return;
    newline(s);
  }
}

function newline(s: Source): void {
  s.pos++;
  if (s.pending.length > 0) readHeredocs(s);
}

function readHeredocs(s: Source): void {
  const pending = s.pending;
  s.pending = [];
  const text = s.text;
  for (const h of pending) {
    const bodyStart = s.pos;
    let body = "";
    for (;;) {
      if (s.pos >= text.length) s.fail(`here-document delimited by '${h.delim}' is not terminated`, bodyStart);
      const nl = text.indexOf("\n", s.pos);
      const lineEnd = nl === -1 ? text.length : nl;
      let line = text.slice(s.pos, lineEnd);
      const tabs = h.strip ? line.length - line.replace(/^\t+/, "").length : 0;
      if (tabs > 0) line = line.slice(tabs);
      // Inside $( ), bash also ends the body at `EOF)`, leaving the `)` to close the substitution.
      if (s.substDepth > 0 && line.startsWith(h.delim) && line.charAt(h.delim.length) === ")") {
        s.pos += tabs + h.delim.length;
        break;
      }
      s.pos = nl === -1 ? text.length : nl + 1;
      if (line === h.delim) break;
      body += line + "\n";
    }
    h.fill(body);
  }
}

/** The reserved word at the current position, if the word there is one (only meaningful where a command starts). */
function reservedAt(s: Source): string | null {
  const text = s.text;
  let end = s.pos;
  while (end < text.length && end - s.pos < 9) {
    const c = text.charCodeAt(end);
    // a-z { } ! [ ]: the only characters reserved words are made of.
    if (!((c >= 97 && c <= 122) || c === 123 || c === 125 || c === 33 || c === 91 || c === 93)) break;
    end++;
  }
  if (end === s.pos) return null;
  const word = text.slice(s.pos, end);
  if (!RESERVED.has(word)) return null;
  const after = text.charAt(end);
  if (word === "{" || word === "!" || word === "[[") {
    // `{` and `!` are reserved only as separate words: `{a,b}` and `!x` are ordinary words.
    if (!(after === "" || after === " " || after === "\t" || after === "\n")) return null;
  } else if (!isDelim(after)) return null;
  return word;
}

function expectReserved(s: Source, word: string, what: string): void {
  skipLinebreaks(s);
  if (reservedAt(s) !== word) {
    const found = s.pos >= s.text.length ? "end of input" : `'${s.text.slice(s.pos, s.pos + 12).split(/\s/)[0]}'`;
    s.fail(`expected '${word}' ${what}, found ${found}`);
  }
  s.pos += word.length;
}

/**
 * A list of and-or items separated by `;`, `&` or newlines, up to `stop`.
 * Compound bodies must hold at least one command, like in bash.
 */
export function parseList(s: Source, stop: Stop, caseItem = false): List {
  const items: AndOr[] = [];
  for (;;) {
    skipLinebreaks(s);
    if (s.pos >= s.text.length) break;
    const ch = s.peek();
    if (ch === ")") {
      if (stop === ")" || caseItem) break;
      s.fail("unexpected ')'");
    }
    if (caseItem && ch === ";" && s.peek(1) === ";") break;
    if (caseItem && ch === ";" && s.peek(1) === "&") break;
    const rw = reservedAt(s);
    if (rw !== null && CLOSERS.has(rw)) {
      if (Array.isArray(stop) && stop.includes(rw)) break;
      s.fail(`unexpected '${rw}'`);
    }
    items.push(parseAndOr(s));
    skipBlanks(s);
    const sep = s.peek();
    if (sep === ";") {
      if (s.peek(1) === ";" || s.peek(1) === "&") {
        if (caseItem) break;
        s.fail(`unexpected '${s.text.slice(s.pos, s.pos + 2)}'`);
      }
      s.pos++;
    } else if (sep === "&") {
      s.pos++;
    } else if (sep === "\n") {
      newline(s);
    } else break;
  }
  skipLinebreaks(s);
  if (s.pos < s.text.length) {
    if (stop === "eof") {
      s.fail(`unexpected '${s.text.slice(s.pos, s.pos + 10).split(/\s/)[0]}'`);
    }
  } else if (stop !== "eof") {
    s.fail(`unexpected end of input, expected ${stop === ")" ? "')'" : `'${stop.join("' or '")}'`}`);
  }
  if (stop === "eof" && s.pending.length > 0) {
    const h = s.pending[0];
    s.fail(`here-document delimited by '${h?.delim}' is not terminated`);
  }
  return { items };
}

/** `$(` bodies and subshells: a list that must end with `)`. */
export function parseNested(s: Source, close: ")", label: string): List {
  const start = s.pos;
  s.enter();
  const subst = label !== "(";
  if (subst) s.substDepth++;
  const body = parseList(s, close);
  if (s.peek() !== ")") s.fail("expected ')'", start);
  s.pos++;
  if (subst) s.substDepth--;
  s.leave();
  return body;
}

function parseAndOr(s: Source): AndOr {
  const pipes: Pipeline[] = [parsePipeline(s)];
  for (;;) {
    skipBlanks(s);
    if ((s.peek() === "&" && s.peek(1) === "&") || (s.peek() === "|" && s.peek(1) === "|")) {
      s.pos += 2;
      skipLinebreaks(s);
      pipes.push(parsePipeline(s));
    } else break;
  }
  return { pipes };
}

function parsePipeline(s: Source): Pipeline {
  skipBlanks(s);
  let timed = false;
  for (;;) {
    const rw = reservedAt(s);
    if (rw === "time") {
      timed = true;
      s.pos += 4;
      skipBlanks(s);
      if (s.startsWith("-p") && isDelim(s.peek(2))) s.pos += 2;
      skipBlanks(s);
    } else if (rw === "!") {
      s.pos += 1;
      skipBlanks(s);
    } else break;
  }
  // `time` alone is valid bash and runs nothing.
  const next = s.peek();
  if (timed && (next === "" || next === "\n" || next === ";" || (next === "&" && s.peek(1) !== ">"))) return { cmds: [], timed };
  const cmds: Command[] = [parseCommand(s)];
  for (;;) {
    skipBlanks(s);
    if (s.peek() === "|" && s.peek(1) !== "|") {
      s.pos += s.peek(1) === "&" ? 2 : 1;
      skipLinebreaks(s);
      cmds.push(parseCommand(s));
    } else break;
  }
  return { cmds, timed };
}

function parseCommand(s: Source): Command {
  skipBlanks(s);
  s.enter();
  const start = s.pos;
  let cmd: Command;
  const rw = reservedAt(s);
  if (s.peek() === "(") {
    cmd = s.peek(1) === "(" ? parseDoubleParen(s) : parseSubshell(s);
  } else if (rw !== null && rw !== "in" && rw !== "time" && rw !== "!" && rw !== "coproc") {
    if (CLOSERS.has(rw)) s.fail(`unexpected '${rw}'`);
    s.pos += rw.length;
    cmd = parseCompound(s, rw, start);
  } else {
    cmd = parseSimple(s);
  }
  if (cmd.k !== "simple" && cmd.k !== "func") parseTrailingRedirects(s, cmd.redirs);
  s.leave();
  return cmd;
}

function parseSubshell(s: Source): Command {
  s.pos++;
  const body = parseNested(s, ")", "(");
  if (body.items.length === 0) s.fail("empty subshell");
  return { k: "subshell", body, redirs: [] };
}

/** `((` starts an arithmetic command unless it turns out to be two nested subshells. */
function parseDoubleParen(s: Source): Command {
  const start = s.pos;
  const arith = tryArith(s, start, 2);
  if (arith !== null) return { k: "eval", words: [], arith, redirs: [] };
  return parseSubshell(s);
}

function parseCompound(s: Source, rw: string, start: number): Command {
  switch (rw) {
    case "{": {
      const body = parseList(s, ["}"]);
      if (body.items.length === 0) s.fail("empty { } group", start);
      expectReserved(s, "}", "to close '{'");
      return { k: "group", body, redirs: [] };
    }
    case "if": {
      const parts: List[] = [];
      parts.push(nonEmpty(s, parseList(s, ["then"]), "if"));
      expectReserved(s, "then", "after 'if' condition");
      parts.push(parseList(s, ["elif", "else", "fi"]));
      for (;;) {
        skipLinebreaks(s);
        const w = reservedAt(s);
        if (w === "elif") {
          s.pos += 4;
          parts.push(nonEmpty(s, parseList(s, ["then"]), "elif"));
          expectReserved(s, "then", "after 'elif' condition");
          parts.push(parseList(s, ["elif", "else", "fi"]));
        } else if (w === "else") {
          s.pos += 4;
          parts.push(parseList(s, ["fi"]));
        } else break;
      }
      expectReserved(s, "fi", "to close 'if'");
      return { k: "if", parts, redirs: [] };
    }
    case "while":
    case "until": {
      const cond = nonEmpty(s, parseList(s, ["do"]), rw);
      expectReserved(s, "do", `after '${rw}' condition`);
      const body = parseList(s, ["done"]);
      expectReserved(s, "done", `to close '${rw}'`);
      return { k: "loop", cond, body, redirs: [] };
    }
    case "for":
    case "select":
      return parseFor(s, rw);
    case "case":
      return parseCase(s);
    case "function": {
      skipBlanks(s);
      const name = parseWord(s);
      if (name === null) s.fail("expected a function name");
      skipBlanks(s);
      if (s.peek() === "(") {
        s.pos++;
        skipBlanks(s);
        if (s.peek() !== ")") s.fail("expected ')' in function definition");
        s.pos++;
      }
      return parseFunctionBody(s, s.text.slice(name.start, name.end));
    }
    case "[[":
      return parseCond(s, start);
    default:
      return s.fail(`unexpected '${rw}'`, start);
  }
}

function nonEmpty(s: Source, l: List, what: string): List {
  if (l.items.length === 0) s.fail(`empty '${what}' condition`);
  return l;
}

function parseFor(s: Source, rw: string): Command {
  skipBlanks(s);
  let arith: Command & { k: "eval" } = { k: "eval", words: [], arith: [], redirs: [] };
  const items: Word[] = [];
  if (s.startsWith("((")) {
    const parts = tryArith(s, s.pos, 2);
    if (parts === null) s.fail("expected '))' in arithmetic for loop");
    arith = { ...arith, arith: parts };
    skipBlanks(s);
    if (s.peek() === ";") s.pos++;
  } else {
    const name = parseWord(s);
    if (name === null) s.fail(`expected a variable name after '${rw}'`);
    skipBlanks(s);
    if (s.peek() === ";") s.pos++;
    skipLinebreaks(s);
    if (reservedAt(s) === "in") {
      s.pos += 2;
      for (;;) {
        skipBlanks(s);
        const c = s.peek();
        if (c === ";" || c === "\n" || c === "") break;
        const w = parseWord(s);
        if (w === null) s.fail(`unexpected '${c}' in '${rw}' word list`);
        items.push(w);
      }
      if (s.peek() === ";") s.pos++;
    }
  }
  skipLinebreaks(s);
  let body: List;
  if (reservedAt(s) === "{") {
    s.pos++;
    body = parseList(s, ["}"]);
    expectReserved(s, "}", `to close '${rw}' body`);
  } else {
    expectReserved(s, "do", `in '${rw}' loop`);
    body = parseList(s, ["done"]);
    expectReserved(s, "done", `to close '${rw}'`);
  }
  return { k: "for", items, arith: arith.arith, body, redirs: [] };
}

function parseCase(s: Source): Command {
  skipBlanks(s);
  const word = parseWord(s);
  if (word === null) s.fail("expected a word after 'case'");
  expectReserved(s, "in", "after 'case' word");
  const items: { patterns: Word[]; body: List }[] = [];
  for (;;) {
    skipLinebreaks(s);
    if (reservedAt(s) === "esac") {
      s.pos += 4;
      break;
    }
    if (s.pos >= s.text.length) s.fail("expected 'esac' to close 'case'");
    if (s.peek() === "(") s.pos++;
    const patterns: Word[] = [];
    for (;;) {
      skipBlanks(s);
      const p = parseWord(s);
      if (p === null) s.fail("expected a case pattern");
      patterns.push(p);
      skipBlanks(s);
      if (s.peek() === "|") {
        s.pos++;
        continue;
      }
      if (s.peek() !== ")") s.fail("expected ')' after case pattern");
      s.pos++;
      break;
    }
    const body = parseList(s, ["esac"], true);
    items.push({ patterns, body });
    skipBlanks(s);
    if (s.startsWith(";;&")) s.pos += 3;
    else if (s.startsWith(";;") || s.startsWith(";&")) s.pos += 2;
    else {
      skipLinebreaks(s);
      if (reservedAt(s) !== "esac") s.fail("expected ';;' or 'esac' in 'case'");
    }
  }
  return { k: "case", word, items, redirs: [] };
}

/** `[[ ... ]]`: its words are collected (for the substitutions they may hold); operators are skipped. */
function parseCond(s: Source, start: number): Command {
  const words: Word[] = [];
  for (;;) {
    skipLinebreaks(s);
    if (s.pos >= s.text.length) s.fail("expected ']]' to close '[['", start);
    if (s.startsWith("]]") && isDelim(s.peek(2))) {
      s.pos += 2;
      break;
    }
    const two = s.text.slice(s.pos, s.pos + 2);
    if (two === "&&" || two === "||") {
      s.pos += 2;
      continue;
    }
    const c = s.peek();
    if (c === "(" || c === ")" || c === "<" || c === ">" || c === "!") {
      s.pos++;
      continue;
    }
    if (c === ";" || c === "&" || c === "|") s.fail(`unexpected '${c}' inside '[['`);
    const w = parseWord(s);
    if (w === null) s.fail("unexpected token inside '[['");
    words.push(w);
    if (s.text.slice(w.start, w.end) === "=~") {
      skipBlanks(s);
      const re = parseWord(s, "regex");
      if (re !== null) words.push(re);
    }
  }
  return { k: "eval", words, arith: [], redirs: [] };
}

function parseFunctionBody(s: Source, name: string): Command {
  skipLinebreaks(s);
  const start = s.pos;
  const rw = reservedAt(s);
  let body: Command;
  if (s.peek() === "(") body = parseCommand(s);
  else if (rw !== null && !CLOSERS.has(rw) && rw !== "in" && rw !== "time" && rw !== "!" && rw !== "function" && rw !== "coproc") {
    body = parseCommand(s);
  } else return s.fail(`function '${name}' needs a compound command as its body`, start);
  return { k: "func", name, body };
}

function parseTrailingRedirects(s: Source, redirs: Redir[]): void {
  for (;;) {
    skipBlanks(s);
    if (!parseRedirect(s, redirs)) return;
  }
}

const OPS: readonly [string, RedirOp, boolean][] = [
  // [text, op, isHeredocStrip]
  ["<<<", "<<<", false],
  ["<<-", "<<", true],
  ["<<", "<<", false],
  ["<>", "<>", false],
  ["<&", "<&", false],
  ["<", "<", false],
  ["&>>", "&>>", false],
  ["&>", "&>", false],
  [">>", ">>", false],
  [">&", ">&", false],
  [">|", ">|", false],
  [">", ">", false],
];

/** Parses one redirection at the current position if there is one; returns whether it did. */
function parseRedirect(s: Source, redirs: Redir[]): boolean {
  const text = s.text;
  const start = s.pos;
  let i = s.pos;
  while (i < text.length && i - start < 10) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i++;
  }
  const c = text.charAt(i);
  if (c !== "<" && c !== ">" && !(c === "&" && i === start)) return false;
  if ((c === "<" || c === ">") && text.charAt(i + 1) === "(") return false; // process substitution
  let matched: (typeof OPS)[number] | undefined;
  for (const o of OPS) {
    if (text.startsWith(o[0], i)) {
      matched = o;
      break;
    }
  }
  if (matched === undefined) return false; // a lone `&`
  if (matched[1].startsWith("&") && i !== start) return false;
  const fd = i > start ? Number(text.slice(start, i)) : undefined;
  s.pos = i + matched[0].length;
  skipBlanks(s);
  const target = parseWord(s);
  if (target === null) {
    const found = s.pos >= text.length ? "end of input" : `'${s.peek() === "\n" ? "newline" : s.peek()}'`;
    s.fail(`expected a target after '${matched[0]}', found ${found}`);
  }
  let op = matched[1];
  // `>& file` (no number) is bash's old spelling of `&> file`.
  if (op === ">&" && fd === undefined && !/^[0-9]+-?$|^-$/.test(text.slice(target.start, target.end))) op = "&>";
  const r: Redir = fd === undefined ? { op, target } : { op, fd, target };
  if (matched[0] === "<<" || matched[0] === "<<-") {
    const raw = text.slice(target.start, target.end);
    const quoted = /['"\\]/.test(raw);
    const delim = wordLiteral(target);
    s.pending.push({
      delim,
      strip: matched[2],
      quoted,
      fill: (body) => {
        r.heredoc = { body, quoted, parts: quoted ? [] : parseHeredocBody(s, body, start) };
      },
    });
  }
  redirs.push(r);
  return true;
}

/** Quote-removed text of a word whose parts are all literal (here-document delimiters). */
function wordLiteral(w: Word): string {
  let out = "";
  for (const p of w.parts) {
    if (p.k === "lit" || p.k === "sq" || p.k === "ansi") out += p.v;
    else if (p.k === "dq") out += wordLiteral({ parts: p.parts, start: 0, end: 0 });
    else if (p.k === "param" || p.k === "cmd" || p.k === "arith" || p.k === "proc" || p.k === "array") out += p.raw;
  }
  return out;
}

function parseSimple(s: Source): Command {
  const start = s.pos;
  const cmd: Command & { k: "simple" } = { k: "simple", assigns: [], words: [], redirs: [] };
  for (;;) {
    skipBlanks(s);
    if (s.pos >= s.text.length) break;
    if (parseRedirect(s, cmd.redirs)) continue;
    const c = s.peek();
    if (c === "(") {
      if (cmd.words.length === 1 && cmd.assigns.length === 0 && cmd.redirs.length === 0) {
        const w = cmd.words[0] as Word;
        const first = w.parts[0];
        if (w.parts.length === 1 && first?.k === "lit") {
          s.pos++;
          skipBlanks(s);
          if (s.peek() !== ")") s.fail("expected ')' in function definition");
          s.pos++;
          return parseFunctionBody(s, first.v);
        }
      }
      s.fail("unexpected '('");
    }
    if (isDelim(c) && !((c === "<" || c === ">") && s.peek(1) === "(")) break;
    const w = parseWord(s, cmd.words.length === 0 ? "assign" : "normal");
    if (w === null) break;
    const first = w.parts[0];
    if (cmd.words.length === 0 && first?.k === "lit") {
      const m = assignmentPrefix(first.v);
      if (m !== null) {
        const rest = first.v.slice(m.length);
        const parts = rest === "" ? w.parts.slice(1) : [{ ...first, v: rest }, ...w.parts.slice(1)];
        cmd.assigns.push({ name: m.name, value: { parts, start: w.start + m.length, end: w.end } });
        continue;
      }
    }
    cmd.words.push(w);
  }
  if (cmd.words.length === 0 && cmd.assigns.length === 0 && cmd.redirs.length === 0) {
    const c = s.peek();
    const found = c === "" ? "end of input" : c === "\n" ? "newline" : `'${c}'`;
    s.fail(`expected a command, found ${found}`, start);
  }
  if (++s.budget.commands > COMMAND_LIMIT) s.fail(`more than ${COMMAND_LIMIT} commands in one line`);
  return cmd;
}

/** Parses a whole script. Throws ParseError. */
export function parseScript(s: Source): List {
  return parseList(s, "eof");
}
