/**
 * verdict log: the recent decisions, or their statistics.
 *
 *   verdict log [--tail N] [--json]    the last N decisions (default 20), oldest first
 *   verdict log --stats [--json]       verdicts by act, answerer share, model latency, fallbacks
 */
import { jsonDocument } from "./json.ts";
import { decisionLogPath } from "../log/paths.ts";
import { readDecisions, type DecisionRecord } from "../log/decisions.ts";
import { summarise, type Percentiles, type Stats } from "../log/stats.ts";
import { parseOptions } from "./args.ts";
import { usageError } from "./common.ts";

const HELP = `Usage: verdict log [--tail N] [--json] [--stats] [--self-tests]

Shows the decision log ($XDG_STATE_HOME/verdict/decisions.jsonl, default
~/.local/state/verdict/decisions.jsonl, with its rotated copies).

  --tail N   the last N decisions (default 20; 0 for all)
  --json     the records as JSON lines (with --stats: the statistics as JSON)
  --stats    verdicts by act, answerer share, model latency percentiles,
             fallbacks to the rules and their reasons
  --self-tests  include the judgments of verdict's own checks (install and
             doctor round trips), which are left out otherwise

Exit status: 0, or 2 for a usage error.`;

export async function main(argv: string[]): Promise<number> {
  const parsed = parseOptions(argv, {
    json: { type: "boolean" },
    stats: { type: "boolean" },
    "self-tests": { type: "boolean" },
    tail: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if ("error" in parsed) return usageError(parsed.error, HELP);
  if (parsed.values.help) {
    console.log(HELP);
    return 0;
  }
  if (parsed.positionals.length > 0) return usageError(`unexpected ${JSON.stringify(parsed.positionals[0])}`, HELP);
  const text = parsed.values.tail as string | undefined;
  if (text !== undefined && !/^\d+$/.test(text)) return usageError("--tail needs a whole number", HELP);
  const tail = text === undefined ? 20 : Number(text);
  const json = parsed.values.json === true;
  const stats = parsed.values.stats === true;
  const selfTests = parsed.values["self-tests"] === true;
  const read = readDecisions();
  const { skipped } = read;
  const records = selfTests ? read.records : read.records.filter((record) => !record.self_test);
  if (skipped > 0) console.error(`verdict: ${skipped} line${skipped === 1 ? "" : "s"} of the log could not be read`);
  if (stats) {
    const summary = summarise(records);
    console.log(json ? jsonDocument(summary as unknown as Record<string, unknown>, 2) : renderStats(summary));
    return 0;
  }
  const shown = tail === 0 ? records : records.slice(-tail);
  if (json) {
    for (const record of shown) console.log(jsonDocument(record as unknown as Record<string, unknown>));
    return 0;
  }
  if (shown.length === 0) {
    console.log(`no decisions yet in ${decisionLogPath()}`);
    return 0;
  }
  for (const record of shown) console.log(renderRecord(record));
  return 0;
}

function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

function renderRecord(record: DecisionRecord): string {
  const when = record.time.replace("T", " ").replace(/\.\d+Z$/, "Z");
  const where = [record.host, record.event].filter(Boolean).join("/") || "-";
  const model = record.model
    ? ` ${record.model.cached ? "cached" : `${record.model.latency_ms} ms`}${record.model.request_ids?.length ? ` ${record.model.request_ids[0]}` : ""}`
    : "";
  const head = `${when}  ${record.verdict.padEnd(5)}  ${record.answerer}${model}  ${where}`;
  const subject = record.subject === "turn" ? `turn: ${oneLine(record.text, 100)}` : `$ ${oneLine(record.text, 100)}`;
  const lines = [head, `  ${subject}`, `  ${record.line}`];
  if (record.model_not_used && record.model_not_used_kind !== "off" && !record.line.includes(record.model_not_used)) {
    lines.push(`  (${record.model_not_used})`);
  }
  return lines.join("\n");
}

function ms(value: number | undefined): string {
  return value === undefined ? "-" : `${Math.round(value)} ms`;
}

function renderPercentiles(p: Percentiles): string {
  return p.count === 0 ? "none" : `p50 ${ms(p.p50)}, p90 ${ms(p.p90)}, p99 ${ms(p.p99)}, max ${ms(p.max)} (${p.count})`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "0%" : `${Math.round((part / whole) * 100)}%`;
}

function renderStats(stats: Stats): string {
  if (stats.decisions === 0) return `no decisions yet in ${decisionLogPath()}`;
  const out: string[] = [];
  out.push(
    `${stats.decisions} decisions (${stats.commands} commands${stats.tools > 0 ? `, ${stats.tools} of them tool calls` : ""}, ${stats.turns} turn ends), ${stats.first} to ${stats.last}`,
  );
  out.push("");
  out.push("Command verdicts by act:");
  const verdicts = ["allow", "pass", "ask", "deny"];
  out.push(`  ${"act".padEnd(10)}${verdicts.map((verdict) => verdict.padStart(7)).join("")}`);
  for (const [act, row] of Object.entries(stats.byAct).sort((a, b) => a[0].localeCompare(b[0]))) {
    out.push(`  ${act.padEnd(10)}${verdicts.map((verdict) => String(row[verdict] ?? 0).padStart(7)).join("")}`);
  }
  if (stats.turns > 0) {
    out.push(
      `Turn ends: ${Object.entries(stats.turnVerdicts)
        .map(([verdict, count]) => `${verdict} ${count}`)
        .join(", ")}`,
    );
  }
  out.push("");
  out.push(
    `Answerers: ${Object.entries(stats.answerers)
      .sort((a, b) => b[1].count - a[1].count)
      .map(([name, { count }]) => `${name} ${count} (${percent(count, stats.decisions)})`)
      .join(", ")}`,
  );
  out.push(`Model latency: ${renderPercentiles(stats.modelLatency)}; cache hits ${stats.cacheHits}`);
  out.push(`Judgment latency: ${renderPercentiles(stats.judgmentLatency)}`);
  if (stats.inputTokens > 0) out.push(`Input tokens: ${stats.inputTokens}`);
  if (stats.agreement.of > 0)
    out.push(
      `Rules agreed with the model: ${stats.agreement.same} of ${stats.agreement.of} (${percent(stats.agreement.same, stats.agreement.of)})`,
    );
  out.push("");
  out.push(`Fallbacks to the rules: ${stats.fallbacks.count}${stats.fallbacks.count ? "" : " (none)"}`);
  for (const [kind, { count, reasons }] of Object.entries(stats.fallbacks.byKind).sort((a, b) => b[1].count - a[1].count)) {
    out.push(`  ${kind}: ${count}`);
    for (const { reason, count: times } of reasons) out.push(`    ${times} × ${oneLine(reason, 110)}`);
  }
  const none = Object.entries(stats.noModel);
  if (none.length > 0) out.push(`No model by design: ${none.map(([kind, count]) => `${kind} ${count}`).join(", ")}`);
  return out.join("\n");
}
