// Compact views of parse results so each test states its full expectation in one line.
import { expect } from "bun:test";
import { type ExecutedCommand, parseCommandLine } from "../../src/shell/index.ts";

export function commands(line: string, opts?: { cwd?: string; maxDepth?: number }): ExecutedCommand[] {
  const r = parseCommandLine(line, opts);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(line)} to parse, got: ${r.error}`);
  return r.commands;
}

/** argv of every executed command, in order. */
export function argvs(line: string, opts?: { cwd?: string }): string[][] {
  return commands(line, opts).map((c) => c.argv);
}

/** "via > via: argv joined by spaces" per command, a readable exact summary. */
export function summary(line: string, opts?: { cwd?: string }): string[] {
  return commands(line, opts).map((c) => `${c.via.length > 0 ? `${c.via.join(" > ")}: ` : ""}${c.argv.join(" ")}`);
}

export function names(line: string): string[] {
  return commands(line).map((c) => c.name);
}

export function expectError(line: string, message?: RegExp): string {
  const r = parseCommandLine(line);
  expect(r.ok).toBe(false);
  if (r.ok) return "";
  if (message !== undefined) expect(r.error).toMatch(message);
  return r.error;
}
