// Walks the syntax tree and lists every command that would execute, in the
// order the shell would start them: substitutions before the command that
// uses their output, wrappers unwrapped, code handed to a shell (`bash -c`,
// eval, ssh, a here-document or a literal piped into `sh`) parsed and walked
// as the code it is. Text that is only data (quoted strings, quoted
// here-documents written to files) stays an argument.

import type { Command, List, Redir, Word, WordPart } from "./ast.ts";
import { parseScript } from "./parser.ts";
import { type Budget, COMMAND_LIMIT, ParseError, position, Source, WORD_LIMIT } from "./source.ts";
import { collectSubstitutions, isDynamic, type Positional, type Substitution, wordText } from "./text.ts";
import type { ExecutedCommand, Redirect } from "./types.ts";
import { type CwdChange, MAX_VARIANTS, parallelJob, SHELLS, unwrapStep, type XargsInput } from "./wrappers.ts";

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
  /** Indices in `out` of the commands whose output reaches this code's standard input through a pipe. */
  stdinFrom?: number[];
  /** Where standard output goes: 0 the line's own output, -1 captured by a substitution, else the id of a pipe. */
  sink: number;
};

/**
 * Standard input whose text may be known: a here-document, or what a literal echo/printf/cat writes
 * into a pipe. `text` is computed on first use (most pipes never need it): undefined when not literal.
 */
type Stdin = { text: () => string | undefined; label: "heredoc->sh" | "pipe->sh" };

function knownStdin(text: string, label: Stdin["label"]): Stdin {
  return { text: () => text, label };
}

type Action =
  | {
      k: "run" | "find-child";
      argv: string[];
      words: readonly Word[];
      dynamic: boolean;
      via: string[];
      env: Record<string, string>;
      cwd?: CwdChange;
      ownDir?: boolean;
    }
  | { k: "code"; code: string; label: string; via: string[]; env: Record<string, string>; cwd?: CwdChange; positional?: Positional };

const NOTHING_CONSUMED: ReadonlySet<number> = new Set<number>();

/** Code run by these labels runs in the current shell, so it sees the current positional parameters. */
const SAME_SHELL = new Set(["eval", "trap"]);

/** How many times one function's body is walked for its calls; enough to see different arguments, bounded against call trees that double at each level. */
const CALLS_PER_FUNCTION = 8;

export class Walker {
  readonly out: ExecutedCommand[] = [];
  /** For each command in `out`, the sink its standard output goes to (see Ctx.sink). */
  private readonly sinks: number[] = [];
  private pipes = 0;
  readonly assignments: Record<string, string> = {};
  /** Variables assigned more than once on the line: which value a use sees depends on order. */
  readonly reassigned = new Set<string>();
  /** Functions that call themselves (a fork bomb among them). */
  readonly recursive = new Set<string>();
  private readonly funcs = new Map<string, { body: Command; ctx: Ctx; walks: number }>();
  /** The function bodies being walked: a body, not a name, since a function may redefine itself before calling the new body. */
  private readonly active = new Set<Command>();

  constructor(
    /** The top-level line, for positions in error messages. */
    private readonly line: string,
    private readonly maxDepth: number,
    private readonly budget: Budget,
  ) {}

  walkTop(list: List, cwd: string | undefined): void {
    const ctx: Ctx = { via: [], scope: { cwd }, env: {}, redirs: [], positional: undefined, codeDepth: 0, sink: 0 };
    this.list(list, ctx);
    // A function defined but never called still counts: its body is code the line carries.
    for (const [name, f] of this.funcs) {
      if (f.walks === 0) this.callFunction(name, f.ctx, undefined, f.ctx.stdin);
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
        let prevStart = 0;
        let prevSink = 0;
        const n = p.cmds.length;
        for (let k = 0; k < n; k++) {
          const cmd = p.cmds[k] as Command;
          let stdin: Stdin | undefined = c.stdin;
          let stdinFrom = c.stdinFrom;
          if (prev !== undefined) {
            stdin = prev.k === "simple" ? this.pipeText(prev, c) : undefined;
            stdinFrom = this.writers(prevStart, prevSink);
          }
          // The last element writes where the pipeline does; the others into a pipe of their own.
          const sink = k === n - 1 ? c.sink : ++this.pipes;
          prevStart = this.out.length;
          prevSink = sink;
          this.command(cmd, { ...c, scope: { ...c.scope }, sink, stdinFrom }, stdin);
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
    // `{ sh; } <<EOF`, `while ...; done < list`: the compound's own input replaces the pipe's.
    const doc = lastStdinDocument(cmd.redirs);
    const ownInput = doc !== undefined || readsFile(cmd.redirs);
    const input = doc !== undefined ? knownStdin(documentText(doc, ctx.positional), "heredoc->sh") : ownInput ? undefined : stdin;
    const inner: Ctx =
      redirs.length === 0 && input === ctx.stdin && !ownInput
        ? ctx
        : { ...ctx, redirs: [...ctx.redirs, ...redirs], stdin: input, stdinFrom: ownInput ? undefined : ctx.stdinFrom };
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
      this.list(s.body, { ...ctx, via: [...ctx.via, s.label], scope: { ...ctx.scope }, redirs: [], sink: -1 });
    }
  }

  private simple(cmd: Command & { k: "simple" }, ctx: Ctx, stdinIn: Stdin | undefined): void {
    // `sh < script.sh` reads the file, not what the pipe or the enclosing code would give it.
    const pipeStdin = readsFile(cmd.redirs) ? undefined : stdinIn;
    const pos = ctx.positional;
    const words = expandAllArguments(cmd.words, pos, this.budget);
    const argv = wordsText(words, pos);
    if (pos !== undefined) {
      // `f() { echo "$1$1$1..."; }; f <long word>` makes text quadratic in the line: bounded like the words.
      for (const a of argv) this.budget.expanded += a.length;
      if (this.budget.expanded > this.budget.expandedMax) throw new WalkError("arguments expanded from $1... grow past the line's bound");
    }
    const env: Record<string, string> = { ...ctx.env };
    for (const a of cmd.assigns) env[a.name] = wordText(a.value, pos);
    const heredoc = lastStdinDocument(cmd.redirs);
    const stdinScript = heredoc === undefined ? undefined : documentText(heredoc, pos);
    // A here-document, here-string or `< file` replaces what a pipe would give.
    const stdinFrom = stdinScript !== undefined || readsFile(cmd.redirs) ? undefined : ctx.stdinFrom;

    if (words.length === 0) {
      for (const a of cmd.assigns) this.substitutions(collectSubstitutions(a.value.parts, []), ctx);
      const redirs = this.redirects(cmd.redirs, ctx);
      if (cmd.redirs.length > 0) {
        // `> file` alone is `: > file`: it truncates or creates the file, so it is reported.
        this.emit(
          {
            program: ":",
            name: ":",
            argv: [":"],
            env,
            redirects: [...ctx.redirs, ...redirs],
            via: [...ctx.via],
            dynamic: false,
            cwd: ctx.scope.cwd,
          },
          ctx.sink,
        );
      } else {
        for (const a of cmd.assigns) {
          if (Object.hasOwn(this.assignments, a.name)) this.reassigned.add(a.name);
          this.assignments[a.name] = wordText(a.value, pos);
        }
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
      const subs: Substitution[] = [];
      for (const w of words) collectSubstitutions(w.parts, subs);
      this.substitutions(subs, ctx);
      const redirs = this.redirects(cmd.redirs, ctx);
      const args: (string | undefined)[] = [];
      for (let k = 1; k < words.length; k++) args.push(isDynamic(words[k] as Word, pos) ? undefined : argv[k]);
      const input = stdinScript !== undefined ? knownStdin(stdinScript, "heredoc->sh") : pipeStdin;
      this.callFunction(argv[0] as string, { ...ctx, redirs: [...ctx.redirs, ...redirs], stdinFrom }, args, input);
      return;
    }

    const plan = this.plan(words, argv, ctx, stdinScript, pipeStdin);
    const subs: Substitution[] = [];
    for (let k = 0; k < words.length; k++) {
      if (!plan.consumed.has(k)) collectSubstitutions((words[k] as Word).parts, subs);
    }
    for (const a of cmd.assigns) collectSubstitutions(a.value.parts, subs);
    if (subs.length > 0) this.substitutions(subs, ctx);
    const own = this.redirects(cmd.redirs, ctx, plan.heredocIsCode);
    const redirects = own.length === 0 ? ctx.redirs.slice() : [...ctx.redirs, ...own];

    for (const action of plan.actions) {
      const actionEnv = { ...env, ...action.env };
      const cwd = action.cwd === undefined ? ctx.scope.cwd : resolveDir(ctx.scope.cwd, action.cwd.dir);
      if (action.k === "code") {
        // The code's standard input is the command's: a here-document not already taken as the code, or the pipe.
        const stdin: Stdin | undefined =
          stdinScript !== undefined ? (plan.heredocIsCode ? undefined : knownStdin(stdinScript, "heredoc->sh")) : pipeStdin;
        this.code(action.code, action.label, {
          ...ctx,
          via: action.via,
          env: actionEnv,
          // ssh's own redirections are this machine's files, whatever the remote code does with its input.
          redirs: /^ssh\b/.test(action.label) ? redirects.map((r) => ({ ...r, local: true as const })) : redirects,
          scope: { cwd },
          // eval, trap and source run in this shell, with its $1...; a new shell gets its own.
          positional: action.positional ?? (SAME_SHELL.has(action.label) ? ctx.positional : undefined),
          stdin,
          stdinFrom: plan.heredocIsCode ? undefined : stdinFrom,
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
      if (stdinFrom !== undefined) command.stdinFrom = stdinFrom;
      this.emit(command, ctx.sink);
      if (action.via.length === ctx.via.length && !dynamic) this.changeDirectory(command, action.words, ctx);
    }
  }

  /** Decides what runs for one simple command: the chain of wrappers, code to re-parse, find's children. */
  private plan(words: readonly Word[], argv: readonly string[], ctx: Ctx, stdinScript: string | undefined, pipeStdin: Stdin | undefined) {
    // Most commands wrap nothing: they run as written, without the unwrapping machinery.
    const dynamic0 = isDynamic(words[0] as Word, ctx.positional);
    if (dynamic0 || unwrapStep(argv, 0, argv.length).k === "self") {
      const action: Action = { k: "run", argv: argv as string[], words, dynamic: dynamic0, via: ctx.via.slice(), env: {} };
      return { actions: [action], consumed: NOTHING_CONSUMED, heredocIsCode: false };
    }
    const actions: Action[] = [];
    const consumed = new Set<number>();
    let heredocIsCode = false;
    /**
     * Unwraps argv[start, end). `origin[k]` is the index in the written words of argv[k], or -1 for
     * an argument xargs adds from known input.
     */
    const visit = (
      argv: readonly string[],
      words: readonly Word[],
      origin: readonly number[],
      start: number,
      end: number,
      via: string[],
      env: Record<string, string>,
      cwd: CwdChange | undefined,
      child: { ownDir: boolean } | undefined,
      openEnded: boolean,
    ): void => {
      let i = start;
      for (;;) {
        if (via.length - ctx.via.length > 64) throw new WalkError("more than 64 nested wrappers");
        const w = words[i] as Word;
        const dynamic = isDynamic(w, ctx.positional);
        const step = dynamic ? ({ k: "self" } as const) : unwrapStep(argv, i, end);
        // A wrapper listed as itself too (docker exec, ssh with a script): before what it runs, with the via that led to it.
        const keepSelf = (): void => {
          actions.push({
            k: child === undefined ? "run" : "find-child",
            argv: argv.slice(i, end),
            words: words.slice(i, end),
            dynamic: false,
            via,
            env,
            cwd,
            ownDir: child?.ownDir,
          });
        };
        if (step.k === "wrap") {
          if (step.keep === true) keepSelf();
          via = [...via, step.label];
          env = { ...env, ...step.env };
          if (step.cwd !== undefined) cwd = step.cwd;
          if (step.xargs !== undefined) {
            // Arguments piped in from a literal echo/printf are known: list the commands xargs builds.
            const input = stdinScript ?? pipeStdin?.text();
            const built =
              input === undefined || step.xargs.fromFile ? undefined : xargsCommands(argv.slice(step.next, end), input, step.xargs);
            if (built !== undefined) {
              const base = origin.slice(step.next, end);
              const tw = words.slice(step.next, end);
              for (const b of built) {
                // The items read from input sit at args[at, at + count): words and origins of their own.
                const skip = b.args.length - b.count === tw.length ? 0 : 1;
                const ws = [...tw.slice(0, b.at), ...literalWords(b.args.slice(b.at, b.at + b.count)), ...tw.slice(b.at + skip)];
                const orig = [...base.slice(0, b.at), ...new Array<number>(b.count).fill(-1), ...base.slice(b.at + skip)];
                visit(b.args, ws, orig, 0, b.args.length, via, env, cwd, child, false);
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
          const positional =
            openEnded || step.positional === undefined
              ? undefined
              : knownArguments(step.positional, words, end - step.positional.length, ctx.positional);
          const base = { label: step.label, via: [...via, step.label], env: { ...env, ...step.env }, cwd, positional };
          if (step.keep === true) keepSelf();
          for (const code of output !== undefined ? [output] : (step.variants ?? [step.code])) actions.push({ k: "code", code, ...base });
          return;
        }
        if (step.k === "script-file") {
          // `bash <(echo ...)`, `source <(cat <<EOF ...)`: the file is a pipe whose text is known.
          const w = words[step.index];
          const text = w === undefined ? undefined : this.substitutedOutput(w, ctx, "<(");
          if (text !== undefined) {
            const positional = openEnded
              ? undefined
              : knownArguments(argv.slice(step.index + 1, end), words, step.index + 1, ctx.positional);
            actions.push({ k: "code", code: text, label: step.label, via: [...via, step.label], env, cwd, positional });
            return;
          }
        }
        if (step.k === "stdin-shell") {
          const name = basename(argv[i] as string);
          // `ssh host <<EOF`: the remote login shell runs it (listed as ssh > heredoc->sh).
          const shellVia = step.remote === undefined ? via : [...via, step.remote];
          if (stdinScript !== undefined) {
            heredocIsCode = true;
            // ssh itself stays listed (with its stdinScript): a remote login is a rule's matter too.
            if (step.remote !== undefined) keepSelf();
            actions.push({ k: "code", code: stdinScript, label: "heredoc->sh", via: [...shellVia, "heredoc->sh"], env, cwd });
            return;
          }
          const text = pipeStdin === undefined || !(SHELLS.has(name) || step.remote !== undefined) ? undefined : pipeStdin.text();
          if (text !== undefined && pipeStdin !== undefined) {
            if (step.remote !== undefined) keepSelf();
            actions.push({ k: "code", code: text, label: pipeStdin.label, via: [...shellVia, pipeStdin.label], env, cwd });
            return;
          }
        }
        if (step.k === "parallel-stdin") {
          // parallel reading its arguments from a literal echo/printf/here-document: one job per item.
          const input = stdinScript ?? pipeStdin?.text();
          const jobs = input === undefined ? undefined : parallelStdinJobs(step.template, input, step.delimiter, step.replace);
          if (jobs !== undefined || step.template !== undefined) {
            for (const k of step.consumed) if ((origin[k] ?? -1) !== -1) consumed.add(origin[k] as number);
            const label = "parallel";
            for (const code of jobs ?? [step.template as string]) actions.push({ k: "code", code, label, via: [...via, label], env, cwd });
            return;
          }
        }
        if (!dynamic && argv[i] === "") throw new WalkError(`empty command name after ${via.at(-1) ?? "a wrapper"}`);
        const run = { argv: argv.slice(i, end), words: words.slice(i, end), dynamic, via, env, cwd };
        actions.push(child === undefined ? { k: "run", ...run } : { k: "find-child", ...run, ownDir: child.ownDir });
        if (step.k === "find") {
          for (const seg of step.segments) {
            visit(
              argv,
              words,
              origin,
              seg.start,
              seg.end,
              [...via, seg.label],
              env,
              seg.ownDir ? { dir: undefined } : cwd,
              { ownDir: seg.ownDir },
              openEnded,
            );
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

  private callFunction(name: string, ctx: Ctx, args: Positional, stdin: Stdin | undefined): void {
    const f = this.funcs.get(name);
    if (f === undefined) return;
    if (this.active.has(f.body)) {
      this.recursive.add(name);
      return;
    }
    if (f.walks >= CALLS_PER_FUNCTION) return;
    f.walks++;
    this.active.add(f.body);
    try {
      this.command(f.body, { ...ctx, via: [...ctx.via, `${name}()`], positional: args ?? ctx.positional }, stdin);
    } finally {
      this.active.delete(f.body);
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

  private emit(c: ExecutedCommand, sink: number): void {
    if (this.out.length >= COMMAND_LIMIT) throw new WalkError(`more than ${COMMAND_LIMIT} executed commands`);
    this.out.push(c);
    this.sinks.push(sink);
  }

  /** The commands listed since `start` whose standard output goes into pipe `sink` (not captured, not redirected away). */
  private writers(start: number, sink: number): number[] {
    const out: number[] = [];
    for (let i = start; i < this.out.length; i++) {
      if (this.sinks[i] === sink && !stdoutRedirected((this.out[i] as ExecutedCommand).redirects)) out.push(i);
    }
    return out;
  }

  /** What a pipeline element writes, as lazily computed standard input for the next one. */
  private pipeText(prev: Command & { k: "simple" }, ctx: Ctx): Stdin {
    let done = false;
    let text: string | undefined;
    return {
      label: "pipe->sh",
      text: () => {
        if (!done) {
          done = true;
          text = this.literalOutput(prev, ctx);
        }
        return text;
      },
    };
  }
}

// Plain loops instead of map/find: in a compiled binary the first call of
// those builtins costs 30-100 µs each, a real share of the start-up budget.

function wordsText(words: readonly Word[], positional: Positional): string[] {
  const out: string[] = [];
  for (const w of words) out.push(wordText(w, positional));
  return out;
}

/** The text a here-document or here-string gives (a here-string gets a newline added, as in bash). */
function documentText(r: Redir, pos: Positional): string {
  return r.heredoc?.body ?? `${wordText(r.target, pos)}\n`;
}

/** True when standard output is redirected to a file or another descriptor (the last such redirection wins). */
function stdoutRedirected(redirects: readonly Redirect[]): boolean {
  let away = false;
  for (const r of redirects) {
    const fd = r.fd ?? 1;
    if (r.op === "&>" || r.op === "&>>") away = r.target !== "/dev/stdout";
    else if ((r.op === ">" || r.op === ">>" || r.op === ">|") && fd === 1) away = r.target !== "/dev/stdout";
    else if (r.op === ">&" && fd === 1) away = r.target !== "1";
  }
  return away;
}

/**
 * Words with `"$@"` (or `$@`, `$*`) standing alone replaced by one word per known positional
 * parameter, as the shell expands them: `run() { "$@"; }; run rm x` runs `rm x`. Returns the same
 * array when there is nothing to expand, or when a parameter's value is unknown.
 */
function expandAllArguments(words: readonly Word[], positional: Positional, budget: Budget): readonly Word[] {
  if (positional === undefined) return words;
  let out: Word[] | undefined;
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as Word;
    if (isAllArguments(w) && !positional.includes(undefined)) {
      // The words made count against the line's bound: `"$@" "$@" ...` times many arguments is quadratic.
      budget.words += positional.length;
      if (budget.words > WORD_LIMIT) throw new WalkError(`more than ${WORD_LIMIT} words in one line (with "$@" expanded)`);
      out ??= words.slice(0, k);
      for (const v of positional) out.push({ parts: [{ k: "sq", v: v as string }], start: w.start, end: w.end });
    } else if (out !== undefined) out.push(w);
  }
  return out ?? words;
}

function isAllArguments(w: Word): boolean {
  if (w.parts.length !== 1) return false;
  let p = w.parts[0] as WordPart;
  let quoted = false;
  if (p.k === "dq") {
    if (p.parts.length !== 1) return false;
    p = p.parts[0] as WordPart;
    quoted = true;
  }
  if (p.k !== "param" || !(p.raw === `$${p.name}` || p.raw === `\${${p.name}}`)) return false;
  // "$*" is one word, which partsText joins.
  return p.name === "@" || (p.name === "*" && !quoted);
}

/** Arguments handed to a script (`sh -c CODE $0 $1...`): an argument whose value is an expansion stays unknown. */
function knownArguments(args: readonly string[], words: readonly Word[], first: number, positional: Positional): Positional {
  let out: (string | undefined)[] | undefined;
  for (let k = 0; k < args.length; k++) {
    const w = words[first + k];
    if (w !== undefined && isDynamic(w, positional)) {
      out ??= args.slice();
      out[k] = undefined;
    }
  }
  return out ?? args;
}

/** Jobs of `parallel [template]` reading its arguments from known input, one per item; undefined past MAX_VARIANTS. */
function parallelStdinJobs(template: string | undefined, input: string, delimiter: string, replace: string): string[] | undefined {
  const jobs: string[] = [];
  for (const item of input.split(delimiter)) {
    if (item === "" || item === "\n") continue;
    if (jobs.length >= MAX_VARIANTS) return undefined;
    jobs.push(parallelJob(template, [item], replace));
  }
  return jobs;
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
function xargsCommands(
  template: readonly string[],
  input: string,
  how: XargsInput,
): { args: string[]; at: number; count: number }[] | undefined {
  const out: { args: string[]; at: number; count: number }[] = [];
  if (how.replace !== undefined) {
    const r = how.replace;
    for (const line of input.split("\n")) {
      const item = line.trim();
      if (item === "") continue;
      // More commands than are listed: report the template with unknown arguments rather than a partial list.
      if (out.length >= MAX_VARIANTS) return undefined;
      const args: string[] = [];
      for (const a of template) args.push(a.split(r).join(item));
      out.push({ args, at: args.length, count: 0 });
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
  if (items.length > per * MAX_VARIANTS) return undefined;
  for (let k = 0; k < items.length; k += per) {
    const chunk = items.slice(k, k + per);
    const at = how.insert === undefined ? -1 : template.indexOf(how.insert);
    // BSD -J: the items stand in place of the first argument equal to the replacement string.
    if (at === -1) out.push({ args: [...template, ...chunk], at: template.length, count: chunk.length });
    else out.push({ args: [...template.slice(0, at), ...chunk, ...template.slice(at + 1)], at, count: chunk.length });
  }
  return out.length > 0 ? out : [{ args: [...template], at: template.length, count: 0 }];
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
function resolveDir(cwd: string | undefined, dir: string | undefined): string | undefined {
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
