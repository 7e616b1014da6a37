/**
 * The rule engine: a command line's executed commands, each judged by the
 * first rule that matches it (and each of its output redirections by the
 * first redirect rule), combined into one answer for the line: the hardest
 * to undo among them.
 */
import { leaning, strictness, type CommandAnswers, type Verdict } from "../../core/answers.ts";
import { commandVerdict } from "../../core/verdict.ts";
import type { Policy } from "../../policy/schema.ts";
import { parseCommandLine, type ExecutedCommand, type Redirect } from "../../shell/index.ts";
import { candidatesFor, compiledOf, exactLine, inWhere, outrightOf, ruleIndexFor, type CompiledRule, type RuleIndex } from "./compile.ts";
import { matchesCommand, matchesRedirect, mayMatch, outputRedirects, restCommand, writeRedirects, type Probe, type View } from "./match.ts";
import { usableProjectRoot, type PathContext } from "./paths.ts";
import { parseArgs, TAR_VALUES } from "./args.ts";
import { LineMoves } from "./moved.ts";
import { diskProbe } from "./probe.ts";
import { programOf } from "./program.ts";
import {
  codeFromInput,
  finding,
  INTERPRETERS,
  LineWrites,
  literalOutput,
  recursion,
  runsWrittenFile,
  scriptOperand,
  SHELLS,
  type Finding,
} from "./runs.ts";
import { secretLeak } from "./secrets.ts";
import { CONSEQUENTIAL_NAME, readSmall, scriptCall } from "./scripts.ts";
import { classifyAbsolute, resolveWord } from "./paths.ts";

export type RuleContext = {
  cwd: string;
  /** The repository root; the working directory stands for the project when absent. */
  projectRoot?: string;
  home?: string;
  tmpdir?: string;
  /** Disk look-ups (file exists, git tracks it); the real disk by default. */
  probe?: Probe;
  /** How many script bodies deep this line is (npm run X whose body runs make Y): bounded. */
  depth?: number;
};

/** How deep script bodies are followed (a script that runs a script that runs a script). */
const MAX_SCRIPT_DEPTH = 2;

/** The rule that decided, and the executed command it matched. */
export type RuleHit = {
  id: string;
  reason: string;
  command: ExecutedCommand;
  decision?: "allow" | "ask" | "deny";
  /** For a redirect rule: the redirection it matched. */
  redirect?: Redirect;
  /** What the rule judged, when it is more than the command: "curl -o ~/.profile", "reads ~/.ssh/id_rsa". */
  seen?: string;
  /** The rule's safer form (suggest:), shown with an ask or a deny. */
  suggest?: string;
};

/** One executed part of a line and its verdict: a rule's answer, or a command no rule knows. */
type PartVerdict = { verdict: Verdict; hit?: RuleHit; rule?: CompiledRule; command?: ExecutedCommand; why?: string };

/** What of the policy the engine reads. */
export type LinePolicy = Pick<Policy, "rules" | "acts" | "judge" | "undo_levels" | "load_levels">;

/** An executed command no rule knows, and why, when there is more to say than that. */
export type Unknown = { command: ExecutedCommand; why?: string };

export type RulesAnswer =
  | { parsed: false; error: string; executed: [] }
  | {
      parsed: true;
      executed: ExecutedCommand[];
      /** The answers of the rule that decided; undefined when no rule knows any executed command. */
      answers?: CommandAnswers;
      /** A rule's outright decision, which stands before any model is asked. */
      decision?: "allow" | "ask" | "deny";
      /** The rule whose answer stands for the line: the part with the strictest verdict (the hardest to undo among equals). */
      rule?: RuleHit;
      /** The line's verdict: the strictest of its parts' (memory left out: see judge.ts). */
      verdict: Verdict;
      /** Why, as the user reads it: what the deciding part was and the rule's reason. */
      line: string;
      /** Every executed part's verdict. */
      parts: PartVerdict[];
      /** Executed commands no rule knows. */
      unknown: ExecutedCommand[];
      /** Why each unknown command is unknown, in the same order. */
      unknownWhy: string[];
      /** Every rule that answered, one per executed command or redirection. */
      hits: RuleHit[];
    };

type Judged = { hit: RuleHit; rule: CompiledRule };

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
  if (rule.rule.suggest) hit.suggest = rule.rule.suggest;
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
export function viewOf(
  command: ExecutedCommand,
  writers: readonly ExecutedCommand[],
  base: PathContext,
  probe: Probe,
): { view: View; untrusted?: string } {
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
  // xargs and parallel add arguments read from standard input: unknown ones, unless the parser read a literal input
  // (echo/printf/here-string) and listed the commands they build with it.
  // (A shell inside code that xargs runs, reading a pipe of its own — xargs sh -c 'curl … | sh' — gets none: its code is its input.)
  const innerPipedShell =
    (SHELLS.has(program.name) || INTERPRETERS.has(program.name)) &&
    command.stdinFrom !== undefined &&
    !/^(xargs|parallel)$/.test(command.via.at(-1) ?? "");
  if (
    command.via.some((label) => label === "xargs" || label === "parallel") &&
    !innerPipedShell &&
    !args.some((arg) => arg.includes("{}")) &&
    !literalInput(command, writers)
  )
    args.push("{}");
  const view: View = {
    command,
    name: program.name,
    ctx,
    args,
    parsed: new Map(),
    classes: new Map(),
    probe,
    earlier: writers.map((c) => c.name),
  };
  return { view, untrusted: program.untrusted };
}

/** Path classes outside the project where a change of permissions or ownership is a change to the machine. */
const MACHINE_CLASSES = new Set(["root", "home", "home-files", "system", "device", "outside"]);

/** Shell builtins: found before PATH is searched. */
const BUILTINS = new Set([
  "cd",
  "echo",
  "printf",
  "export",
  "test",
  "[",
  "[[",
  "read",
  "set",
  "unset",
  "true",
  "false",
  ":",
  "pwd",
  "type",
  "command",
  "builtin",
  "eval",
  "source",
  ".",
  "exit",
  "return",
  "local",
  "declare",
  "typeset",
  "readonly",
  "shift",
  "let",
  "alias",
  "unalias",
  "wait",
  "jobs",
  "hash",
  "kill",
  "trap",
  "umask",
  "ulimit",
  "shopt",
  "pushd",
  "popd",
  "dirs",
  "history",
  "getopts",
  "break",
  "continue",
  "exec",
  "times",
  "fg",
  "bg",
  "disown",
  "enable",
  "help",
  "caller",
  "compgen",
  "complete",
  "mapfile",
  "readarray",
]);

/** Folders a PATH may name and keep programs what their names say: install folders, tool managers', a project's own tool folders. */
const TRUSTED_PATH_DIR =
  /^(\$\{?PATH\}?|\/usr\/(local\/)?s?bin|\/s?bin|\/opt\/homebrew\/s?bin|\/opt\/[^/]+\/bin|\/snap\/bin|\/nix\/.+\/bin|\/run\/current-system\/sw\/bin|\/usr\/lib\/jvm\/[^/]+\/bin|(~|\$\{?HOME\}?)\/(\.local\/bin|\.cargo\/bin|go\/bin|\.bun\/bin|\.deno\/bin|\.volta\/bin|\.pyenv\/shims|\.rbenv\/shims|\.asdf\/shims|\.nix-profile\/bin|\.npm-global\/bin|\.yarn\/bin|\.foundry\/bin|\.elan\/bin|\.ghcup\/bin|bin)|((\$\{?PWD\}?|\.)\/)?(node_modules\/\.bin|\.venv\/bin|venv\/bin|vendor\/bin))$/;

/** The first folder of a PATH the line sets that is not one a program's name can be trusted in; undefined when PATH is not set or every folder is. */
function taintedPath(commands: readonly ExecutedCommand[], assignments: Record<string, string>): string | undefined {
  const values: string[] = [];
  if (assignments.PATH !== undefined) values.push(assignments.PATH);
  for (const command of commands) {
    if (command.env.PATH !== undefined) values.push(command.env.PATH);
    if (["export", "declare", "typeset", "local", "readonly"].includes(command.name)) {
      for (const arg of command.argv.slice(1)) if (arg.startsWith("PATH=")) values.push(arg.slice(5));
    }
    // printf -v PATH ..., read PATH: a value nobody can see.
    if (
      (command.name === "printf" && command.argv.includes("-v") && command.argv.includes("PATH")) ||
      (command.name === "read" && command.argv.includes("PATH"))
    )
      return "a value set at run time";
  }
  for (const value of values) {
    for (const dir of value.split(":")) {
      const clean = dir.replace(/\/+$/, "");
      // Folders after the old PATH are searched last: a program found in the usual places still is.
      if (/^\$\{?PATH\}?$/.test(clean)) break;
      if (!TRUSTED_PATH_DIR.test(clean)) return clean === "" ? "the working directory (an empty entry)" : clean;
    }
  }
  return undefined;
}

/** Whether a command's standard input is text the parser could read (a literal echo/printf, a here-document). */
function literalInput(command: ExecutedCommand, writers: readonly ExecutedCommand[]): boolean {
  if (command.stdinScript !== undefined) return true;
  const direct = command.stdinFrom ?? [];
  if (direct.length === 0 || writers.length !== direct.length) return false;
  if (!writers.every((w) => (w.name === "echo" || w.name === "printf") && !w.dynamic && !w.argv.some((arg) => /[$`*?]/.test(arg))))
    return false;
  // The parser put the items in only where they show among the arguments (not with xargs -a FILE, nor -i without {}).
  const items = new Set(
    writers.flatMap((w) =>
      w.argv
        .slice(1)
        .flatMap((arg) => arg.split(/\s+|\\n/))
        .filter((item) => item !== "" && !item.startsWith("-")),
    ),
  );
  return command.argv.slice(1).some((arg) => items.has(arg));
}

/**
 * What the `{}` of find's -exec stands for, when find picks by one name in one place
 * (`find . -name __pycache__ -exec rm -rf {} +`): that name in that place; a glob's `*` as any
 * name (`*.pyc`: x.pyc). Undefined when find's choice cannot be put as one path.
 */
function findPick(find: ExecutedCommand): string | undefined {
  const args = find.argv.slice(1);
  const expression = args.findIndex((arg) => arg.startsWith("-") || arg === "(" || arg === "!");
  const starts = expression === -1 ? args : args.slice(0, expression);
  const rest = expression === -1 ? [] : args.slice(expression);
  if (starts.length > 1) return undefined;
  const start = starts[0] ?? ".";
  if (rest.some((arg) => ["-o", "-or", "-not", "!", ",", "(", "-path", "-ipath", "-regex", "-iregex", "-wholename"].includes(arg)))
    return undefined;
  const names = rest.flatMap((arg, at) => (arg === "-name" || arg === "-iname" ? [rest[at + 1]] : []));
  // Without one name, what find picks is not one path: {} stays unknown.
  if (names.length !== 1 || names[0] === undefined || /[/[\]?]/.test(names[0]) || /[$`]/.test(start)) return undefined;
  const name = names[0].replaceAll("*", "x");
  return `${start.replace(/\/+$/, "")}/${name}`;
}

/**
 * A one-statement inline program that only removes literal paths (`python -c "import shutil;
 * shutil.rmtree('build')"`, `node -e "fs.rmSync('dist', {recursive: true})"`), as the rm it
 * amounts to, so the paths are judged like rm's (build output, or where a symlink really leads).
 */
function inlineRemoval(command: ExecutedCommand): ExecutedCommand | undefined {
  if (!/^(python[0-9.]*|node|nodejs|bun)$/.test(command.name)) return undefined;
  const at = command.argv.findIndex((arg) => arg === "-c" || arg === "-e" || arg === "--eval");
  const code = at === -1 ? undefined : command.argv[at + 1];
  if (code === undefined || command.argv.length !== at + 2) return undefined;
  const python =
    /^\s*(?:import\s+shutil\s*[;\n]\s*)?((?:shutil\.rmtree\(\s*(['"])[^'"\\$`{}]+\2\s*(?:,\s*ignore_errors\s*=\s*(?:True|False))?\s*\)\s*[;\n]?\s*)+)$/;
  const node =
    /^\s*(?:(?:const|let|var)\s+fs\s*=\s*require\(\s*['"](?:node:)?fs['"]\s*\)\s*[;\n]\s*)?((?:(?:require\(\s*['"](?:node:)?fs['"]\s*\)|fs)\.(?:rmSync|rmdirSync)\(\s*(['"])[^'"\\$`{}]+\2\s*(?:,\s*\{[^}]*\})?\s*\)\s*[;\n]?\s*)+)$/;
  const m = (command.name.startsWith("python") ? python : node).exec(code);
  if (!m) return undefined;
  const paths = [...(m[1] as string).matchAll(/(?:rmtree|rmSync|rmdirSync)\(\s*(['"])([^'"]+)\1/g)].map((p) => p[2] as string);
  // Only paths in the project, as written: an inline program removing an absolute path stays an inline program.
  if (paths.some((path) => path.startsWith("/") || path.startsWith("~") || path.split("/").includes(".."))) return undefined;
  // The label names no program a rule knows: the interpreter is not judged again as a wrapper of the rm it amounts to.
  return {
    ...command,
    program: "rm",
    name: "rm",
    argv: ["rm", "-rf", "--", ...paths],
    via: [...command.via, `inline ${command.name} ${command.argv[at]}`],
    dynamic: false,
  };
}

const FIND = new Set(["find", "gfind", "bfs"]);
/** Database clients that run the statements on their standard input. */
const DATABASE_CLIENTS = new Set([
  "psql",
  "mysql",
  "mariadb",
  "sqlite3",
  "duckdb",
  "mongosh",
  "mongo",
  "redis-cli",
  "valkey-cli",
  "cqlsh",
  "clickhouse-client",
  "sqlcmd",
  "usql",
]);
/** Files a runner reads its recipes from. */
const RECIPE_FILES = [
  "package.json",
  "Makefile",
  "makefile",
  "GNUmakefile",
  "justfile",
  "Justfile",
  ".justfile",
  "Taskfile.yml",
  "Rakefile",
  "deno.json",
];
/** Words that say a command drops, resets, destroys, deletes or wipes. */
const DESTRUCTIVE_WORD =
  /(^|[^a-z])(drop|dropall|drop_all|reset|destroy|destroy_all|delete|delete_all|deleteall|delete_many|purge|wipe|flush|flushall|flushdb|truncate|nuke|teardown|fresh)([^a-z]|$)/i;

/** The paths an archiver removes after packing them: zip -m, tar --remove-files, 7z a -sdel. */
function removedInputs(view: View): string[] | undefined {
  const { name, args } = view;
  if (name === "zip") {
    const p = parseArgs(args, new Set(["-b", "-n", "-t", "-tt", "-x", "-i", "-O", "--out", "-P", "--password", "-Z", "-s"]));
    if (!p.letters.has("m") && !p.longs.has("--move")) return undefined;
    return p.operands.slice(1);
  }
  if (name === "tar" || name === "gtar" || name === "bsdtar") {
    if (!args.includes("--remove-files")) return undefined;
    const words = args[0] !== undefined && /^[a-zA-Z]+$/.test(args[0]) ? [`-${args[0]}`, ...args.slice(1)] : [...args];
    const p = parseArgs(words, TAR_VALUES);
    const archiveGiven = p.values.some(([option]) => option === "-f" || option === "--file");
    const cluster = words[0]?.startsWith("-") && !words[0].startsWith("--") ? words[0] : "";
    return !archiveGiven && cluster.includes("f") ? p.operands.slice(1) : p.operands;
  }
  if (name === "7z" || name === "7za" || name === "7zz") {
    if (!args.includes("-sdel")) return undefined;
    const operands = args.filter((arg) => !arg.startsWith("-"));
    return operands.slice(2);
  }
  return undefined;
}

/** Programs that remove the paths they are given. */
const REMOVERS = new Set(["rm", "rimraf", "rmdir", "unlink", "shred", "trash", "srm"]);
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
  const skipTightening = index.tightening > 0;
  for (const entry of candidatesFor(index, view.name)) {
    if (exact && entry.index > exact.index) return exact;
    // An untrusted layer's rule never answers in place of a trusted one (see tighteningRule).
    if (skipTightening && entry.tightening) continue;
    if (!mayMatch(entry.needs, view)) continue;
    const rule = compiledOf(entry);
    if (matchesCommand(rule, view, true)) return rule;
  }
  return exact;
}

/**
 * The strictest rule an untrusted repository layer added that matches the command (compile.ts,
 * markTightening). Such rules only add their ask or deny to the line's answer (the strictest part of a
 * line wins): they are never the rule that answers for a command, so one cannot hide the rules a
 * trusted layer has for it (a deny, or a `runs: rest` that judges the command run).
 */
function tighteningRule(index: RuleIndex, view: View): CompiledRule | undefined {
  let best: CompiledRule | undefined;
  for (const entry of candidatesFor(index, view.name)) {
    if (!entry.tightening || !mayMatch(entry.needs, view)) continue;
    const rule = compiledOf(entry);
    if (!matchesCommand(rule, view, true)) continue;
    if (!best || strictness(rule.rule.decision as Verdict) > strictness(best.rule.decision as Verdict)) best = rule;
  }
  return best;
}

/**
 * The strictest outright decision (ask or deny) among the rules after `first` that also match the
 * command: rules are tried in order and the first one answers, but an outright ask or deny of a
 * later rule is not lost to an earlier, looser one. Only rules with a decision are looked at.
 */
function outrightAfter(index: RuleIndex, view: View, first: CompiledRule | undefined): CompiledRule | undefined {
  const floor = first?.rule.decision === "deny" ? strictness("deny") : first?.rule.decision === "ask" ? strictness("ask") : -1;
  let best: CompiledRule | undefined;
  for (const entry of candidatesFor(index, view.name)) {
    const decision = outrightOf(entry);
    if (decision === undefined || (first && entry.index <= first.index)) continue;
    if (strictness(decision) <= Math.max(floor, best ? strictness(best.rule.decision as Verdict) : -1)) continue;
    if (!mayMatch(entry.needs, view)) continue;
    const rule = compiledOf(entry);
    if (matchesCommand(rule, view, true)) best = rule;
  }
  return best;
}

/** Whether a command_exact rule's other fields hold for one command; its program may also be named as written, path left out. */
function exactHoldsFor(rule: CompiledRule, view: View): boolean {
  if (rule.where !== undefined && !inWhere(view.ctx.cwd, rule.where)) return false;
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
export function exactRule(
  index: RuleIndex,
  line: string,
  commands: readonly ExecutedCommand[],
  base: PathContext,
  probe: Probe,
): CompiledRule | undefined {
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

const VARIABLE_WORD = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * A command with the variables the line itself assigned put in (`X=rm; $X -rf ~/x`,
 * `D=build; rm -rf $D`): a value assigned once, to literal text, is known. A program named by
 * any other variable stays dynamic (unknown).
 */
function resolvedProgram(
  command: ExecutedCommand,
  assignments: Record<string, string>,
  reassigned: readonly string[] = [],
): ExecutedCommand {
  const known = (name: string) =>
    Object.hasOwn(assignments, name) && !reassigned.includes(name) && !/[$`\\]/.test(assignments[name] as string);
  if (!command.argv.some((word) => word.includes("$")) && !command.redirects.some((r) => r.target.includes("$"))) return command;
  let unresolved = false;
  const put = (word: string) =>
    word.replace(VARIABLE_WORD, (whole, braced: string | undefined, plain: string | undefined) => {
      const name = (braced ?? plain) as string;
      if (known(name)) return assignments[name] as string;
      unresolved = true;
      return whole;
    });
  const argv = command.argv.map((word) => (word.includes("$") ? put(word) : word));
  const redirects = command.redirects.map((r) =>
    r.target.includes("$") && r.op !== "<<" && r.op !== "<<<" ? { ...r, target: put(r.target) } : r,
  );
  const changedRedirects = redirects.some((r, at) => r !== command.redirects[at] && r.target !== command.redirects[at]?.target);
  if (argv.every((word, at) => word === command.argv[at]) && !changedRedirects) return command;
  if (!command.dynamic) return { ...command, argv, redirects };
  const first = command.argv[0] as string;
  // Only a program that is all one known variable is resolved; its value splits on blanks as the shell splits it.
  if (unresolved || !/^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$/.test(first))
    return { ...command, argv: [first, ...argv.slice(1)] };
  const words = (argv[0] as string).split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return command;
  const program = words[0] as string;
  return {
    ...command,
    program,
    name: program.slice(program.lastIndexOf("/") + 1) || program,
    argv: [...words, ...argv.slice(1)],
    dynamic: /[$`*?[]/.test(program),
  };
}

/** Wrappers judged on their own (sudo: anything run with it changes the machine); the rest only pass their command on. */
export function wrapperName(label: string): string | undefined {
  const name = label.split(" ")[0] as string;
  return /^[a-z][a-z0-9_.-]*$/.test(name) && !name.endsWith("()") ? name : undefined;
}

/** A wrapper (sudo, ssh) as a command of its own, without its arguments. */
export function wrapperCommand(name: string, command: ExecutedCommand): ExecutedCommand {
  const pseudo: ExecutedCommand = { program: name, name, argv: [name], env: {}, redirects: [], via: [], dynamic: false, wrapperOnly: true };
  if (command.cwd !== undefined) pseudo.cwd = command.cwd;
  return pseudo;
}

/**
 * Sees each view the engine judges, in order: every executed command (those a `runs: rest` rule
 * found included) and every wrapper it ran through. Proving a rule's examples uses it, so examples
 * are matched against exactly what the engine matches (examples.ts).
 */
type ViewObserver = (view: View, wrapper: boolean) => void;

export function answerLine(line: string, context: RuleContext, policy: LinePolicy, observe?: ViewObserver): RulesAnswer {
  const parsed = parseCommandLine(line, { cwd: context.cwd });
  if (!parsed.ok) return { parsed: false, error: parsed.error, executed: [] };
  const commands = parsed.commands;
  // node:os only when HOME is unset: loading it costs about 0.4 M instructions at every start.
  const home = (context.home ?? process.env.HOME ?? (require("node:os") as typeof import("node:os")).homedir()).replace(/(.)\/+$/, "$1");
  const assigned = ["HOME", "TMPDIR", "PWD"].filter(
    (name) => name in parsed.assignments || commands.some((c) => c.name === "export" && c.argv.some((a) => a.startsWith(`${name}=`))),
  );
  const base: PathContext = {
    cwd: context.cwd,
    projectRoot: usableProjectRoot(context.projectRoot ?? context.cwd, home),
    home,
    tmpdir: context.tmpdir ?? process.env.TMPDIR,
  };
  if (assigned.length > 0) base.overridden = new Set(assigned);
  // The disk, with the links and moves the line itself makes laid over it (moved.ts).
  const moves = new LineMoves(context.probe ?? diskProbe);
  const probe = moves.probe;
  const index = ruleIndexFor(policy);
  const labels = Object.keys(policy.acts);
  const pathTaint = taintedPath(commands, parsed.assignments);
  // Variables the line assigns (NAME=value, export NAME=value), once each, for resolving $NAME in later words.
  const assignments: Record<string, string> = { ...parsed.assignments };
  const reassigned = [...(parsed.reassigned ?? [])];
  for (const c of commands) {
    if (!["export", "declare", "typeset", "local", "readonly"].includes(c.name)) continue;
    for (const arg of c.argv.slice(1)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg);
      if (!m) continue;
      if (Object.hasOwn(assignments, m[1] as string)) reassigned.push(m[1] as string);
      assignments[m[1] as string] = m[2] as string;
    }
  }
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
  const writes = new LineWrites();
  // Aliases the line defines (alias ll='rm -rf ~/x'), by name: a later command of that name runs their text.
  const aliases = new Map<string, string>();
  // What the latest find picks, for the `{}` of its -exec commands that follow it.
  let pick: string | undefined;
  const found = (finding: Finding, command: ExecutedCommand) => {
    const hit = hitOf(finding.rule, command);
    hit.seen = finding.seen;
    judged.push({ hit, rule: finding.rule });
  };
  for (const name of parsed.recursive ?? [])
    found(
      recursion(name),
      commands[0] ?? wrapperCommand(name, { program: name, name, argv: [name], env: {}, redirects: [], via: [], dynamic: false }),
    );
  for (let i = 0; i < executed.length; i++) {
    let command = resolvedProgram(executed[i] as ExecutedCommand, assignments, reassigned);
    command = inlineRemoval(command) ?? command;
    // A database client fed literal text through a pipe (echo 'DROP TABLE x' | psql) reads it as it reads a here-string.
    if (DATABASE_CLIENTS.has(command.name) && command.stdinScript === undefined && (command.stdinFrom?.length ?? 0) > 0) {
      const feeding = (command.stdinFrom ?? []).map((at) => commands[at]);
      const texts = feeding.map((writer) => (writer === undefined ? undefined : literalOutput(writer)));
      if (texts.every((text) => text !== undefined)) command = { ...command, stdinScript: texts.join("") };
    }
    if (FIND.has(command.name) && !command.via.some((label) => label.startsWith("find -"))) pick = findPick(command);
    else if (pick !== undefined && /^find -(exec|execdir|ok|okdir)$/.test(command.via.at(-1) ?? "") && command.argv.includes("{}")) {
      const chosen = pick;
      command = { ...command, argv: command.argv.map((arg) => (arg === "{}" ? chosen : arg)) };
    }
    if (command !== executed[i]) {
      writersOf.set(command, writersOf.get(executed[i] as ExecutedCommand) ?? []);
      executed[i] = command;
    }
    const writers = writersOf.get(command) ?? [];
    const seen = viewOf(command, writers, base, probe);
    const { view } = seen;
    observe?.(view, false);
    // PATH set on this line to a folder that is not an install folder: a program named without a path may be anything there.
    const untrusted =
      seen.untrusted ??
      (pathTaint !== undefined && !command.program.includes("/") && !command.dynamic && !BUILTINS.has(command.name)
        ? `PATH is set on this line to search ${pathTaint}, so ${command.name} may not be the program of that name`
        : undefined);
    // Found after the command's own rule, so that among equally strict answers the policy's rule speaks for the line.
    const judgeCode = (code: string) => {
      if ((context.depth ?? 0) >= MAX_SCRIPT_DEPTH) return undefined;
      const inner = answerLine(code, { ...context, cwd: view.ctx.cwd ?? context.cwd, depth: (context.depth ?? 0) + 1 }, policy);
      return inner.parsed ? { verdict: inner.verdict, line: inner.line } : undefined;
    };
    const script = scriptFinding(view, context, policy, writes);
    // A line the person allowed exactly (match.command_exact) is not asked about for a script's name alone; its body still counts.
    const findings = [
      codeFromInput(view, writers, judgeCode),
      runsWrittenFile(view, writes, judgeCode),
      exact && script?.rule.rule.id === "script-named-consequential" ? undefined : script,
    ];
    // An alias the line defines is what its name runs from then on (with expand_aliases, or in an interactive
    // shell), whatever a rule knows of that name: the alias's text with the words after it is judged as the code it is.
    if (command.name === "alias" && !command.dynamic) {
      for (const arg of command.argv.slice(1)) {
        const m = /^([^=\s/$`]+)=(.*)$/s.exec(arg);
        if (m) aliases.set(m[1] as string, m[2] as string);
      }
    } else if (aliases.has(command.name) && command.program === command.name && !command.dynamic) {
      const body = `${aliases.get(command.name)} ${command.argv.slice(1).map(quoted).join(" ")}`.trim();
      const inner = judgeCode(body);
      if (inner && (inner.verdict === "ask" || inner.verdict === "deny")) {
        findings.push(
          finding(
            "alias-runs",
            "unread",
            inner.verdict === "deny" ? 3 : 2,
            1,
            `An alias defined on this line, which runs ${inner.line}`,
            `${command.name} is an alias for ${clip(body)}`,
            inner.verdict,
          ),
        );
      } else if (!inner || inner.verdict !== "allow") {
        unknown.push(command);
        unknownWhy.push(`${command.name} is an alias this line defines, for ${clip(body)}, which no rule knows as ordinary`);
      }
    }
    const rule =
      untrusted !== undefined && pathTaint !== undefined && seen.untrusted === undefined ? undefined : firstCommandRule(index, view, exact);
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
    // Archivers told to remove what they pack (zip -m, tar --remove-files, 7z -sdel) remove those paths, as rm does.
    const removed = removedInputs(view);
    if (removed && removed.length > 0 && command.via.length < 32) {
      const rm: ExecutedCommand = {
        program: "rm",
        name: "rm",
        argv: ["rm", "-rf", "--", ...removed],
        env: command.env,
        redirects: [],
        via: [...command.via, `${view.name} removes what it packs`],
        dynamic: false,
        ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
      };
      writersOf.set(rm, []);
      executed.splice(i + 1, 0, rm);
    }
    // A part the rules leave to the host (a tool no rule knows, a project's own program) whose words say it drops,
    // resets, destroys or deletes (liquibase dropAll, typeorm schema:drop, rails runner 'User.delete_all',
    // psql < 999_drop.sql) is asked about, as a script so named is. Words with blanks are text (a note, a message), not orders.
    if (!rule || partVerdict(rule.rule, labels, policy) === "pass") {
      const said = [
        ...view.args.filter((arg) => !arg.startsWith("-")),
        ...command.redirects.filter((r) => r.op === "<").map((r) => r.target.slice(r.target.lastIndexOf("/") + 1)),
      ].find((word) => !/\s/.test(word) && DESTRUCTIVE_WORD.test(word));
      if (said !== undefined)
        found(
          finding(
            "words-say-destructive",
            "delete",
            2,
            0.8,
            `A command the rules do not know, told ${clip(said)}: a word that says it drops, resets, destroys, deletes or wipes.`,
            clip(command.argv.join(" ")),
            "ask",
          ),
          command,
        );
    }
    if (rule) judged.push({ hit: hitOf(rule, command), rule });
    // Several rules may match one command: a later rule's outright ask or deny still stands (the strictest wins).
    const stricterRule = outrightAfter(index, view, rule);
    if (stricterRule) judged.push({ hit: hitOf(stricterRule, command), rule: stricterRule });
    // A rule an untrusted layer added only adds its ask or deny; it never stands in for the rule above.
    const added = index.tightening > 0 ? tighteningRule(index, view) : undefined;
    if (added) judged.push({ hit: hitOf(added, command), rule: added });
    for (const finding of findings) if (finding) found(finding, command);
    if (!rule) {
      unknown.push(command);
      unknownWhy.push(untrusted ?? `no rule knows ${command.dynamic ? "a program named by an expansion" : view.name}`);
    }
    const outs = [...outputRedirects(view), ...writeRedirects(view)];
    writes.record(view, outs);
    for (const out of outs) {
      // Permissions or ownership changed outside the project (and its temp and build folders) change the machine.
      if (out.permissions && MACHINE_CLASSES.has(out.cls)) {
        found(
          finding(
            "permissions-outside-project",
            "system",
            2,
            0.9,
            "Changes permissions or ownership outside the project, which changes the machine or the account.",
            out.seen ?? view.name,
            "ask",
          ),
          command,
        );
      }
      // A mode or owner change in the project writes no content: the redirect rules (creates, overwrites) do not apply to it.
      // (One on an unknown path still goes to them: what it changes is not known.)
      if (out.permissions && out.cls !== "unknown") continue;
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
      if (redirectRule) {
        const hit = hitOf(redirectRule, command, out.redirect);
        if (out.seen) hit.seen = out.seen;
        judged.push({ hit, rule: redirectRule });
      }
    }
    // A folder removed after the line moved something into it: what was moved goes too, judged by where it came from.
    if (REMOVERS.has(view.name)) {
      for (const word of view.args) {
        if (word.startsWith("-")) continue;
        const path = resolveWord(word, view.ctx);
        const from =
          path === undefined
            ? undefined
            : moves.movedInto(path).find((source) => !["build", "temp"].includes(classifyAbsolute(source, view.ctx)));
        if (from !== undefined)
          found(
            finding(
              "removes-what-the-line-moved",
              "delete",
              2.5,
              0.9,
              `Removes ${word}, into which this line moved ${from}: that data goes with it.`,
              clip(view.command.argv.join(" ")),
              "ask",
            ),
            command,
          );
      }
    }
    // After this command's own writes are judged: the links and moves it makes stand for the rest of the line.
    moves.record(view);
    for (const label of command.via) {
      const name = wrapperName(label);
      // A shell given code (bash -c '...') only runs that code, which was parsed and judged: the shell is no part of its own.
      if (!name || wrappersSeen.has(label) || runnerLabels.has(label) || SHELLS.has(name)) continue;
      wrappersSeen.add(label);
      const wrapperView = viewOf(wrapperCommand(name, command), [], base, probe).view;
      observe?.(wrapperView, true);
      const wrapper = firstCommandRule(index, wrapperView, exact);
      const addedForWrapper = index.tightening > 0 ? tighteningRule(index, wrapperView) : undefined;
      if (addedForWrapper) judged.push({ hit: hitOf(addedForWrapper, command), rule: addedForWrapper });
      // A wrapper no rule knows only passes its command on: it is not an unknown command.
      if (wrapper && wrapper.rule.act !== undefined) judged.push({ hit: hitOf(wrapper, command), rule: wrapper });
    }
  }

  // Secrets do not leave: a credential read anywhere on a line that sends to the network.
  const leak = secretLeak(
    executed,
    (command) => ({ ...base, cwd: expandHome(command.cwd, base.home) }),
    (command) => writersOf.get(command) ?? [],
    new Set(Object.keys(assignments)),
  );
  if (leak?.kind === "variable") {
    found(
      finding(
        "secret-variable-sent-to-network",
        "remote",
        2,
        0.9,
        `Puts ${leak.secret}, a variable whose name says it holds a secret, into what ${leak.sender} sends: check where it goes.`,
        `${leak.sender} sends ${leak.secret}`,
        "ask",
      ),
      leak.command,
    );
  } else if (leak) {
    found(
      finding(
        "credential-sent-to-network",
        "remote",
        3,
        1,
        `Reads ${leak.secret} on a line that sends to the network (${leak.sender}): that is how credentials leave the machine.`,
        `${leak.command.name} reads ${leak.secret}`,
        "deny",
      ),
      leak.command,
    );
  }

  const hits = judged.map((j) => j.hit);
  if (executed.length === 0 && judged.length === 0) {
    // Nothing executes (an empty line, a comment, an assignment): nothing to undo.
    return {
      parsed: true,
      executed: [],
      answers: answersOf(labels, "read", 1, 0, 0),
      verdict: "allow",
      line: "nothing runs",
      parts: [],
      unknown,
      unknownWhy,
      hits,
    };
  }

  // The law of the line: each executed part gets its own verdict, and the line takes the strictest,
  // in the one order of src/judge (allow < pass < ask < deny). A part no rule knows is a `pass`:
  // it can never be allowed, so neither can the line.
  const parts: PartVerdict[] = judged.map((j) => ({ hit: j.hit, verdict: partVerdict(j.rule.rule, labels, policy), rule: j.rule }));
  unknown.forEach((command, at) => parts.push({ command, verdict: "pass", why: unknownWhy[at] as string }));
  let decider = parts[0] as PartVerdict;
  for (const part of parts.slice(1)) {
    const a = strictness(part.verdict);
    const b = strictness(decider.verdict);
    // Among parts of the same verdict, the one hardest to undo speaks for the line.
    if (
      a > b ||
      (a === b &&
        part.rule !== undefined &&
        (decider.rule === undefined ? a !== strictness("pass") : harder(part.rule, decider.rule, policy)))
    )
      decider = part;
  }
  const verdict = decider.verdict;
  const said =
    decider.rule && decider.hit
      ? `${seenOf(decider.hit)}${decider.hit.reason} (rule ${decider.hit.id})`
      : `${decider.why ?? "no rule knows this command"}`;

  const decisions = judged.map((j) => j.rule.rule.decision);
  let decision: "allow" | "ask" | "deny" | undefined;
  if (decisions.includes("deny")) decision = "deny";
  else if (decisions.includes("ask")) decision = "ask";
  else if (unknown.length === 0 && decisions.every((d) => d === "allow")) decision = "allow";

  if (judged.length === 0) return { parsed: true, executed, verdict, line: said, parts, unknown, unknownWhy, hits };
  const speaker = decider.rule
    ? { hit: decider.hit as RuleHit, rule: decider.rule }
    : judged.reduce((best, j) => (harder(j.rule, best.rule, policy) ? j : best));
  const load = Math.max(...judged.map((j) => j.rule.rule.load ?? 0));
  const top = speaker.rule.rule;
  const answers = answersOf(labels, top.act, top.confidence ?? 1, top.undo, load);
  const result: RulesAnswer = { parsed: true, executed, answers, rule: speaker.hit, verdict, line: said, parts, unknown, unknownWhy, hits };
  // An outright decision stands only where it is the line's verdict (a deny or an ask always is; an allow only when every part is allowed).
  if (decision && decision === verdict) result.decision = decision;
  return result;
}

/**
 * A project script a command runs by name (npm run X, make T, just R), judged by its body through
 * this same engine, bounded in depth; a body that cannot be read, or that shows nothing to flag,
 * is asked about when its name says it deploys, releases, publishes, drops, destroys or migrates.
 */
function scriptFinding(view: View, context: RuleContext, policy: LinePolicy, writes?: LineWrites): Finding | undefined {
  const depth = context.depth ?? 0;
  if (depth >= MAX_SCRIPT_DEPTH || view.command.dynamic) return undefined;
  const call = scriptCall(view.name, view.args, view.ctx.cwd) ?? scriptFile(view);
  if (!call) return undefined;
  // The recipes come from a file this same line rewrote (echo … > package.json && npm test, npm pkg set scripts.x=…):
  // what runs is not what the disk shows.
  const rewritten =
    writes === undefined ? undefined : RECIPE_FILES.map((file) => `${call.cwd}/${file}`).find((path) => writes.madeBy(path) !== undefined);
  if (rewritten !== undefined) {
    return finding(
      "script-rewritten-on-the-line",
      "unread",
      2,
      0.95,
      `Runs ${call.label}, whose recipes come from ${rewritten.slice(rewritten.lastIndexOf("/") + 1)}, which this same line rewrote (${writes?.madeBy(rewritten)?.how}): what runs is not what the project shows.`,
      call.label,
      "ask",
    );
  }
  if (call.body !== undefined) {
    const inner = answerLine(call.body, { ...context, cwd: call.cwd, depth: depth + 1 }, policy);
    // A body the shell parser cannot read (make functions such as $(if …), a justfile's own syntax) counts as not shown: its name decides.
    if (inner.parsed && strictness(inner.verdict) >= strictness("ask")) {
      const said = inner.rule ? `${inner.rule.command.argv.slice(0, 4).join(" ")}` : "its body";
      return finding(
        "script-body",
        inner.answers?.act.choice ?? "unread",
        inner.answers?.undo.score ?? 2,
        1,
        `The script runs ${said}: ${inner.line}`,
        `${call.label}`,
        inner.verdict === "deny" ? "deny" : "ask",
      );
    }
    // A body every part of which is known and ordinary decides: `build:prod` that runs `vite build` is a build.
    if (inner.parsed && inner.verdict === "allow") return undefined;
  }
  // publishToMavenCentral, deployProd: camel-case words are words too.
  const named = call.names.find(
    (name) => CONSEQUENTIAL_NAME.test(name) || CONSEQUENTIAL_NAME.test(name.replace(/([a-z0-9])([A-Z])/g, "$1-$2")),
  );
  if (named === undefined) return undefined;
  const why = call.body === undefined ? "whose body the project does not show here" : "whose body does not show what it changes";
  return finding(
    "script-named-consequential",
    "remote",
    2,
    0.8,
    `A script ${why}, named ${named}: a name that says it deploys, releases, publishes, drops, destroys or migrates.`,
    call.label,
    "ask",
  );
}

/**
 * A script file the command runs (./scripts/release.sh, bash scripts/deploy-prod.sh), as a script
 * call: named by its file name without the extension, with its body when it is a small shell script.
 */
function scriptFile(view: View): ReturnType<typeof scriptCall> {
  const cwd = view.ctx.cwd;
  if (cwd === undefined) return undefined;
  let word: string | undefined;
  let shell = false;
  if (view.command.program.includes("/") && !SHELLS.has(view.name) && !INTERPRETERS.has(view.name)) word = view.command.program;
  else if (SHELLS.has(view.name) || INTERPRETERS.has(view.name)) {
    word = scriptOperand(view).operand;
    shell = SHELLS.has(view.name);
  }
  if (word === undefined || word.startsWith("<(") || word === "-") return undefined;
  const path = resolveWord(word, view.ctx);
  if (path === undefined) return undefined;
  const file = path.slice(path.lastIndexOf("/") + 1);
  const name = file.replace(/\.[A-Za-z0-9]+$/, "");
  const text = readSmall(path);
  const isShell =
    text !== undefined && (shell || /\.(sh|bash|zsh)$/.test(file) || /^#!.*\b(ba|z|da|k)?sh\b/.test(text)) && !text.includes("\0");
  const label = `${view.name === name || view.command.program.includes("/") ? word : `${view.name} ${word}`}`;
  // The words after the script name what it is asked to do (./gradlew publish, ./manage.py migrate, ./db.sh drop).
  // Only for the project's own scripts and files named as scripts: /tmp/git push is an unknown program, not a script named push.
  const own =
    /\.(sh|bash|zsh|py|rb|pl|js|mjs|cjs|ts|php)$/.test(file) || ["repo", "build", "project"].includes(classifyAbsolute(path, view.ctx));
  const after = own
    ? view.args.slice(view.args.indexOf(word) + 1).filter((arg) => !arg.startsWith("-") && !arg.includes("/") && !arg.includes("="))
    : [];
  return { label, names: [name, ...after], ...(isShell ? { body: text.replace(/^#!.*\n/, "") } : {}), cwd };
}

/** What a part's answer was about, to start the line the user reads: the redirection or write target it judged. */
function seenOf(hit: RuleHit): string {
  if (hit.seen) return `${clip(hit.seen)}: `;
  if (hit.redirect) return `${hit.command.name} ${hit.redirect.op} ${clip(hit.redirect.target)}: `;
  const by = hit.command.via.at(-1);
  return `${clip(hit.command.argv.join(" "))}${by ? ` (run by ${by})` : ""}: `;
}

/** A word as the shell reads it back: single-quoted unless it is plain. */
function quoted(word: string): string {
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A command's text short enough for one line: its start, and … where it was cut. */
function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length <= 80 ? flat : `${flat.slice(0, 77)}…`;
}

/** One executed part's verdict: the rule's outright decision, or the verdict math over its answers alone. */
function partVerdict(rule: CompiledRule["rule"], labels: string[], policy: LinePolicy): Verdict {
  if (rule.decision) return rule.decision;
  return commandVerdict(policy, answersOf(labels, rule.act, rule.confidence ?? 1, rule.undo, rule.load ?? 0), undefined, "rules").verdict;
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
  const ra = a.rule.decision === "deny" || a.rule.decision === "ask" ? strictness(a.rule.decision) : 0;
  const rb = b.rule.decision === "deny" || b.rule.decision === "ask" ? strictness(b.rule.decision) : 0;
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
