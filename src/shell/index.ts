// Parses a command line into the commands that would actually execute.
// Errors are values: no input, however hostile, makes this throw.

import { Walker, WalkError } from "./extract.ts";
import { parseScript } from "./parser.ts";
import { newBudget, ParseError, position, Source } from "./source.ts";
import type { ParseResult } from "./types.ts";

export type { ExecutedCommand, ParseResult, Redirect } from "./types.ts";

/** How deeply code handed to a shell may nest (`bash -c "sh -c 'eval ...'"`) before the line is refused. */
const DEFAULT_MAX_DEPTH = 8;

export function parseCommandLine(line: string, opts?: { cwd?: string; maxDepth?: number }): ParseResult {
  const budget = newBudget(line.length);
  try {
    const list = parseScript(new Source(line, 0, budget));
    const walker = new Walker(line, opts?.maxDepth ?? DEFAULT_MAX_DEPTH, budget);
    walker.walkTop(list, opts?.cwd);
    return {
      ok: true,
      commands: walker.out,
      assignments: walker.assignments,
      ...(walker.reassigned.size > 0 ? { reassigned: [...walker.reassigned] } : {}),
      ...(walker.recursive.size > 0 ? { recursive: [...walker.recursive] } : {}),
    };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, error: `${position(line, e.pos)}: ${e.message}` };
    if (e instanceof WalkError) return { ok: false, error: e.message };
    if (e instanceof RangeError) return { ok: false, error: "command line too deeply nested to parse" };
    return { ok: false, error: `cannot parse command line: ${e instanceof Error ? e.message : String(e)}` };
  }
}
