// Walks the syntax tree and lists every command that would execute, in the
// order the shell would start them: substitutions before the command that
// uses their output, wrappers unwrapped, code handed to a shell (`bash -c`,
// eval, ssh, a here-document or a literal piped into `sh`) parsed and walked
// as the code it is. Text that is only data (quoted strings, quoted
// here-documents written to files) stays an argument.

import type { Command, List, Redir, Word } from "./ast.ts";
import { parseScript } from "./parser.ts";
import { type Budget, COMMAND_LIMIT, ParseError, position, Source } from "./source.ts";
import { collectSubstitutions, isDynamic, type Positional, type Substitution, wordText } from "./text.ts";
import type { ExecutedCommand, Redirect } from "./types.ts";
import { type CwdChange, MAX_VARIANTS, SHELLS, unwrapStep, type XargsInput } from "./wrappers.ts";

/** Thrown by the walker for lines that parse but cannot be judged (empty command name, code nested too deep). */
export class WalkError extends Error {}

type Scope = { cwd: string | undefined };

type Ctx = {
  via: readonly string[];
  scope: Scope;
  /** Environment inherited from a wrapper around re-parsed code (`sudo FOO=1 bash -c ...`). */
  env: Readonly<Record<string, string>>;
  /** Redirections of an enclosing compound command or code wrapper; they apply to every command inside. */
  redirs: readonly Redirect[];
  positional: Positional;
  codeDepth: number;
  /** Known standard input of the code being walked (`ssh host bash -s <<EOF`), for a shell inside it that reads it. */
  stdin?: Stdin;
};

/** Standard input whose text is known: a here-document, or what a literal echo/printf/cat writes into a pipe. */
type Stdin = { text: string; label: "heredoc->sh" | "pipe->sh" };

type Action =
  | { k: "run" | "find-child"; argv: string[]; words: readonly Word[]; dynamic: boolean; via: string[]; env: Record<string, string>; cwd?: CwdChange; ownDir?: boolean }
  | { k: "code"; code: string; label: string; via: string[]; env: Record<string, string>; cwd?: CwdChange; positional?: string[] };

/** Code run by these labels runs in the current shell, so it sees the current positional parameters. */
const SAME_SHELL = new Set(["eval", "trap"]);

/** How many times one function's body is walked for its calls; enough to see different arguments, bounded against call trees that double at each level. */
const CALLS_PER_FUNCTION = 8;

export class Walker {
  readonly out: ExecutedCommand[] = [];
  readonly assignments: Record<string, string> = {};
  private readonly funcs = new Map<string, { body: Command; ctx: Ctx; walks: number }>();
  private readonly active = new Set<string>();

  constructor(
    /** The top-level line, for positions in error messages. */
    private readonly line: string,
    private readonly maxDepth: number,
    private readonly budget: Budget,
  ) {}

  walkTop(list: List, cwd: string | undefined): void {
    const ctx: Ctx = { via: [], scope: { cwd }, env: {}, redirs: [], positional: undefined, codeDepth: 0 };
    this.list(list, ctx);
    // A function defined but never called still counts: its body is code the line carries.
    for (const [name, f] of this.funcs) {
      if (f.walks === 0) this.callFunction(name, f.ctx, undefined);
    }
  }

  private list(list: List, ctx: Ctx): void {
    for (const ao of list.items) {
      for (const p of ao.pipes) {
        const c = p.timed ? { ...ctx, via: [...ctx.via, "time"] } : ctx;
        if (p.cmds.length === 1) {
          this.command(p.cmds[0] as Command, c, c.stdin);
          continue;
        }
        // Every element of a pipeline runs in a subshell: a `cd` there does not move what follows.
        let prev: Command | undefined;
        for (const cmd of p.cmds) {
          let stdin: Stdin | undefined = c.stdin;
          if (prev !== undefined) {
            const text = prev.k === "simple" ? this.literalOutput(prev, c) : undefined;
            stdin = text === undefined ? undefined : { text, label: "pipe->sh" };
          }
          this.command(cmd, { ...c, scope: { ...c.scope } }, stdin);
          prev = cmd;
        }
      }
    }
  }

  private command(cmd: Command, ctx: Ctx, stdin: Stdin | undefined): void {
    if (cmd.k === "simple") return this.simple(cmd, ctx, stdin);
    if (cmd.k === "func") {
      this.funcs.set(cmd.name, { body: cmd.body, ctx, walks: 0 });
      return;
    }
    const redirs = this.redirects(cmd.redirs, ctx);
    const input = readsFile(cmd.redirs) ? undefined : stdin;
    const inner: Ctx = redirs.length === 0 && input === ctx.stdin ? ctx : { ...ctx, redirs: [...ctx.redirs, ...redirs], stdin: input };
    switch (cmd.k) {
      case "subshell":
        return this.list(cmd.body, { ...inner, scope: { ...ctx.scope } });
      case "group":
        return this.list(cmd.body, inner);
      case "if":
        for (const l of cmd.parts) this.list(l, inner);
        return;
      case "loop":
        this.list(cmd.cond, inner);
        return this.list(cmd.body, inner);
      case "for":
        this.substitutions(collectSubstitutions(cmd.arith, []), ctx);
        for (const w of cmd.items) this.substitutions(collectSubstitutions(w.parts, []), ctx);
        return this.list(cmd.body, inner);
      case "case":
        this.substitutions(collectSubstitutions(cmd.word.parts, []), ctx);
        for (const item of cmd.items) {
          for (const w of item.patterns) this.substitutions(collectSubstitutions(w.parts, []), ctx);
          this.list(item.body, inner);
        }
        return;
      case "eval": {
        const subs = collectSubstitutions(cmd.arith, []);
        for (const w of cmd.words) collectSubstitutions(w.parts, subs);
        return this.substitutions(subs, ctx);
      }
    }
  }

  /** Converts redirections and walks the substitutions in their targets and unquoted here-document bodies. */
  private redirects(redirs: readonly Redir[], ctx: Ctx, skipHeredocCode = false): Redirect[] {
    const out: Redirect[] = [];
    for (const r of redirs) {
      const subs = collectSubstitutions(r.target.parts, []);
      if (r.heredoc !== undefined && !skipHeredocCode) collectSubstitutions(r.heredoc.parts, subs);
      this.substitutions(subs, ctx);
      const target = r.heredoc !== undefined ? r.heredoc.body : wordText(r.target, ctx.positional);
      out.push(r.fd === undefined ? { op: r.op, target } : { op: r.op, fd: r.fd, target });
    }
    return out;
  }

  private substitutions(subs: readonly Substitution[], ctx: Ctx): void {
    for (const s of subs) {
      // A substitution's output is captured, so outer redirections do not apply inside it.
      this.list(s.body, { ...ctx, via: [...ctx.via, s.label], scope: { ...ctx.scope }, redirs: [] });
    }
  }

  private simple(cmd: Command & { k: "simple" }, ctx: Ctx, stdinIn: Stdin | undefined): void {
    // `sh < script.sh` reads the file, not what the pipe or the enclosing code would give it.
    const pipeStdin = readsFile(cmd.redirs) ? undefined : stdinIn;
    const pos = ctx.positional;
    const words = cmd.words;
    const argv = wordsText(words, pos);
    const env: Record<string, string> = { ...ctx.env };
    for (const a of cmd.assigns) env[a.name] = wordText(a.value, pos);
    const heredoc = lastStdinDocument(cmd.redirs);
    const stdinScript = heredoc === undefined ? undefined : heredoc.heredoc?.body ?? `${wordText(heredoc.target, pos)}\n`;

    if (words.length === 0) {
      for (const a of cmd.assigns) this.substitutions(collectSubstitutions(a.value.parts, []), ctx);
      const redirs = this.redirects(cmd.redirs, ctx);
      if (cmd.redirs.length > 0) {
        // `> file` alone is `: > file`: it truncates or creates the file, so it is reported.
        this.emit({ program: ":", name: ":", argv: [":"], env, redirects: [...ctx.redirs, ...redirs], via: [...ctx.via], dynamic: false, cwd: ctx.scope.cwd });
      } else {
        for (const a of cmd.assigns) this.assignments[a.name] = wordText(a.value, pos);
      }
      return;
    }

    const first = words[0] as Word;
    if (!isDynamic(first, pos) && argv[0] === "") {
      const where = ctx.codeDepth === 0 ? position(this.line, first.start) : `in code run by ${ctx.via.at(-1)}`;
      throw new WalkError(`${where}: empty command name`);
    }

    // A call of a function defined earlier in the line runs its body.
    const fn = this.funcs.get(argv[0] as string);
    if (fn !== undefined && !isDynamic(first, pos)) {
      for (const w of words) this.substitutions(collectSubstitutions(w.parts, []), ctx);
      const redirs = this.redirects(cmd.redirs, ctx);
      this.callFunction(argv[0] as string, { ...ctx, redirs: [...ctx.redirs, ...redirs] }, argv.slice(1));
      return;
    }

    const plan = this.plan(words, argv, ctx, stdinScript, pipeStdin);
    for (let k = 0; k < words.length; k++) {
      if (!plan.consumed.has(k)) this.substitutions(collectSubstitutions((words[k] as Word).parts, []), ctx);
    }
    for (const a of cmd.assigns) this.substitutions(collectSubstitutions(a.value.parts, []), ctx);
    const own = this.redirects(cmd.redirs, ctx, plan.heredocIsCode);
    const redirects = [...ctx.redirs, ...own];

    for (const action of plan.actions) {
      const actionEnv = { ...env, ...action.env };
      const cwd = action.cwd === undefined ? ctx.scope.cwd : resolveDir(ctx.scope.cwd, action.cwd.dir);
      if (action.k === "code") {
        // The code's standard input is the command's: a here-document not already taken as the code, or the pipe.
        const stdin: Stdin | undefined = stdinScript !== undefined ? (plan.heredocIsCode ? undefined : { text: stdinScript, label: "heredoc->sh" }) : pipeStdin;
        this.code(action.code, action.label, {
          ...ctx,
          via: action.via,
          env: actionEnv,
          redirs: redirects,
          scope: { cwd },
          // eval, trap and source run in this shell, with its $1...; a new shell gets its own.
          positional: action.positional ?? (SAME_SHELL.has(action.label) ? ctx.positional : undefined),
          stdin,
        });
        continue;
      }
      const program = action.argv[0] as string;
      const dynamic = action.dynamic;
      const command: ExecutedCommand = {
        program,
        name: dynamic ? program : basename(program),
        argv: action.argv,
        env: actionEnv,
        redirects: action.k === "find-child" ? [] : redirects,
        via: action.via,
        dynamic,
        cwd: action.k === "find-child" && action.ownDir ? undefined : cwd,
      };
      if (stdinScript !== undefined && action.k !== "find-child") command.stdinScript = stdinScript;
      this.emit(command);
      if (action.via.length === ctx.via.length && !dynamic) this.changeDirectory(command, action.words, ctx);
    }
  }

  /** Decides what runs for one simple command: the chain of wrappers, code to re-parse, find's children. */
  private plan(words: readonly Word[], argv: readonly string[], ctx: Ctx, stdinScript: string | undefined, pipeStdin: Stdin | undefined) {
    const actions: Action[] = [];
    const consumed = new Set<number>();
    let heredocIsCode = false;
    /**
     * Unwraps argv[start, end). `origin[k]` is the index in the written words of argv[k], or -1 for
     * an argument xargs adds from known input.
     */
    const visit = (
      argv: readonly string[], words: readonly Word[], origin: readonly number[],
      start: number, end: number, via: string[], env: Record<string, string>, cwd: CwdChange | undefined,
      child: { ownDir: boolean } | undefined, openEnded: boolean,
    ): void => {
      let i = start;
      for (;;) {
        if (via.length - ctx.via.length > 64) throw new WalkError("more than 64 nested wrappers");
        const w = words[i] as Word;
        const dynamic = isDynamic(w, ctx.positional);
        const step = dynamic ? ({ k: "self" } as const) : unwrapStep(argv, i, end);
        if (step.k === "wrap") {
          via = [...via, step.label];
          env = { ...env, ...step.env };
          if (step.cwd !== undefined) cwd = step.cwd;
          if (step.xargs !== undefined) {
            // Arguments piped in from a literal echo/printf are known: list the commands xargs builds.
            const input = stdinScript ?? pipeStdin?.text;
            const built = input === undefined || step.xargs.fromFile ? undefined : xargsCommands(argv.slice(step.next, end), input, step.xargs);
            if (built !== undefined) {
              const base = origin.slice(step.next, end);
              for (const args of built) {
                const extra = args.length - base.length;
                const ws = [...words.slice(step.next, end), ...literalWords(args.slice(base.length))];
                visit(args, ws, extra > 0 ? [...base, ...new Array<number>(extra).fill(-1)] : base, 0, args.length, via, env, cwd, child, false);
              }
              return;
            }
            // Otherwise xargs adds arguments nobody can see, so `$1` of a `sh -c` script is unknown.
            openEnded = true;
          }
          i = step.next;
          continue;
        }
        if (step.k === "code") {
          // `bash -c "$(cat <<EOF ... EOF)"`: the code is what a literal echo/printf/cat writes.
          const idx = step.consumed.length === 1 ? (origin[step.consumed[0] as number] ?? -1) : -1;
          const output = idx === -1 ? undefined : this.substitutedOutput(words[step.consumed[0] as number] as Word, ctx);
          if (output === undefined) for (const k of step.consumed) if ((origin[k] ?? -1) !== -1) consumed.add(origin[k] as number);
          const base = { label: step.label, via: [...via, step.label], env: { ...env, ...step.env }, cwd, positional: openEnded ? undefined : step.positional };
          for (const code of output !== undefined ? [output] : (step.variants ?? [step.code])) actions.push({ k: "code", code, ...base });
          return;
        }
        if (step.k === "script-file") {
          // `bash <(echo ...)`, `source <(cat <<EOF ...)`: the file is a pipe whose text is known.
          const w = words[step.index];
          const text = w === undefined ? undefined : this.substitutedOutput(w, ctx, "<(");
          if (text !== undefined) {
            actions.push({ k: "code", code: text, label: step.label, via: [...via, step.label], env, cwd, positional: openEnded ? undefined : argv.slice(step.index + 1, end) });
            return;
          }
        }
        if (step.k === "stdin-shell") {
          const name = basename(argv[i] as string);
          if (stdinScript !== undefined) {
            heredocIsCode = true;
            actions.push({ k: "code", code: stdinScript, label: "heredoc->sh", via: [...via, "heredoc->sh"], env, cwd });
            return;
          }
          if (pipeStdin !== undefined && SHELLS.has(name)) {
            actions.push({ k: "code", code: pipeStdin.text, label: pipeStdin.label, via: [...via, pipeStdin.label], env, cwd });
            return;
          }
        }
        if (!dynamic && argv[i] === "") throw new WalkError(`empty command name after ${via.at(-1) ?? "a wrapper"}`);
        const run = { argv: argv.slice(i, end), words: words.slice(i, end), dynamic, via, env, cwd };
        actions.push(child === undefined ? { k: "run", ...run } : { k: "find-child", ...run, ownDir: child.ownDir });
        if (step.k === "find") {
          for (const seg of step.segments) {
            visit(argv, words, origin, seg.start, seg.end, [...via, seg.label], env, seg.ownDir ? { dir: undefined } : cwd, { ownDir: seg.ownDir }, openEnded);
          }
        }
        return;
      }
    };
    const origin: number[] = [];
    for (let k = 0; k < argv.length; k++) origin.push(k);
    visit(argv, words, origin, 0, argv.length, [...ctx.via], {}, undefined, undefined, false);
    return { actions, consumed, heredocIsCode };
  }

  /** Parses code handed to a shell and walks it; a bound on nesting keeps `bash -c "bash -c ..."` finite. */
  private code(code: string, label: string, ctx: Ctx): void {
    const depth = ctx.codeDepth + 1;
    if (depth > this.maxDepth) throw new WalkError(`code nested deeper than ${this.maxDepth} levels (${ctx.via.join(" > ")})`);
    const s = new Source(code, 0, this.budget);
    let list: List;
    try {
      list = parseScript(s);
    } catch (e) {
      if (e instanceof ParseError) throw new WalkError(`in code run by ${label}: ${e.message}`);
      throw e;
    }
    this.list(list, { ...ctx, codeDepth: depth });
  }

  private callFunction(name: string, ctx: Ctx, args: string[] | undefined): void {
    const f = this.funcs.get(name);
    if (f === undefined || this.active.has(name) || f.walks >= CALLS_PER_FUNCTION) return;
    f.walks++;
    this.active.add(name);
    try {
      this.command(f.body, { ...ctx, via: [...ctx.via, `${name}()`], positional: args ?? ctx.positional }, undefined);
    } finally {
      this.active.delete(name);
    }
  }

  /** `cd DIR` / `pushd DIR` / `popd` move the working directory of what follows in the same scope. */
  private changeDirectory(cmd: ExecutedCommand, words: readonly Word[], ctx: Ctx): void {
    if (cmd.name !== "cd" && cmd.name !== "pushd" && cmd.name !== "popd") return;
    if (cmd.name === "popd") {
      ctx.scope.cwd = undefined;
      return;
    }
    let k = 1;
    while (k < cmd.argv.length && /^-[LPe@]+$/.test(cmd.argv[k] as string)) k++;
    if (cmd.argv[k] === "--") k++;
    const target = cmd.argv[k];
    const w = words[k];
    if (target === undefined) ctx.scope.cwd = "~";
    else if (target === "-" || w === undefined || isDynamic(w, ctx.positional)) ctx.scope.cwd = undefined;
    else ctx.scope.cwd = resolveDir(ctx.scope.cwd, target);
  }

  /** What a literal `echo`/`printf`/`cat <<EOF` writes to a pipe, when it can be known from the text. */
  private literalOutput(cmd: Command & { k: "simple" }, ctx: Ctx): string | undefined {
    const argv = wordsText(cmd.words, ctx.positional);
    const name = basename(argv[0] ?? "");
    if (name === "echo") {
      let k = 1;
      let escapes = false;
      while (k < argv.length && /^-[neE]+$/.test(argv[k] as string)) {
        if ((argv[k] as string).includes("e")) escapes = true;
        k++;
      }
      const text = argv.slice(k).join(" ");
      return `${escapes ? unescapeEcho(text) : text}\n`;
    }
    if (name === "printf" && argv.length >= 2) {
      let k = 1;
      if (argv[k] === "--") k++;
      const format = argv[k] ?? "";
      const args = argv.slice(k + 1);
      let a = 0;
      return unescapeEcho(format).replace(/%([%sbdq])/g, (_, c: string) => (c === "%" ? "%" : (args[a++] ?? "")));
    }
    if (name === "cat" && argv.length === 1) {
      const h = lastStdinDocument(cmd.redirs);
      if (h?.heredoc !== undefined) return h.heredoc.body;
      if (h !== undefined) return `${wordText(h.target, ctx.positional)}\n`;
    }
    return undefined;
  }

  /** The output of a word that is only `$(literal echo/printf/cat)`, trailing newlines removed as the shell does. */
  private substitutedOutput(w: Word, ctx: Ctx, kind: "$(" | "<(" = "$("): string | undefined {
    let parts = w.parts;
    if (parts.length === 1 && parts[0]?.k === "dq") parts = parts[0].parts;
    const p = parts[0];
    if (parts.length !== 1 || p === undefined) return undefined;
    const body = kind === "$(" ? (p.k === "cmd" ? p.body : undefined) : p.k === "proc" && p.dir === "<" ? p.body : undefined;
    if (body === undefined || body.items.length !== 1) return undefined;
    const pipes = body.items[0]?.pipes;
    const cmd = pipes?.length === 1 && pipes[0]?.cmds.length === 1 ? pipes[0].cmds[0] : undefined;
    if (cmd?.k !== "simple") return undefined;
    const out = this.literalOutput(cmd, ctx);
    if (out === undefined) return undefined;
    let end = out.length;
    while (end > 0 && out.charCodeAt(end - 1) === 10) end--;
    return out.slice(0, end);
  }

  private emit(c: ExecutedCommand): void {
    if (this.out.length >= COMMAND_LIMIT) throw new WalkError(`more than ${COMMAND_LIMIT} executed commands`);
    this.out.push(c);
  }
}

// Plain loops instead of map/find: in a compiled binary the first call of
// those builtins costs 30-100 µs each, a real share of the start-up budget.

function wordsText(words: readonly Word[], positional: Positional): string[] {
  const out: string[] = [];
  for (const w of words) out.push(wordText(w, positional));
  return out;
}

/** True when a `<` or `<>` redirection replaces standard input with a file. */
function readsFile(redirs: readonly Redir[]): boolean {
  for (const r of redirs) if ((r.op === "<" || r.op === "<>") && (r.fd === undefined || r.fd === 0)) return true;
  return false;
}

/** The here-document or here-string that feeds standard input (the last one wins, as in bash). */
function lastStdinDocument(redirs: readonly Redir[]): Redir | undefined {
  for (let i = redirs.length - 1; i >= 0; i--) {
    const r = redirs[i] as Redir;
    if (r.heredoc !== undefined || r.op === "<<<") return r;
  }
  return undefined;
}

/** Words for arguments that come from known input rather than from the line. */
function literalWords(args: readonly string[]): Word[] {
  const out: Word[] = [];
  for (const v of args) out.push({ parts: [{ k: "sq", v }], start: 0, end: 0 });
  return out;
}

/**
 * The commands xargs builds from known input: items split on blanks (or NUL, or the -d delimiter),
 * put in place of the -I string (one command per line) or appended (-n N per command). At most
 * MAX_VARIANTS commands are listed.
 */
function xargsCommands(template: readonly string[], input: string, how: XargsInput): string[][] | undefined {
  const out: string[][] = [];
  if (how.replace !== undefined) {
    const r = how.replace;
    for (const line of input.split("\n")) {
      const item = line.trim();
      if (item === "") continue;
      if (out.length >= MAX_VARIANTS) break;
      const args: string[] = [];
      for (const a of template) args.push(a.split(r).join(item));
      out.push(args);
    }
    return out.length > 0 ? out : undefined;
  }
  const items: string[] = [];
  if (how.delimiter !== undefined) {
    for (const item of input.split(how.delimiter)) if (item !== "" && item !== "\n") items.push(item);
  } else {
    for (const item of input.split(/[ \t\n]+/)) if (item !== "") items.push(stripQuotes(item));
  }
  const per = how.perCommand ?? Math.max(items.length, 1);
  for (let k = 0; k < items.length && out.length < MAX_VARIANTS; k += per) out.push([...template, ...items.slice(k, k + per)]);
  return out.length > 0 ? out : [[...template]];
}

function stripQuotes(item: string): string {
  const q = item[0];
  return (q === "'" || q === '"') && item.length >= 2 && item.endsWith(q) ? item.slice(1, -1) : item;
}

function unescapeEcho(s: string): string {
  return s.replace(/\\([nt0\\])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c === "0" ? "\0" : "\\"));
}

export function basename(p: string): string {
  let end = p.length;
  while (end > 1 && p.charCodeAt(end - 1) === 47) end--;
  return p.slice(p.lastIndexOf("/", end - 1) + 1, end);
}

/** Joins a directory onto the current one and normalises `.` and `..`; relative to an unknown cwd stays unknown. */
export function resolveDir(cwd: string | undefined, dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  let full: string;
  if (dir.startsWith("/") || dir === "~" || dir.startsWith("~/")) full = dir;
  else if (cwd === undefined) return undefined;
  else full = `${cwd}/${dir}`;
  const absolute = full.startsWith("/");
  const out: string[] = [];
  for (const seg of full.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === ".." && out.length > 0 && out[out.length - 1] !== ".." && out[out.length - 1] !== "~") out.pop();
    else if (seg === ".." && absolute) continue;
    else out.push(seg);
  }
  return (absolute ? "/" : "") + out.join("/");
}
