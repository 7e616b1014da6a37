/**
 * The law of the line (issue 10 §1): a line's verdict is the strictest of its
 * parts', so adding a command to a line never makes its verdict weaker:
 * v(A op B) >= max(v(A), v(B)) for ; && || and |, over random pairs of the
 * peers' labelled corpus (../shared/corpus; skipped where it is absent).
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { readCorpus } from "../../bench/corpus/run.ts";
import { strictness, type Verdict } from "../../src/core/answers.ts";
import { parseCommandLine } from "../../src/shell/index.ts";
import { judge } from "./helpers.ts";

const CORPUS = resolve(import.meta.dir, "../../../shared/corpus");
const PAIRS = 2400;

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Lines that join with another as written: one line, no comment or here-document that would swallow
 * what follows, no dangling operator. A line that moves the working directory or sets the shell's
 * state (cd, export, an assignment, a function) is left out as the first command, since it changes
 * what the second one means (`cd /tmp; rm -rf src` removes a temp folder, not the project's sources).
 */
function joinable(command: string): boolean {
  if (/[\n#]|<<|[&|;\\]\s*$/.test(command) || command.length > 300) return false;
  return parseCommandLine(command, { cwd: "/home/user/project" }).ok;
}
const SETS_STATE =
  /(^|[;&|(]\s*)(cd|pushd|popd|export|unset|set|alias|source|\.|shopt|declare|local|typeset|readonly)\b|(^|[;&|]\s*)[A-Za-z_][A-Za-z0-9_]*=|\(\)\s*\{|\bfunction\b/;
/** The right side of a pipe reads the left side's output: a shell, xargs or parallel gets its code or arguments there. */
const READS_INPUT_AS_CODE =
  /^\s*(sudo\s+)?(sh|bash|zsh|dash|ksh|fish|xargs|parallel|source|\.|eval|python[0-9.]*|node|perl|ruby|php|psql|mysql|sqlite3|mongosh|redis-cli|sudo|tee|crontab|at|batch|kubectl|docker|git|patch|ssh)\b/;

test.skipIf(!existsSync(CORPUS))(
  "adding a command to a line never makes its verdict weaker",
  () => {
    const commands = [...new Set(readCorpus(CORPUS).map((row) => row.command))].filter(joinable);
    expect(commands.length).toBeGreaterThan(5000);
    const next = random(10);
    const pick = () => commands[Math.floor(next() * commands.length)] as string;
    const alone = new Map<string, Verdict>();
    const verdictOf = (line: string) => {
      let verdict = alone.get(line);
      if (verdict === undefined) {
        verdict = judge(line).verdict;
        alone.set(line, verdict);
      }
      return verdict;
    };
    // Half the pairs join an allowed line with one that is not: where a confident ordinary part could hide another.
    const allowed: string[] = [];
    const other: string[] = [];
    for (let i = 0; i < 1500; i++) {
      const line = pick();
      (verdictOf(line) === "allow" ? allowed : other).push(line);
    }
    const weaker: string[] = [];
    let checked = 0;
    for (let i = 0; i < PAIRS; i++) {
      const mixed = i % 2 === 1 && allowed.length > 0 && other.length > 0;
      const one = mixed ? (allowed[Math.floor(next() * allowed.length)] as string) : pick();
      const two = mixed ? (other[Math.floor(next() * other.length)] as string) : pick();
      const [a, b] = next() < 0.5 ? [one, two] : [two, one];
      const op = ([";", "&&", "||", "|"] as const)[Math.floor(i / 2) % 4] as string;
      if (SETS_STATE.test(a) || (op === "|" && READS_INPUT_AS_CODE.test(b))) continue;
      const line = `${a} ${op} ${b}`;
      if (!parseCommandLine(line, { cwd: "/home/user/project" }).ok) continue;
      checked++;
      const combined = judge(line).verdict;
      const floor = Math.max(strictness(verdictOf(a)), strictness(verdictOf(b)));
      if (strictness(combined) < floor) weaker.push(`${JSON.stringify(line)}: ${combined} < ${verdictOf(a)} / ${verdictOf(b)}`);
    }
    expect(checked).toBeGreaterThan(PAIRS / 2);
    expect(weaker).toEqual([]);
  },
  30_000,
);
