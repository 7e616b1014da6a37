// Programs that run another program: each entry knows the wrapper's options
// well enough to find where the wrapped command starts, or which argument is
// code that a shell will run. Pure functions over argv strings.

import { nameLength } from "./chars.ts";

export type Step =
  /** Not a wrapper, or a wrapper given no command: argv from this index is what runs. */
  | { k: "self" }
  /** Keep unwrapping at argv[next]. */
  | { k: "wrap"; label: string; next: number; env?: Record<string, string>; cwd?: CwdChange; xargs?: XargsInput }
  /**
   * `code` is shell code taken from the words argv[consumed], run with the given positional parameters.
   * `variants`, when present, are the code once per known argument (`parallel cmd {} ::: a b`).
   */
  | { k: "code"; label: string; code: string; consumed: number[]; positional?: string[]; env?: Record<string, string>; variants?: string[] }
  /** A shell that reads its script from standard input. */
  | { k: "stdin-shell" }
  /** argv[index] names a file whose content runs as code (`bash <(...)`, `source <(...)`): code when that content is known. */
  | { k: "script-file"; label: string; index: number }
  /** find: itself runs, and so does each -exec/-execdir/-ok segment argv[start, end). */
  | { k: "find"; segments: { label: string; start: number; end: number; ownDir: boolean }[] };

/** How xargs turns its input into arguments: split on blanks, NULs or a delimiter; replace a string, or append. */
export type XargsInput = { replace?: string; delimiter?: string; perCommand?: number; fromFile: boolean };

/** A wrapper's change of directory: a new directory text (absolute or relative), or unknown. */
export type CwdChange = { dir: string | undefined };

type OptSpec = {
  /** Short options that take an argument (attached or next word). */
  arg?: string;
  /** Short options whose argument can only be attached (`-i`, `-ifoo`). */
  attached?: string;
  /** Long options (without dashes) that take the next word when not written with `=`. */
  long?: readonly string[];
};

type Opt = { name: string; value?: string };

/** Reads options from argv[i]; returns the index of the first operand and the options seen. */
function readOptions(argv: readonly string[], i: number, end: number, spec: OptSpec): { next: number; opts: Opt[] } {
  const opts: Opt[] = [];
  let j = i;
  while (j < end) {
    const a = argv[j] as string;
    if (a === "--") return { next: j + 1, opts };
    if (a.length < 2 || a[0] !== "-") break;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
      if (eq !== -1) opts.push({ name, value: a.slice(eq + 1) });
      else if (spec.long?.includes(name)) {
        opts.push({ name, value: argv[j + 1] ?? "" });
        j++;
      } else opts.push({ name });
      j++;
      continue;
    }
    for (let c = 1; c < a.length; c++) {
      const ch = a[c] as string;
      if (spec.arg?.includes(ch)) {
        if (c + 1 < a.length) opts.push({ name: ch, value: a.slice(c + 1) });
        else {
          opts.push({ name: ch, value: argv[j + 1] ?? "" });
          j++;
        }
        break;
      }
      if (spec.attached?.includes(ch)) {
        opts.push({ name: ch, value: a.slice(c + 1) });
        break;
      }
      opts.push({ name: ch });
    }
    j++;
  }
  return { next: j, opts };
}

// Loops rather than some/filter: their first call is slow in a compiled binary.
function has(opts: readonly Opt[], ...names: string[]): boolean {
  for (const o of opts) if (names.includes(o.name)) return true;
  return false;
}

function valueOf(opts: readonly Opt[], ...names: string[]): string | undefined {
  let value: string | undefined;
  for (const o of opts) if (names.includes(o.name)) value = o.value;
  return value;
}

/** NAME=VALUE words after env/sudo options; returns the index after them. */
function readAssignments(argv: readonly string[], i: number, end: number, env: Record<string, string>): number {
  let j = i;
  for (; j < end; j++) {
    const a = argv[j] as string;
    const n = nameLength(a, 0);
    if (n === 0 || a.charCodeAt(n) !== 61 /* = */) break;
    env[a.slice(0, n)] = a.slice(n + 1);
  }
  return j;
}

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh"]);

function shell(argv: readonly string[], i: number, end: number, name: string): Step {
  let j = i + 1;
  let command = false;
  let stdin = false;
  while (j < end) {
    const a = argv[j] as string;
    if (a === "--" || a === "-") {
      j++;
      break;
    }
    if (a.length < 2 || (a[0] !== "-" && a[0] !== "+")) break;
    if (a.startsWith("--")) {
      if (a === "--rcfile" || a === "--init-file") j++;
      j++;
      continue;
    }
    const letters = a.slice(1);
    if (letters.includes("c")) command = true;
    if (letters.includes("s")) stdin = true;
    // -o NAME / -O NAME (and +o/+O) take the next word.
    if (letters.endsWith("o") || letters.endsWith("O")) j++;
    j++;
  }
  if (command) {
    if (j >= end) return { k: "self" };
    return { k: "code", label: `${name} -c`, code: argv[j] as string, consumed: [j], positional: argv.slice(j + 2, end) as string[] };
  }
  if (j < end && !stdin) return { k: "script-file", label: `${name} <file>`, index: j };
  return { k: "stdin-shell" };
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** What argv[i] (a program name, already known not to be dynamic) does with the words after it, up to argv[end). */
export function unwrapStep(argv: readonly string[], i: number, end: number): Step {
  const name = basename(argv[i] as string);
  const after = i + 1;
  const wrapIf = (next: number, label: string, extra?: { env?: Record<string, string>; cwd?: CwdChange }): Step =>
    next < end ? { k: "wrap", label, next, ...extra } : { k: "self" };
  if (SHELLS.has(name)) return shell(argv, i, end, name);
  switch (name) {
    case "sudo": {
      const { next, opts } = readOptions(argv, after, end, {
        arg: "ugpCDrtTUR",
        long: ["user", "group", "prompt", "close-from", "chdir", "role", "type", "command-timeout", "other-user", "chroot", "host"],
      });
      if (has(opts, "l", "list", "e", "edit", "v", "validate", "K", "remove-timestamp", "V", "version", "h", "help")) return { k: "self" };
      const env: Record<string, string> = {};
      const cmd = readAssignments(argv, next, end, env);
      const dir = valueOf(opts, "D", "chdir");
      return wrapIf(cmd, "sudo", dir === undefined ? { env } : { env, cwd: { dir } });
    }
    case "doas": {
      const { next, opts } = readOptions(argv, after, end, { arg: "uC" });
      if (has(opts, "C")) return { k: "self" };
      return wrapIf(next, "doas");
    }
    case "env": {
      const { next, opts } = readOptions(argv, after, end, {
        arg: "uCSP",
        long: ["unset", "chdir", "split-string"],
      });
      const env: Record<string, string> = {};
      const cmd = readAssignments(argv, next, end, env);
      const split = valueOf(opts, "S", "split-string");
      if (split !== undefined) {
        // env -S 'prog args': the string is split into words, so it is read as code.
        const rest = argv.slice(cmd, end).join(" ");
        if (split.trim() === "" && rest === "") return { k: "self" };
        return { k: "code", label: "env -S", code: rest === "" ? split : `${split} ${rest}`, consumed: range(after, end), env };
      }
      const dir = valueOf(opts, "C", "chdir");
      return wrapIf(cmd, "env", dir === undefined ? { env } : { env, cwd: { dir } });
    }
    case "command": {
      const { next, opts } = readOptions(argv, after, end, {});
      if (has(opts, "v", "V")) return { k: "self" }; // only looks the name up
      return wrapIf(next, "command");
    }
    case "builtin":
      return wrapIf(after, "builtin");
    case "exec": {
      const { next } = readOptions(argv, after, end, { arg: "a" });
      return wrapIf(next, "exec");
    }
    case "nohup":
    case "setsid":
      return wrapIf(readOptions(argv, after, end, {}).next, name);
    case "nice":
      return wrapIf(readOptions(argv, after, end, { arg: "n", long: ["adjustment"] }).next, "nice");
    case "timeout": {
      const { next } = readOptions(argv, after, end, { arg: "sk", long: ["signal", "kill-after"] });
      return wrapIf(next + 1, "timeout"); // skip the duration
    }
    case "time":
      return wrapIf(readOptions(argv, after, end, { arg: "fo", long: ["format", "output"] }).next, "time");
    case "stdbuf":
      return wrapIf(readOptions(argv, after, end, { arg: "ioe", long: ["input", "output", "error"] }).next, "stdbuf");
    case "ionice": {
      const { next, opts } = readOptions(argv, after, end, { arg: "cnpPu", long: ["class", "classdata", "pid", "pgid", "uid"] });
      if (has(opts, "p", "P", "u", "pid", "pgid", "uid")) return { k: "self" };
      return wrapIf(next, "ionice");
    }
    case "xargs": {
      const { next, opts } = readOptions(argv, after, end, {
        arg: "adEILnPs",
        attached: "eil",
        long: ["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var", "max-lines"],
      });
      const input: XargsInput = { fromFile: has(opts, "a", "arg-file") };
      const replace = valueOf(opts, "I", "i", "replace");
      if (replace !== undefined) input.replace = replace === "" ? "{}" : replace;
      if (has(opts, "0", "null")) input.delimiter = "\0";
      const delimiter = valueOf(opts, "d", "delimiter");
      if (delimiter !== undefined) input.delimiter = delimiter === "\\n" ? "\n" : delimiter === "\\t" ? "\t" : delimiter;
      const per = Number(valueOf(opts, "n", "max-args", "L", "l", "max-lines"));
      if (per > 0) input.perCommand = per;
      return next < end ? { k: "wrap", label: "xargs", next, xargs: input } : { k: "self" };
    }
    case "parallel": {
      const { next } = readOptions(argv, after, end, {
        arg: "aCdEIjJLnNPSs",
        long: [
          "arg-file", "colsep", "delimiter", "jobs", "max-args", "max-replace-args", "sshlogin", "sshloginfile",
          "workdir", "wd", "tmpdir", "results", "res", "joblog", "timeout", "retries", "delay", "halt", "memfree",
          "load", "basefile", "env", "tagstring", "sshdelay", "limit", "shebang-wrap",
        ],
      });
      let stop = next;
      while (stop < end && !/^:::[:+]*$|^::::\+?$/.test(argv[stop] as string)) stop++;
      if (stop === next) return { k: "self" };
      const step = joined(argv, "parallel", next, stop);
      if (step.k !== "code" || argv[stop] !== ":::") return step;
      // parallel CMD ::: a b: one command per argument, put in place of {} (or appended).
      let k = stop + 1;
      const variants: string[] = [];
      while (k < end && variants.length < MAX_VARIANTS && !(argv[k] as string).startsWith(":::")) {
        variants.push(withArgument(step.code, argv[k] as string));
        k++;
      }
      return variants.length > 0 ? { ...step, variants } : step;
    }
    case "watch": {
      const { next, opts } = readOptions(argv, after, end, { arg: "nq", long: ["interval"] });
      if (next >= end) return { k: "self" };
      if (has(opts, "x", "exec")) return { k: "wrap", label: "watch", next };
      return joined(argv, "watch", next, end);
    }
    case "ssh": {
      const { next } = readOptions(argv, after, end, { arg: "BbcDEeFIiJLlmOoPpQRSWw" });
      if (next + 1 >= end) return { k: "self" }; // no remote command: a login
      return joined(argv, "ssh", next + 1, end);
    }
    case "trap": {
      // trap 'code' SIGNAL...: the code runs when the signal (or EXIT) arrives.
      const code = argv[after];
      if (code === undefined || after + 1 >= end || code === "" || code === "-" || code.startsWith("-")) return { k: "self" };
      return { k: "code", label: "trap", code, consumed: [after] };
    }
    case "coproc":
    case "unbuffer":
    case "pkexec":
      return wrapIf(readOptions(argv, after, end, { long: ["user"] }).next, name);
    case "busybox":
      // busybox APPLET args: the applet is the program that runs.
      return wrapIf(after, "busybox");
    case "fakeroot":
      return wrapIf(readOptions(argv, after, end, { arg: "lsib", long: ["lib", "faked"] }).next, "fakeroot");
    case "xvfb-run":
      return wrapIf(readOptions(argv, after, end, { arg: "efnpsw", long: ["error-file", "auth-file", "server-num", "xauth-protocol", "server-args", "wait"] }).next, "xvfb-run");
    case "chroot": {
      // chroot NEWROOT [command]: without a command it starts an interactive shell.
      const { next } = readOptions(argv, after, end, {});
      return wrapIf(next + 1, "chroot", { cwd: { dir: undefined } });
    }
    case "flock": {
      // flock [options] LOCKFILE command... | flock [options] LOCKFILE -c 'code'
      const { next } = readOptions(argv, after, end, { arg: "wE", long: ["timeout", "wait", "conflict-exit-code"] });
      const c = argv[next + 1];
      if ((c === "-c" || c === "--command") && next + 2 < end) {
        return { k: "code", label: "flock -c", code: argv[next + 2] as string, consumed: [next + 2] };
      }
      return wrapIf(next + 1, "flock");
    }
    case "su":
    case "runuser": {
      // su/runuser [options] [-c COMMAND] [user]: -c runs code; runuser -u USER runs a command; otherwise a login shell.
      for (let j = after; j < end; j++) {
        const a = argv[j] as string;
        if (a === "--") break;
        if (a === "-c" || a === "--command") {
          return j + 1 < end ? { k: "code", label: `${name} -c`, code: argv[j + 1] as string, consumed: [j + 1] } : { k: "self" };
        }
        if (a.startsWith("--command=")) return { k: "code", label: `${name} -c`, code: a.slice(10), consumed: [j] };
        if (/^-[a-zA-Z]*c./.test(a) && !a.startsWith("--")) {
          return { k: "code", label: `${name} -c`, code: a.slice(a.indexOf("c") + 1), consumed: [j] };
        }
      }
      if (name === "runuser") {
        const { next, opts } = readOptions(argv, after, end, { arg: "ugGsw", long: ["user", "group", "supp-group", "shell", "whitelist-environment"] });
        if (has(opts, "u", "user")) return wrapIf(next, "runuser");
      }
      return { k: "self" };
    }
    case "source":
    case ".":
      return after < end ? { k: "script-file", label: "source", index: after } : { k: "self" };
    case "eval":
      return after < end ? joined(argv, "eval", after, end) : { k: "self" };
    case "find":
      return findSegments(argv, after, end);
    default:
      return { k: "self" };
  }
}

/** Code made of the words argv[from, to), joined with spaces as eval, ssh and watch do. */
function joined(argv: readonly string[], label: string, from: number, to: number): Step {
  return { k: "code", label, code: argv.slice(from, to).join(" "), consumed: range(from, to) };
}

/** How many commands to list for one xargs/parallel with known input: enough to show each kind of argument. */
export const MAX_VARIANTS = 16;

/** A command template with `{}` (or `{1}`) replaced by the argument, shell-quoted; appended when it has no `{}`. */
function withArgument(template: string, arg: string): string {
  const quoted = /^[A-Za-z0-9_/.,:=@%+-]+$/.test(arg) ? arg : `'${arg.split("'").join("'\\''")}'`;
  if (template.includes("{}") || template.includes("{1}")) return template.split("{}").join(quoted).split("{1}").join(quoted);
  return `${template} ${quoted}`;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let k = from; k < to; k++) out.push(k);
  return out;
}

const EXEC_ACTIONS: Record<string, { label: string; ownDir: boolean }> = {
  "-exec": { label: "find -exec", ownDir: false },
  "-execdir": { label: "find -execdir", ownDir: true },
  "-ok": { label: "find -ok", ownDir: false },
  "-okdir": { label: "find -okdir", ownDir: true },
};

function findSegments(argv: readonly string[], from: number, end: number): Step {
  const segments: { label: string; start: number; end: number; ownDir: boolean }[] = [];
  for (let j = from; j < end; j++) {
    const action = EXEC_ACTIONS[argv[j] as string];
    if (action === undefined) continue;
    let k = j + 1;
    while (k < end && !(argv[k] === ";" || (argv[k] === "+" && argv[k - 1] === "{}"))) k++;
    if (k > j + 1) segments.push({ label: action.label, start: j + 1, end: k, ownDir: action.ownDir });
    j = k;
  }
  return { k: "find", segments };
}
