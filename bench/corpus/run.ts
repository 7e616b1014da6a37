/**
 * Replays the labelled corpus of peer projects (../shared/corpus, see its
 * README) through the rule engine in-process, on the embedded default
 * policy, and reports per source and per slice:
 *   consequential allowed  rows a source labels block that verdict allows (the number that matters most)
 *   flagged                block rows that verdict asks about or denies
 *   ordinary flagged       allow rows that verdict asks about or denies
 * A block row verdict passes (no opinion) is neither allowed nor flagged.
 *
 *   npx bun bench/corpus/run.ts [--corpus DIR] [--policy FILE] [--json]
 *        [--list allowed|flagged|passed] [--slice hard|approval|conditional] [--source NAME]
 */
import { join, resolve } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { answerCommandByRules } from "../../src/answerers/rules.ts";
import { loadPolicy } from "../../src/policy/index.ts";
import type { Policy } from "../../src/policy/schema.ts";

export type Row = { command: string; expect: "block" | "allow"; source: string; note: string; file: string };
export type Slice = "hard" | "approval" | "conditional";

/** The project every row is judged in (pi's tests fix this cwd; the others state none). */
export const PROJECT = "/home/user/projects/demo";
export const HOME = "/home/user";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

/** The slice a row belongs to (README "Recommended slices"). */
export function sliceOf(row: Row): Slice {
  const orig = row.note.split(" | ")[0] ?? "";
  const cond = row.note.includes("cond=");
  const source = row.file.replace(/\.jsonl$/, "");
  if (source === "pi-prevent-destructive-commands")
    return /cond=cwd=[^|]*$|cond=cwd=[^|]*\|/.test(row.note) && !row.note.includes("env=") ? "hard" : "conditional";
  if (cond) return "conditional";
  switch (source) {
    case "dcg":
    case "safety-net":
      return "hard";
    case "longline":
      return orig === "orig=deny" || orig === "orig=allow" ? "hard" : "approval";
    case "dcg-go":
      return orig === "orig=Deny" || orig === "orig=Allow" ? "hard" : "approval";
    case "codex":
      return orig.startsWith("orig=command_might_be_dangerous") || orig === "orig=is_known_safe_command=true" ? "hard" : "approval";
    default:
      return "approval";
  }
}

export function readCorpus(dir: string): Row[] {
  const rows: Row[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      rows.push({ ...(JSON.parse(line) as Omit<Row, "file">), file });
    }
  }
  return rows;
}

export type Outcome = "allow" | "pass" | "ask" | "deny";

/** The verdict the rule engine's answers give, memory left out (the corpus is not run on a loaded machine). */
export function judge(row: Row, policy: Policy): { verdict: Outcome; rule?: string; why: string } {
  const answer = answerCommandByRules(row.command, { cwd: PROJECT, projectRoot: PROJECT, home: HOME, tmpdir: "/tmp" }, policy);
  if (!answer.parsed) return { verdict: "ask", why: `cannot parse: ${answer.error}` };
  return { verdict: answer.verdict, rule: answer.rule?.id, why: answer.line };
}

type Tally = {
  block: number;
  blockAllowed: number;
  blockFlagged: number;
  blockPassed: number;
  allow: number;
  allowFlagged: number;
  allowAllowed: number;
  allowPassed: number;
};
const empty = (): Tally => ({
  block: 0,
  blockAllowed: 0,
  blockFlagged: 0,
  blockPassed: 0,
  allow: 0,
  allowFlagged: 0,
  allowAllowed: 0,
  allowPassed: 0,
});

function add(t: Tally, row: Row, verdict: Outcome) {
  const flagged = verdict === "ask" || verdict === "deny";
  if (row.expect === "block") {
    t.block++;
    if (verdict === "allow") t.blockAllowed++;
    else if (flagged) t.blockFlagged++;
    else t.blockPassed++;
  } else {
    t.allow++;
    if (flagged) t.allowFlagged++;
    else if (verdict === "allow") t.allowAllowed++;
    else t.allowPassed++;
  }
}

const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);

function table(title: string, tallies: Map<string, Tally>): string {
  const lines = [
    `### ${title}`,
    "",
    "| source | block rows | consequential allowed | flagged | passed | allow rows | ordinary flagged | allowed | passed |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [name, t] of tallies) {
    lines.push(
      `| ${name} | ${t.block} | ${t.blockAllowed} (${pct(t.blockAllowed, t.block)}) | ${t.blockFlagged} (${pct(t.blockFlagged, t.block)}) | ${t.blockPassed} | ${t.allow} | ${t.allowFlagged} (${pct(t.allowFlagged, t.allow)}) | ${t.allowAllowed} (${pct(t.allowAllowed, t.allow)}) | ${t.allowPassed} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const dir = resolve(import.meta.dir, "../..", option("--corpus") ?? "../shared/corpus");
  const loaded = loadPolicy({ cwd: PROJECT, file: option("--policy"), only: [] });
  if (!loaded.ok) {
    console.error(loaded.error.message);
    process.exit(2);
  }
  const policy = loaded.loaded.policy;
  const rows = readCorpus(dir);
  const list = option("--list");
  const onlySlice = option("--slice");
  const onlySource = option("--source");
  const bySlice = new Map<string, Map<string, Tally>>();
  const started = performance.now();
  const listed: string[] = [];
  for (const row of rows) {
    const slice = sliceOf(row);
    const source = row.file.replace(/\.jsonl$/, "");
    const result = judge(row, policy);
    const tallies = bySlice.get(slice) ?? new Map<string, Tally>();
    bySlice.set(slice, tallies);
    for (const key of [source, "all"]) {
      const t = tallies.get(key) ?? empty();
      tallies.set(key, t);
      add(t, row, result.verdict);
    }
    if (list && (!onlySlice || onlySlice === slice) && (!onlySource || onlySource === source)) {
      const flagged = result.verdict === "ask" || result.verdict === "deny";
      const show =
        (list === "allowed" && row.expect === "block" && result.verdict === "allow") ||
        (list === "flagged" && row.expect === "allow" && flagged) ||
        (list === "passed" && result.verdict === "pass") ||
        (list === "block-passed" && row.expect === "block" && result.verdict === "pass");
      if (show)
        listed.push(
          `${source}\t${result.verdict}\t${result.rule ?? "-"}\t${JSON.stringify(row.command)}\t${row.note.slice(0, 140)}\t${result.why.slice(0, 120)}`,
        );
    }
  }
  const ms = performance.now() - started;
  if (list) {
    console.log(listed.join("\n"));
    console.error(`${listed.length} rows`);
    process.exit(0);
  }
  if (args.includes("--json")) {
    console.log(JSON.stringify(Object.fromEntries([...bySlice].map(([slice, t]) => [slice, Object.fromEntries(t)])), null, 2));
  } else {
    console.log(
      `corpus ${dir}: ${rows.length} rows judged in ${ms.toFixed(0)} ms (${((ms * 1000) / rows.length).toFixed(0)} µs a row), policy ${loaded.loaded.digest}\n`,
    );
    for (const slice of ["hard", "approval", "conditional"]) {
      const tallies = bySlice.get(slice);
      if (!tallies) continue;
      const all = tallies.get("all")!;
      tallies.delete("all");
      tallies.set("all", all);
      console.log(`${table(`${slice} slice`, tallies)}\n`);
    }
  }
}
