/**
 * Names the shell syntax in a command line that a runner without a shell
 * cannot honour, so a refusal can tell the model what to send instead. It
 * reads quoting only (single, double, backslash); what runs is decided by
 * the project's shell parser, this only finds words to put in the reason.
 */

type Construct = { what: string; text: string; advice: string };

const SPLIT = "send each command as its own tool call and combine the results yourself";

/** The first construct in `line` that an argument-vector runner would not honour, if any. */
export function findShellSyntax(line: string): Construct | undefined {
  let quote: "'" | '"' | "$'" | undefined;
  let wordStart = true;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    const next = line[i + 1];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      continue;
    }
    if (quote === "$'") {
      if (ch === "\\") i++;
      else if (ch === "'") quote = undefined;
      continue;
    }
    if (ch === "\\") {
      i++;
      wordStart = false;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === "$" && next !== undefined && /[A-Za-z_{(0-9@*#?!$-]/.test(next)) return expansion(line, i);
      else if (ch === "`") return { what: "a command substitution", text: "`", advice: `${SPLIT}; pass the output as a literal argument` };
      continue;
    }
    if (ch === "$" && next === "'") {
      quote = "$'";
      i++;
      wordStart = false;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      wordStart = false;
      continue;
    }
    if (ch === " " || ch === "\t") {
      wordStart = true;
      continue;
    }
    if (ch === "#" && wordStart) return undefined; // a comment: the rest is not part of the command
    const found = operator(line, i, wordStart);
    if (found) return found;
    wordStart = false;
  }
  return undefined;
}

function operator(line: string, i: number, wordStart: boolean): Construct | undefined {
  const ch = line[i]!;
  const two = line.slice(i, i + 2);
  switch (ch) {
    case "|":
      return two === "||"
        ? { what: "a list (||)", text: "||", advice: SPLIT }
        : {
            what: "a pipe (|)",
            text: two === "|&" ? "|&" : "|",
            advice: `${SPLIT}; to filter output, use the program's own options (for example rg PATTERN FILE)`,
          };
    case "&":
      if (two === "&&") return { what: "a list (&&)", text: "&&", advice: SPLIT };
      if (two === "&>") return redirection("&>");
      return { what: "a background job (&)", text: "&", advice: "run the command in the foreground; each call's time limit bounds it" };
    case ";":
      return { what: "a list (;)", text: ";", advice: SPLIT };
    case "\n":
      return { what: "several lines", text: "\\n", advice: SPLIT };
    case ">":
    case "<":
      return redirection(line.slice(i, i + (line[i + 1] === ch || line[i + 1] === "&" || line[i + 1] === "|" ? 2 : 1)));
    case "(":
    case ")":
      return { what: "a subshell or grouping", text: ch, advice: SPLIT };
    case "`":
      return { what: "a command substitution", text: "`", advice: `${SPLIT}; pass the output as a literal argument` };
    case "$":
      return line[i + 1] === undefined ? undefined : expansion(line, i);
    case "*":
    case "?":
      return glob(ch);
    case "[":
      return line.indexOf("]", i + 1) > i ? glob("[") : undefined;
    case "{":
      return /^\{[^{}\s]*(,|\.\.)[^{}\s]*\}/.test(line.slice(i))
        ? { what: "a brace expansion", text: "{…}", advice: "write each argument out in full" }
        : undefined;
    case "~":
      return wordStart
        ? { what: "a tilde expansion (~)", text: "~", advice: "write the path out in full, or relative to the working directory" }
        : undefined;
    default:
      if (/[0-9]/.test(ch) && wordStart) {
        const m = /^[0-9]+(>>|>&|>|<&|<>|<)/.exec(line.slice(i));
        if (m) return redirection(m[0]);
      }
      return undefined;
  }
}

function redirection(text: string): Construct {
  if (text.startsWith("<")) {
    return {
      what: `an input redirection (${text})`,
      text,
      advice: "name the file as an argument instead (most tools read a file they are given)",
    };
  }
  return {
    what: `an output redirection (${text})`,
    text,
    advice:
      "the runner captures output itself; to write a file, use a command that takes the file as an argument (cp, tee FILE, touch, sed -i)",
  };
}

function expansion(line: string, i: number): Construct {
  const next = line[i + 1];
  if (next === "(") {
    return line[i + 2] === "("
      ? { what: "an arithmetic expansion ($((…)))", text: "$((", advice: "compute the value and pass it as a literal argument" }
      : { what: "a command substitution ($(…))", text: "$(", advice: `${SPLIT}; pass the output as a literal argument` };
  }
  const name = /^\$(\{[^}]*\}?|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?!$-])/.exec(line.slice(i))?.[0] ?? "$";
  return { what: `a parameter expansion (${name})`, text: name, advice: "the runner passes words literally; write the value itself" };
}

function glob(ch: string): Construct {
  return {
    what: `a glob pattern (${ch})`,
    text: ch,
    advice: "the runner passes words literally; list the files first (ls) and name each one",
  };
}
