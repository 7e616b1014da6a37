/**
 * Code that will run, seen across a line rather than in one command:
 * - a shell or an interpreter reading its code from a pipe, a process
 *   substitution or /dev/stdin (`base64 -d | sh`, `sh -s < <(curl …)`,
 *   `bash <(curl …)`): code nobody has read;
 * - a file written earlier on the same line (a download, a clone, an
 *   unpacked archive, a redirect) and then run, sourced or handed to an
 *   interpreter;
 * - a self-recursive function (a fork bomb), which the parser reports.
 * Each finding is judged like a rule's answer, by a rule of its own made
 * here (the engine's findings are not the policy's to switch off), and
 * decides outright: a model reading the line cannot see the code either.
 */
import type { Rule } from "../../policy/schema.ts";
import type { ExecutedCommand } from "../../shell/index.ts";
import { GIT_CLONE_VALUES, parseArgs } from "./args.ts";
import type { CompiledRule } from "./compile.ts";
import type { OutputRedirect, View } from "./match.ts";
import { resolveWord } from "./paths.ts";

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "busybox"]);
export const INTERPRETERS = new Set([
  "python",
  "python2",
  "python3",
  "node",
  "nodejs",
  "perl",
  "ruby",
  "php",
  "lua",
  "Rscript",
  "julia",
  "pwsh",
  "osascript",
  "tclsh",
  "deno",
  "bun",
]);
const SOURCE = new Set(["source", "."]);
/** Programs that run a project's own recipes or install scripts from the folder they run in. */
const RUNNERS = new Set([
  "make",
  "gmake",
  "just",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "mvn",
  "gradle",
  "bundle",
  "rake",
  "composer",
  "cmake",
  "meson",
  "ninja",
  "./configure",
  "configure",
]);
/** Programs whose output is code or data decoded from something unreadable. */
const NETWORK = new Set([
  "curl",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "fetch",
  "http",
  "https",
  "xh",
  "aria2c",
  "ssh",
  "scp",
  "telnet",
  "openssl",
  "gh",
  "aws",
  "gsutil",
]);

/** Options of shells and interpreters that take a value (so the script operand is found where they find it). */
const SHELL_VALUES = new Set(["-o", "-O", "+o", "+O", "--rcfile", "--init-file"]);
const INTERPRETER_VALUES = new Set([
  "-W",
  "-X",
  "-m",
  "-M",
  "-I",
  "-r",
  "--require",
  "--import",
  "--loader",
  "--experimental-loader",
  "-C",
  "-x",
  "-d",
  "-D",
  "--inspect",
  "--config",
  "-A",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--env-file",
  "--title",
]);

export type Finding = { rule: CompiledRule; seen: string };

export function finding(
  id: string,
  act: string,
  undo: number,
  confidence: number,
  reason: string,
  seen: string,
  decision?: "ask" | "deny",
): Finding {
  const rule = { id, match: {}, act, undo, load: 0, confidence, reason, ...(decision ? { decision } : {}) } as unknown as Rule;
  return { rule: { rule, index: -1, withValue: new Set(), withValueKey: "" }, seen };
}

/** Where a shell or interpreter takes its code from: a script operand, or standard input. */
export function scriptOperand(view: View): { operand?: string; stdin: boolean } {
  const shell = SHELLS.has(view.name);
  const parsed = parseArgs(view.args, shell ? SHELL_VALUES : INTERPRETER_VALUES);
  let operands = parsed.operands;
  // deno run X, bun run X, bun X: the script comes after the subcommand.
  if ((view.name === "deno" || view.name === "bun") && (operands[0] === "run" || operands[0] === "x")) operands = operands.slice(1);
  else if (view.name === "deno" || view.name === "bun") return { stdin: false };
  // -c: the code is an argument (the parser read it); -n: only checks the syntax, runs nothing.
  if (shell && (parsed.letters.has("c") || parsed.letters.has("i") || parsed.letters.has("n"))) return { stdin: false };
  if (!shell && [..."ceEp"].some((letter) => parsed.letters.has(letter))) return { stdin: false };
  if (!shell && parsed.longs.has("--eval")) return { stdin: false };
  // python -m json.tool: the module is the program; what it reads is data.
  if (!shell && parsed.values.some(([option]) => option === "-m")) return { stdin: false };
  const operand = operands[0];
  if (shell && parsed.letters.has("s")) return { stdin: true };
  if (
    operand === undefined ||
    operand === "-" ||
    operand === "/dev/stdin" ||
    /^\/dev\/fd\/\d+$/.test(operand) ||
    operand.startsWith("<(")
  ) {
    return { operand, stdin: operand === undefined || operand === "-" || operand === "/dev/stdin" };
  }
  return { operand, stdin: false };
}

/**
 * A shell or interpreter whose code arrives at run time from a pipe, a process substitution or
 * /dev/stdin: nobody has read it. `writers` are the programs whose output reaches its input.
 */
export function codeFromInput(
  view: View,
  writers: readonly ExecutedCommand[],
  judgeCode?: (code: string) => { verdict: string; line: string } | undefined,
): Finding | undefined {
  const { name } = view;
  const isSource = SOURCE.has(name);
  if (!SHELLS.has(name) && !INTERPRETERS.has(name) && !isSource) return undefined;
  const substituted = view.args.find((arg) => arg.startsWith("<("));
  const fromFile = view.command.redirects.find((r) => r.op === "<" && r.target.startsWith("<("));
  const source = substituted ?? fromFile?.target;
  if (isSource) {
    if (!source && !view.args.some((arg) => arg === "/dev/stdin")) return undefined;
  } else {
    const script = scriptOperand(view);
    const piped = view.command.stdinFrom !== undefined && view.command.stdinScript === undefined;
    // A shell inside >( ) reads what the command around it writes there (curl … > >(sh)).
    const fromSubstitution = view.command.via.at(-1) === ">( )";
    const fromInput = script.stdin && (piped || fromFile !== undefined || fromSubstitution);
    if (!fromInput && !(script.operand?.startsWith("<(") ?? false)) return undefined;
  }
  // Code the line itself shows (cat <<EOF | python3, echo '…' | node): read, not unread; the interpreter's own rule judges it.
  if (!source && writers.length > 0 && writers.every((writer) => literalOutput(writer) !== undefined)) return undefined;
  const from =
    source ??
    (writers.length > 0
      ? [...writers]
          .reverse()
          .map((w) => w.argv.slice(0, 2).join(" "))
          .join(" | ")
      : "its standard input");
  const network = source ? /\b(curl|wget|nc|fetch|http|aria2c)\b/.test(source) : writers.some((w) => NETWORK.has(w.name));
  const seen = `${view.command.argv.slice(0, 3).join(" ")} runs code from ${from}`;
  if (network)
    return finding("code-from-network", "unread", 3, 1, "Runs code fetched from the network, which nobody has read.", seen, "deny");
  // echo BASE64 | base64 -d | sh: the line shows the encoded text, so what it decodes to is judged too.
  const decoded = judgeCode && SHELLS.has(view.name) ? decodedLiteral(writers) : undefined;
  const judged = decoded === undefined ? undefined : judgeCode?.(decoded);
  if (judged && judged.verdict === "deny")
    return finding(
      "code-from-input",
      "unread",
      3,
      1,
      `Runs decoded code, which runs ${judged.line}`,
      `${seen}, which decodes to ${JSON.stringify(decoded?.trim().slice(0, 60))}`,
      "deny",
    );
  return finding(
    "code-from-input",
    "unread",
    2,
    0.9,
    "Runs code that arrives at run time (decoded, piped or substituted), which nobody has read.",
    seen,
    "ask",
  );
}

/** The text `echo LITERAL | base64 -d` writes, when the line shows it. */
function decodedLiteral(writers: readonly ExecutedCommand[]): string | undefined {
  const [decoder, source] = writers;
  if (writers.length !== 2 || decoder === undefined || source === undefined) return undefined;
  if (decoder.name !== "base64" || !decoder.argv.slice(1).some((arg) => arg === "-d" || arg === "--decode" || arg === "-D"))
    return undefined;
  const text = literalOutput(source);
  if (text === undefined || !/^[A-Za-z0-9+/=\s]+$/.test(text)) return undefined;
  const decoded = Buffer.from(text.replace(/\s+/g, ""), "base64").toString("utf8");
  return /^[\x09\x0a\x0d\x20-\x7e]*$/.test(decoded) ? decoded : undefined;
}

/** What a command writes that a later command could run: paths and folders, by how they were written. */
export class LineWrites {
  /** Each write; `content` when the line itself shows every byte written (cat > f <<EOF, echo '…' > f). */
  private readonly written: { path: string; how: string; content?: string }[] = [];

  /** Records the writes of one command: its redirects and option writes (already resolved), and what it fetches or unpacks. */
  record(view: View, outs: readonly OutputRedirect[]): void {
    for (const out of outs) {
      if (out.path === undefined) continue;
      const content = out.seen === undefined && (out.op === ">" || out.op === ">|") ? literalOutput(view.command) : undefined;
      this.written.push({
        path: out.path,
        how: out.seen ?? `${view.name} ${out.redirect.op} ${out.redirect.target}`,
        ...(content === undefined ? {} : { content }),
      });
    }
    const implied = impliedWrite(view) ?? this.unpacked(view);
    if (implied) {
      const path = resolveWord(implied.word, view.ctx);
      if (path !== undefined) this.written.push({ path, how: implied.how });
    }
  }

  /** The write a path was made by, when it is a file written earlier or inside a folder written earlier; the latest write wins. */
  madeBy(path: string): { how: string; content?: string } | undefined {
    for (let i = this.written.length - 1; i >= 0; i--) {
      const w = this.written[i] as { path: string; how: string; content?: string };
      if (path === w.path) return w;
      if (path.startsWith(`${w.path}/`)) return { how: w.how };
    }
    return undefined;
  }

  /** An archive written earlier on the line, unpacked into the working directory (or -C/-d DIR): all of that folder may be its files. */
  private unpacked(view: View): { word: string; how: string } | undefined {
    const { name, args } = view;
    const tar = name === "tar" || name === "gtar" || name === "bsdtar";
    if (!tar && name !== "unzip") return undefined;
    const words = tar && args[0] !== undefined && /^[a-zA-Z]+$/.test(args[0]) ? [`-${args[0]}`, ...args.slice(1)] : [...args];
    if (tar && !words.some((w) => /^-[a-zA-Z]*x/.test(w) || w === "--extract")) return undefined;
    const parsed = parseArgs(words, new Set(tar ? ["-f", "--file", "-C", "--directory"] : ["-d", "-x", "-P"]));
    let archive = tar ? parsed.values.find(([option]) => option === "-f" || option === "--file")?.[1] : parsed.operands[0];
    // tar xzf ARCHIVE: the cluster's f takes the next word.
    if (tar && archive === undefined && /^-[a-zA-Z]*f[a-zA-Z]*$/.test(words[0] ?? "")) archive = parsed.operands[0];
    if (archive === undefined || archive === "-") return undefined;
    const path = resolveWord(archive, view.ctx);
    const made = path === undefined ? undefined : this.madeBy(path);
    if (!made) return undefined;
    const into = parsed.values.find(([option]) => option === "-C" || option === "--directory" || option === "-d")?.[1] ?? ".";
    return { word: into, how: `${name} of ${archive} (written by ${made.how})` };
  }

  get empty(): boolean {
    return this.written.length === 0;
  }
}

/** What a command prints when the line shows all of it: cat of a here-document, echo or printf of literal words. */
export function literalOutput(command: ExecutedCommand): string | undefined {
  if (command.dynamic || command.stdinFrom !== undefined) return undefined;
  const args = command.argv.slice(1);
  if (args.some((arg) => /[$`]/.test(arg))) return undefined;
  if (command.name === "cat" && args.length === 0 && command.stdinScript !== undefined) return command.stdinScript;
  if (command.name === "echo" && !args.some((arg) => arg.startsWith("-"))) return `${args.join(" ")}\n`;
  if (command.name === "printf" && args.length === 1 && !(args[0] as string).includes("%"))
    return (args[0] as string).replace(/\\n/g, "\n");
  return undefined;
}

const RUNS_GIT_VALUES: ReadonlySet<string> = new Set(GIT_CLONE_VALUES);

/** A file or folder a command creates without naming it as an option: git clone's folder, wget's or curl -O's file. */
function impliedWrite(view: View): { word: string; how: string } | undefined {
  const { name, args } = view;
  if (name === "git") {
    const parsed = parseArgs(args, RUNS_GIT_VALUES, true);
    const at = parsed.operands.indexOf("clone");
    if (at === -1) return undefined;
    const url = parsed.operands[at + 1];
    const dir =
      parsed.operands[at + 2] ??
      (url
        ? url
            .replace(/\/+$/, "")
            .replace(/\.git$/, "")
            .split(/[/:]/)
            .pop()
        : undefined);
    return dir ? { word: dir, how: `git clone ${url}` } : undefined;
  }
  if (
    name === "wget" ||
    ((name === "curl" || name === "curlie") &&
      args.some((arg) => arg === "-O" || arg === "--remote-name" || /^-[a-zA-Z]*O[a-zA-Z]*$/.test(arg)))
  ) {
    if (name === "wget" && args.some((arg) => /^(-O|--output-document)/.test(arg) || /^-[a-zA-Z]*O/.test(arg))) return undefined;
    const url = args.find((arg) => /^(https?|ftp):\/\//.test(arg));
    const file = url
      ?.replace(/[?#].*$/, "")
      .split("/")
      .pop();
    return file ? { word: file, how: `${name} ${url}` } : undefined;
  }
  return undefined;
}

/**
 * The file a command runs, sources or hands to an interpreter, when a command earlier on the line
 * wrote it: a download, a clone, an unpacked archive, a redirect.
 */
export function runsWrittenFile(
  view: View,
  writes: LineWrites,
  judgeCode: (code: string) => { verdict: string; line: string } | undefined,
): Finding | undefined {
  if (writes.empty) return undefined;
  const shell = SHELLS.has(view.name) || SOURCE.has(view.name);
  const candidates: { word: string; shell: boolean }[] = [];
  if (view.command.program.includes("/")) candidates.push({ word: view.command.program, shell: true });
  if (SHELLS.has(view.name) || INTERPRETERS.has(view.name)) {
    const { operand } = scriptOperand(view);
    if (operand !== undefined) candidates.push({ word: operand, shell });
  }
  if (SOURCE.has(view.name) && view.args[0] !== undefined) candidates.push({ word: view.args[0], shell: true });
  // A project's own runner in a folder this line fetched (git clone x && cd x && make): its recipes and install scripts.
  if (RUNNERS.has(view.name) && view.ctx.cwd !== undefined) {
    // ...or pointed at one (make -C DIR, npm --prefix DIR, pip install DIR, cargo --manifest-path DIR/Cargo.toml).
    const pointed = view.args
      .map((arg) => arg.replace(/^--?[\w-]+=/, ""))
      .find(
        (arg) =>
          !arg.startsWith("-") &&
          /[/.]/.test(arg) &&
          !/^[a-z][\w+.-]*:\/\//i.test(arg) &&
          writes.madeBy(resolveWord(arg, view.ctx) ?? "\0") !== undefined,
      );
    const made =
      writes.madeBy(view.ctx.cwd) ?? (pointed === undefined ? undefined : writes.madeBy(resolveWord(pointed, view.ctx) as string));
    if (made)
      return finding(
        "runs-file-written-on-the-line",
        "unread",
        2,
        0.95,
        "Runs a project's build or install scripts in a folder this same line fetched: code nobody has read.",
        `${view.command.argv.slice(0, 3).join(" ")} in ${view.ctx.cwd}, written by ${made.how}`,
        "ask",
      );
  }
  for (const candidate of candidates) {
    const path = resolveWord(candidate.word, view.ctx);
    if (path === undefined) continue;
    const made = writes.madeBy(path);
    if (!made) continue;
    const seen = `${view.command.argv.slice(0, 2).join(" ")} runs ${candidate.word}, written by ${made.how}`;
    if (made.content !== undefined) {
      // The line shows the code it wrote: shell code is judged as code; another language is left to the interpreter's own rule (never allowed).
      if (!candidate.shell) return undefined;
      const judged = judgeCode(made.content);
      if (judged === undefined || judged.verdict === "ask" || judged.verdict === "deny") {
        return finding(
          "runs-file-written-on-the-line",
          "unread",
          2,
          0.95,
          `Runs a script this same line wrote, which runs ${judged?.line ?? "code that cannot be parsed"}`,
          seen,
          judged?.verdict === "deny" ? "deny" : "ask",
        );
      }
      return undefined;
    }
    return finding(
      "runs-file-written-on-the-line",
      "unread",
      2,
      0.95,
      "Runs a file that this same line wrote (downloaded, cloned, unpacked or redirected): code nobody has read.",
      seen,
      "ask",
    );
  }
  return undefined;
}

/** A function that calls itself (a fork bomb among them): it can fill the machine with processes. */
export function recursion(name: string): Finding {
  return finding(
    "self-recursive-function",
    "system",
    2,
    0.95,
    "A function that calls itself, as a fork bomb does, can fill the machine with processes until it stops answering.",
    `${name}() calls itself`,
    "ask",
  );
}
