// Parser state shared by the command and word parsers, and the limits that
// keep hostile input (10 MB lines, thousands of nested `$(`) from hanging or
// overflowing the stack: every such input ends as a ParseError, which the
// public entry point turns into an error value.

/** Thrown inside the parser only; `parseCommandLine` catches it and returns `{ ok: false }`. */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

/** Deepest syntactic nesting accepted ($( inside $( inside ..., or nested compounds). Bash scripts written by hand stay far below. */
const NEST_LIMIT = 150;
/** Most simple commands one line may hold; more is not a command an assistant types. */
export const COMMAND_LIMIT = 20_000;
/** Most words one line may hold (a 100 KB line of short words stays below); bounds the work on lines like `eval eval eval ...`. */
export const WORD_LIMIT = 200_000;

/** Counters shared by a line and every piece of code re-parsed from it, so the bounds hold for the whole line. */
export type Budget = {
  commands: number;
  words: number;
  backtrack: number;
  backtrackMax: number;
  /** Characters of argument text made with known positional parameters (`$1`, `"$@"` in a function body), and their bound. */
  expanded: number;
  expandedMax: number;
};

type PendingHeredoc = { delim: string; strip: boolean; quoted: boolean; fill: (body: string) => void };

export class Source {
  pos = 0;
  depth: number;
  pending: PendingHeredoc[] = [];
  /** How many `$(` are open: inside one, a here-document may end at a line like `EOF)`. */
  substDepth = 0;
  constructor(
    readonly text: string,
    depth: number,
    readonly budget: Budget,
  ) {
    this.depth = depth;
  }

  fail(message: string, at: number = this.pos): never {
    throw new ParseError(message, at);
  }

  enter(): void {
    if (++this.depth > NEST_LIMIT) this.fail(`nesting deeper than ${NEST_LIMIT} levels`);
  }

  leave(): void {
    this.depth--;
  }

  peek(off = 0): string {
    return this.text.charAt(this.pos + off);
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
}

export function newBudget(textLength: number): Budget {
  return {
    commands: 0,
    words: 0,
    backtrack: 0,
    backtrackMax: 4 * textLength + 100_000,
    expanded: 0,
    expandedMax: 16 * textLength + (1 << 20),
  };
}

/** "line:col" of an offset, 1-based, for error messages. */
export function position(text: string, pos: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(pos, text.length);
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${line}:${end - lineStart + 1}`;
}
