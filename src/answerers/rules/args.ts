/**
 * A command's arguments as rules see them: its options (short clusters such
 * as -rf split into -r and -f, long options with or without =value) and its
 * operands, skipping the values of options that take one.
 */

export type ParsedArgs = {
  /** Every option as given: "-rf", "--force", "--force=yes", "-name". */
  options: string[];
  /** Single letters of short option clusters: -rf gives r and f. */
  letters: Set<string>;
  /** Long options by name, without =value: --force=yes gives --force. */
  longs: Set<string>;
  /** Arguments that are not options or option values, in order. */
  operands: string[];
  /** Where each operand is in the arguments. */
  operandAt: number[];
  /** A bare -- ended the options. */
  endOfOptions: boolean;
  /** Option values: from the next word (options that take one), after = (--x=v, -name=v), or glued (-Cdir). */
  values: [string, string][];
};

/** git's options (global and clone's) that take a value, so `git clone URL DIR` finds its URL and folder operands. */
export const GIT_CLONE_VALUES: readonly string[] = [
  "-C",
  "-c",
  "-b",
  "--branch",
  "--depth",
  "-o",
  "--origin",
  "--template",
  "--reference",
  "--separate-git-dir",
  "-j",
  "--jobs",
  "--filter",
  "--config",
];

/** Dashes that look like "-" (hyphen, en dash, minus sign...): read as "-", the cautious reading. */
const DASHES = /^[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]+/;

/** Whether a word starts with one of DASHES, tested without the regular expression: compiling it is a cold start's cost for every command (about 0.3 M instructions), and such words are rare. */
export function startsWithDash(word: string): boolean {
  const code = word.charCodeAt(0);
  return (code >= 0x2010 && code <= 0x2015) || code === 0x2212 || code === 0xfe58 || code === 0xfe63 || code === 0xff0d;
}

/**
 * Splits `args` (the words after the program name). For a program with
 * subcommands (`subcommands` set), options before the first operand are
 * global: a value option there (git -C dir) is not taken for one of the
 * subcommand's flags (git branch -C), and a `--` there only ends the global
 * options (`git -- reset --hard` still gives --hard).
 */
export function parseArgs(args: readonly string[], withValue: ReadonlySet<string>, subcommands = false): ParsedArgs {
  const parsed: ParsedArgs = {
    options: [],
    letters: new Set(),
    longs: new Set(),
    operands: [],
    operandAt: [],
    endOfOptions: false,
    values: [],
  };
  let leadingEnd = false;
  for (let i = 0; i < args.length; i++) {
    let word = args[i] as string;
    if (startsWithDash(word)) word = word.replace(DASHES, (dashes) => "-".repeat(dashes.length));
    if (parsed.endOfOptions || word.length < 2 || word[0] !== "-") {
      parsed.operands.push(word);
      parsed.operandAt.push(i);
      if (leadingEnd && parsed.operands.length === 1) {
        parsed.endOfOptions = false;
        leadingEnd = false;
      }
      continue;
    }
    if (word === "--" && subcommands && parsed.operands.length === 0) {
      leadingEnd = true;
      parsed.endOfOptions = true;
      continue;
    }
    if (word === "--") {
      parsed.endOfOptions = true;
      continue;
    }
    const global = subcommands && parsed.operands.length === 0;
    if (withValue.has(word)) {
      i++; // the next word is this option's value
      if (i < args.length) parsed.values.push([word, args[i] as string]);
      if (global) continue;
      parsed.options.push(word);
      if (word.startsWith("--")) parsed.longs.add(word);
      else if (word.length === 2) parsed.letters.add(word[1] as string);
      continue;
    }
    const eqAt = word.indexOf("=");
    if (global && eqAt !== -1 && withValue.has(word.slice(0, eqAt))) {
      parsed.values.push([word.slice(0, eqAt), word.slice(eqAt + 1)]); // git --git-dir=x
      continue;
    }
    if (global && word[1] !== "-" && withValue.has(word.slice(0, 2))) {
      parsed.values.push([word.slice(0, 2), word.slice(2)]); // git -Crepo
      continue;
    }
    parsed.options.push(word);
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      parsed.longs.add(eq === -1 ? word : word.slice(0, eq));
      if (eq !== -1) parsed.values.push([word.slice(0, eq), word.slice(eq + 1)]);
      continue;
    }
    const eq = word.indexOf("=");
    if (eq !== -1 && withValue.has(word.slice(0, eq))) {
      parsed.values.push([word.slice(0, eq), word.slice(eq + 1)]); // -name=value style
      continue;
    }
    for (let c = 1; c < word.length; c++) {
      const letter = word[c] as string;
      parsed.letters.add(letter);
      if (withValue.has(`-${letter}`)) {
        // -C dir: the value is the next word; -Cdir: the rest of the word.
        if (c === word.length - 1) {
          i++;
          if (i < args.length) parsed.values.push([`-${letter}`, args[i] as string]);
        } else parsed.values.push([`-${letter}`, word.slice(c + 1)]);
        break;
      }
    }
  }
  return parsed;
}

/**
 * Whether an option pattern is given: `-r` matches -r or a cluster holding r;
 * `--force` matches --force and --force=...; any other pattern matches an
 * option written exactly so (-delete, -exec); `--` matches the end of options.
 */
export function hasOption(parsed: ParsedArgs, pattern: string): boolean {
  if (pattern === "--") return parsed.endOfOptions;
  if (pattern.startsWith("--")) return parsed.longs.has(pattern);
  if (pattern.length === 2 && pattern[0] === "-") return parsed.letters.has(pattern[1] as string) || parsed.options.includes(pattern);
  return parsed.options.includes(pattern);
}

/** tar's options that take a value (a separate word), for reading which words are its operands. */
export const TAR_VALUES: ReadonlySet<string> = new Set([
  "-f",
  "--file",
  "-C",
  "--directory",
  "-T",
  "--files-from",
  "-X",
  "--exclude-from",
  "-b",
  "--blocking-factor",
  "-I",
  "--use-compress-program",
  "--exclude",
  "-H",
  "--format",
  "-g",
  "--listed-incremental",
  "-N",
  "--newer",
  "--owner",
  "--group",
  "--mode",
  "--transform",
  "--strip-components",
]);
