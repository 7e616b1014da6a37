// Programs that run another program: each entry knows the wrapper's options
// well enough to find where the wrapped command starts, or which argument is
// code that a shell will run. Pure functions over argv strings.

import { nameLength } from "./chars.ts";

export type Step =
  /** Not a wrapper, or a wrapper given no command: argv from this index is what runs. */
  | { k: "self" }
  /**
   * Keep unwrapping at argv[next]. `keep`: the wrapper is also listed itself, with its full argv
   * (`docker exec`, `kubectl exec`: what it does on its own matters to rules, like find's).
   */
  | { k: "wrap"; label: string; next: number; env?: Record<string, string>; cwd?: CwdChange; xargs?: XargsInput; keep?: boolean }
  /**
   * `code` is shell code taken from the words argv[consumed], run with the given positional parameters.
   * `variants`, when present, are the code once per known argument (`parallel cmd {} ::: a b`).
   */
  | {
      k: "code";
      label: string;
      code: string;
      consumed: number[];
      positional?: string[];
      env?: Record<string, string>;
      variants?: string[];
      keep?: boolean;
    }
  /**
   * A shell that reads its script from standard input. `remote`: the shell is a remote login
   * shell (`ssh host <<EOF`), listed under that label before the stdin label.
   */
  | { k: "stdin-shell"; remote?: string }
  /**
   * GNU parallel with no `:::` source: it reads one argument per input item from standard input
   * (items split on `delimiter`, default newline). `template` is the command words joined
   * (undefined: each item is itself a command); `replace` is the replacement string.
   */
  | { k: "parallel-stdin"; template?: string; consumed: number[]; delimiter: string; replace: string }
  /** argv[index] names a file whose content runs as code (`bash <(...)`, `source <(...)`): code when that content is known. */
  | { k: "script-file"; label: string; index: number }
  /** find: itself runs, and so does each -exec/-execdir/-ok segment argv[start, end). */
  | { k: "find"; segments: { label: string; start: number; end: number; ownDir: boolean }[] };

/** How xargs turns its input into arguments: split on blanks, NULs or a delimiter; replace a string, or append. */
export type XargsInput = {
  replace?: string;
  /** BSD `-J replstr`: the items take the place of the first argument equal to replstr (not per line, unlike -I). */
  insert?: string;
  delimiter?: string;
  perCommand?: number;
  fromFile: boolean;
};

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
    case "git":
      return gitRuns(argv, after, end);
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
      // `env -` is the old spelling of `env -i`: a lone `-` after the options is not the command.
      const cmd = readAssignments(argv, argv[next] === "-" ? next + 1 : next, end, env);
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
        arg: "adEIJLnPRsS",
        attached: "eil",
        long: ["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var", "max-lines"],
      });
      const input: XargsInput = { fromFile: has(opts, "a", "arg-file") };
      const replace = valueOf(opts, "I", "i", "replace");
      if (replace !== undefined) input.replace = replace === "" ? "{}" : replace;
      const insert = valueOf(opts, "J");
      if (insert !== undefined && insert !== "") input.insert = insert;
      if (has(opts, "0", "null")) input.delimiter = "\0";
      const delimiter = valueOf(opts, "d", "delimiter");
      if (delimiter !== undefined) input.delimiter = delimiter === "\\n" ? "\n" : delimiter === "\\t" ? "\t" : delimiter;
      const per = Number(valueOf(opts, "n", "max-args", "L", "l", "max-lines"));
      if (per > 0) input.perCommand = per;
      return next < end ? { k: "wrap", label: "xargs", next, xargs: input } : { k: "self" };
    }
    case "parallel":
      return parallel(argv, after, end);
    case "watch": {
      const { next, opts } = readOptions(argv, after, end, { arg: "nq", long: ["interval"] });
      if (next >= end) return { k: "self" };
      if (has(opts, "x", "exec")) return { k: "wrap", label: "watch", next };
      return joined(argv, "watch", next, end);
    }
    case "ssh": {
      const { next, opts } = readOptions(argv, after, end, { arg: "BbcDEeFIiJLlmOoPpQRSWw" });
      // -n: standard input is /dev/null; -N: no remote command; -s: a subsystem, not a command.
      if (next >= end || has(opts, "n", "N", "s")) return { k: "self" };
      // No remote command: a login shell, which runs what standard input gives it (`ssh host <<EOF`).
      if (next + 1 >= end) return { k: "stdin-shell", remote: "ssh" };
      return joined(argv, "ssh", next + 1, end);
    }
    case "docker":
    case "podman":
    case "nerdctl":
    case "docker-compose":
      return containerExec(argv, after, end, name);
    case "kubectl":
    case "oc":
      return kubectlExec(argv, after, end, name);
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
      return wrapIf(
        readOptions(argv, after, end, {
          arg: "efnpsw",
          long: ["error-file", "auth-file", "server-num", "xauth-protocol", "server-args", "wait"],
        }).next,
        "xvfb-run",
      );
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
        const { next, opts } = readOptions(argv, after, end, {
          arg: "ugGsw",
          long: ["user", "group", "supp-group", "shell", "whitelist-environment"],
        });
        if (has(opts, "u", "user")) return wrapIf(next, "runuser");
      }
      return { k: "self" };
    }
    case "script": {
      // script [options] -c COMMAND [file]: the command is shell code run in a new terminal session.
      for (let j = after; j < end; j++) {
        const a = argv[j] as string;
        if (a === "--") break;
        if (a === "-c" || a === "--command")
          return j + 1 < end ? { k: "code", label: "script -c", code: argv[j + 1] as string, consumed: [j + 1] } : { k: "self" };
        if (a.startsWith("--command=")) return { k: "code", label: "script -c", code: a.slice(10), consumed: [j] };
        if (/^-[a-zA-Z]*c$/.test(a))
          return j + 1 < end ? { k: "code", label: "script -c", code: argv[j + 1] as string, consumed: [j + 1] } : { k: "self" };
      }
      // BSD script [-q] [file [command ...]]: a command after the file runs in the session.
      const { next } = readOptions(argv, after, end, {
        arg: "tTFEIOBm",
        long: ["timing", "log-io", "log-in", "log-out", "log-timing", "echo", "logging-format", "output-limit"],
      });
      return next + 1 < end ? wrapIf(next + 1, "script") : { k: "self" };
    }
    case "tmux": {
      // tmux [global options] new-session|new-window|split-window|respawn-*|run-shell|display-popup [options] [shell-command]:
      // the command is shell code tmux runs in its own session, after this line has ended.
      const global = readOptions(argv, after, end, { arg: "LSfcT" });
      const sub = argv[global.next];
      if (sub === "send-keys" || sub === "send") {
        // The keys are typed into a shell in that session: the words, less key names such as Enter, are code.
        const { next } = readOptions(argv, global.next + 1, end, { arg: "NtT" });
        const keys = argv.slice(next, end).filter((key) => !/^(Enter|C-m|C-j|KPEnter|Escape|Tab|Space|BSpace|C-[a-z])$/.test(key));
        return keys.length > 0 ? { k: "code", label: "tmux send-keys", code: keys.join(" "), consumed: range(next, end) } : { k: "self" };
      }
      const values = sub === undefined ? undefined : TMUX_COMMAND_OPTIONS[sub];
      if (values === undefined) return { k: "self" };
      const { next } = readOptions(argv, global.next + 1, end, { arg: values });
      return next < end ? { k: "code", label: "tmux", code: argv.slice(next, end).join(" "), consumed: range(next, end) } : { k: "self" };
    }
    case "screen": {
      // screen [options] [command [args]]: the command runs in a new (often detached) session; -r/-x/-ls only attach or list.
      const { next, opts } = readOptions(argv, after, end, { arg: "SchpsTtXel", long: ["Logfile"] });
      if (has(opts, "r", "R", "x", "ls", "list", "wipe", "X", "Q", "v", "version", "help")) return { k: "self" };
      return wrapIf(next, "screen");
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

/**
 * git subcommands that run a command they are given: `submodule foreach CMD…` and `bisect run CMD…`
 * (the words, as code or as a command), `rebase --exec|-x CMD` and `difftool|mergetool -x|--extcmd CMD`
 * (a string of code). git is listed too (keep): the rebase or the bisect is a part of its own.
 */
function gitRuns(argv: readonly string[], after: number, end: number): Step {
  // git's own options before the subcommand: -C DIR, -c K=V, --git-dir DIR and the like.
  let j = after;
  while (j < end && (argv[j] as string).startsWith("-")) {
    const a = argv[j] as string;
    j += ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"].includes(a) ? 2 : 1;
  }
  const sub = argv[j];
  if (sub === undefined) return { k: "self" };
  const words = argv.slice(j + 1, end) as string[];
  if (sub === "submodule") {
    const at = words.indexOf("foreach");
    if (at === -1) return { k: "self" };
    let k = at + 1;
    while (k < words.length && (words[k] as string).startsWith("-")) k++;
    return k < words.length
      ? { k: "code", label: "git submodule foreach", code: words.slice(k).join(" "), consumed: range(j + 2 + k, end), keep: true }
      : { k: "self" };
  }
  if (sub === "bisect" && words[0] === "run")
    return j + 2 < end ? { k: "wrap", label: "git bisect run", next: j + 2, keep: true } : { k: "self" };
  const options = sub === "rebase" ? ["--exec", "-x"] : sub === "difftool" || sub === "mergetool" ? ["--extcmd", "-x"] : [];
  if (options.length === 0) return { k: "self" };
  const code: string[] = [];
  const consumed: number[] = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    const eq = w.indexOf("=");
    if (options.includes(w) && k + 1 < words.length) {
      code.push(words[k + 1] as string);
      consumed.push(j + 2 + k);
      k++;
    } else if (eq !== -1 && options.includes(w.slice(0, eq))) {
      code.push(w.slice(eq + 1));
      consumed.push(j + 1 + k);
    }
  }
  return code.length > 0 ? { k: "code", label: `git ${sub}`, code: code.join("\n"), consumed, keep: true } : { k: "self" };
}

/** Code made of the words argv[from, to), joined with spaces as eval, ssh and watch do. */
/** tmux commands that run a shell command, and the letters of their options that take a value. */
const TMUX_COMMAND_OPTIONS: Record<string, string> = {
  new: "cefFnstxy",
  "new-session": "cefFnstxy",
  neww: "cefFnt",
  "new-window": "cefFnt",
  splitw: "cefFlpt",
  "split-window": "cefFlpt",
  respawnp: "cet",
  "respawn-pane": "cet",
  respawnw: "cet",
  "respawn-window": "cet",
  run: "dt",
  "run-shell": "dt",
  popup: "bcdehsStTwxy",
  "display-popup": "bcdehsStTwxy",
};

function joined(argv: readonly string[], label: string, from: number, to: number): Step {
  return { k: "code", label, code: argv.slice(from, to).join(" "), consumed: range(from, to) };
}

/** How many commands to list for one xargs/parallel with known input: enough to show each kind of argument. */
export const MAX_VARIANTS = 16;

/** Shell-quotes an argument that needs it, as GNU parallel does with the values it puts in a command. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(arg) ? arg : `'${arg.split("'").join("'\\''")}'`;
}

/** GNU parallel's replacement strings: {} {.} {/} {//} {/.} and {N} {N.} ... for the N-th input source. */
const PARALLEL_REPL = /\{(\d*)(\.|\/\/|\/\.|\/)?\}/g;

function replacementValue(args: readonly string[], n: string, mod: string | undefined): string {
  let v = n === "" ? args.join(" ") : (args[Number(n) - 1] ?? "");
  if (mod === "/" || mod === "/.") v = v.slice(v.lastIndexOf("/") + 1);
  if (mod === "//") v = v.lastIndexOf("/") === -1 ? "." : v.slice(0, v.lastIndexOf("/")) || "/";
  if (mod === "." || mod === "/.") {
    const dot = v.lastIndexOf(".");
    if (dot > v.lastIndexOf("/") + 1) v = v.slice(0, dot);
  }
  return shellQuote(v);
}

/**
 * One job's command: the template with its replacement strings filled (shell-quoted), or with the
 * arguments appended when it has none; without a template the arguments are the command.
 */
export function parallelJob(template: string | undefined, args: readonly string[], replace: string): string {
  if (template === undefined) return args.join(" ");
  let used = false;
  let out = template;
  if (replace !== "{}") {
    if (out.includes(replace)) {
      used = true;
      out = out.split(replace).join(shellQuote(args.join(" ")));
    }
  } else {
    out = out.replace(PARALLEL_REPL, (_, n: string, mod: string | undefined) => {
      used = true;
      return replacementValue(args, n, mod);
    });
  }
  if (used) return out;
  let appended = out;
  for (const a of args) appended += ` ${shellQuote(a)}`;
  return appended;
}

/**
 * GNU parallel: `parallel [opts] [command] ::: a b ::: c d` runs the command once per combination
 * of the input sources' arguments (`:::+` pairs with the source before it); with no command, the
 * arguments are commands themselves. `::::` and `-a` read files: their arguments are unknown.
 */
function parallel(argv: readonly string[], after: number, end: number): Step {
  const { next, opts } = readOptions(argv, after, end, {
    arg: "aCdEIjJLnNPSs",
    long: [
      "arg-file",
      "colsep",
      "delimiter",
      "jobs",
      "max-args",
      "max-replace-args",
      "sshlogin",
      "sshloginfile",
      "workdir",
      "wd",
      "tmpdir",
      "results",
      "res",
      "joblog",
      "timeout",
      "retries",
      "delay",
      "halt",
      "memfree",
      "load",
      "basefile",
      "env",
      "tagstring",
      "sshdelay",
      "limit",
      "shebang-wrap",
      "replace",
    ],
  });
  let stop = next;
  while (stop < end && !isSourceSeparator(argv[stop] as string)) stop++;
  const template = stop > next ? argv.slice(next, stop).join(" ") : undefined;
  const replace = valueOf(opts, "I", "replace") || "{}";
  if (stop >= end) {
    // No ::: source: arguments come from standard input, or from a file (-a), or are piped whole (--pipe).
    if (has(opts, "a", "arg-file", "pipe", "pipepart"))
      return template === undefined ? { k: "self" } : joined(argv, "parallel", next, stop);
    const d = valueOf(opts, "d", "delimiter");
    const delimiter = has(opts, "0", "null") ? "\0" : d === undefined || d === "\\n" ? "\n" : d === "\\t" ? "\t" : d;
    return { k: "parallel-stdin", ...(template === undefined ? {} : { template }), consumed: range(next, stop), delimiter, replace };
  }
  const combos = parallelCombinations(argv, stop, end, has(opts, "link", "xapply"));
  if (combos === undefined) return template === undefined ? { k: "self" } : joined(argv, "parallel", next, stop);
  if (combos.length === 0) return template === undefined ? { k: "self" } : joined(argv, "parallel", next, stop);
  const variants: string[] = [];
  for (const args of combos) variants.push(parallelJob(template, args, replace));
  // Without a template the arguments are whole commands: parallel is listed too, with them (`parallel ::: 'rm -rf x'`).
  return { k: "code", label: "parallel", code: variants[0] as string, consumed: range(next, end), variants, keep: template === undefined };
}

function isSourceSeparator(a: string): boolean {
  return a === ":::" || a === ":::+" || a === "::::" || a === "::::+";
}

/**
 * The argument lists of the jobs, first source outermost; undefined when a source is a file
 * (`::::`) or there are more than MAX_VARIANTS jobs (then the rule engine sees the template alone,
 * with arguments it knows are unknown, rather than a list missing some of them).
 */
function parallelCombinations(argv: readonly string[], from: number, end: number, linkAll: boolean): string[][] | undefined {
  const blocks: string[][][] = [];
  let k = from;
  while (k < end) {
    const sep = argv[k] as string;
    if (sep.startsWith("::::")) return undefined;
    const args: string[] = [];
    k++;
    while (k < end && !isSourceSeparator(argv[k] as string)) args.push(argv[k++] as string);
    // A source longer than the jobs listed cannot be listed whole.
    if (args.length > MAX_VARIANTS) return undefined;
    const last = blocks[blocks.length - 1];
    if ((sep === ":::+" || linkAll) && last !== undefined) {
      // Linked sources go together, pair by pair (extra arguments are dropped); rows grow in place, linear in argv.
      if (args.length < last.length) last.length = args.length;
      for (let r = 0; r < last.length; r++) (last[r] as string[]).push(args[r] as string);
    } else {
      const rows: string[][] = [];
      for (const a of args) rows.push([a]);
      blocks.push(rows);
    }
  }
  let combos: string[][] = [[]];
  for (const rows of blocks) {
    if (combos.length * rows.length > MAX_VARIANTS) return undefined;
    const nextCombos: string[][] = [];
    for (const c of combos) for (const r of rows) nextCombos.push([...c, ...r]);
    combos = nextCombos;
  }
  return blocks.length === 0 ? [] : combos;
}

/** `docker exec [opts] CONTAINER cmd...` (and `docker container exec`, `docker compose exec SERVICE cmd`): cmd runs in the container. */
function containerExec(argv: readonly string[], after: number, end: number, name: string): Step {
  const legacy = name === "docker-compose";
  let k = legacy
    ? after - 1
    : readOptions(argv, after, end, { arg: "Hcl", long: ["host", "context", "config", "log-level", "tlscacert", "tlscert", "tlskey"] })
        .next;
  let label = `${name} exec`;
  if (argv[k] === "container" && argv[k + 1] === "exec") k += 2;
  else if (legacy || argv[k] === "compose") {
    const compose = readOptions(argv, k + 1, end, {
      arg: "fp",
      long: ["file", "project-name", "profile", "env-file", "project-directory", "ansi", "parallel", "progress"],
    });
    if (argv[compose.next] !== "exec") return { k: "self" };
    k = compose.next + 1;
    label = legacy ? "docker-compose exec" : `${name} compose exec`;
  } else if (argv[k] === "exec") k++;
  else return { k: "self" };
  const { next, opts } = readOptions(argv, k, end, { arg: "euw", long: ["env", "env-file", "user", "workdir", "detach-keys", "index"] });
  const cmd = next + 1; // after the container (or service)
  if (cmd >= end) return { k: "self" };
  const env: Record<string, string> = {};
  for (const o of opts) {
    if ((o.name === "e" || o.name === "env") && o.value !== undefined) readAssignments([o.value], 0, 1, env);
  }
  return { k: "wrap", label, next: cmd, env, cwd: { dir: valueOf(opts, "w", "workdir") }, keep: true };
}

/** `kubectl exec [opts] POD [-c C] -- cmd...` (and the old form without `--`): cmd runs in the pod. */
function kubectlExec(argv: readonly string[], after: number, end: number, name: string): Step {
  const spec: OptSpec = {
    arg: "ncfs",
    long: [
      "namespace",
      "container",
      "context",
      "kubeconfig",
      "cluster",
      "user",
      "server",
      "filename",
      "pod-running-timeout",
      "request-timeout",
    ],
  };
  const global = readOptions(argv, after, end, spec);
  if (argv[global.next] !== "exec") return { k: "self" };
  for (let j = global.next + 1; j < end; j++) {
    if (argv[j] === "--")
      return j + 1 < end ? { k: "wrap", label: `${name} exec`, next: j + 1, cwd: { dir: undefined }, keep: true } : { k: "self" };
  }
  // Old form: kubectl exec POD cmd... (options may come before the pod).
  const { next } = readOptions(argv, global.next + 1, end, spec);
  return next + 1 < end ? { k: "wrap", label: `${name} exec`, next: next + 1, cwd: { dir: undefined }, keep: true } : { k: "self" };
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
