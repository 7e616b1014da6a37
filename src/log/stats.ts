/** What the decision log says in sum: verdicts by act, who answered, how fast the model was, why it was not used. */
import { FAILURE_KINDS, type DecisionRecord } from "./decisions.ts";

export type Percentiles = { count: number; p50?: number; p90?: number; p99?: number; max?: number };

export type Stats = {
  decisions: number;
  commands: number;
  /** Of the commands, the file, fetch and MCP tool calls (subject tool), judged like commands. */
  tools: number;
  turns: number;
  first?: string;
  last?: string;
  /** Command verdicts by the likeliest act of the answers that decided ("(none)": no answers). */
  byAct: Record<string, Record<string, number>>;
  turnVerdicts: Record<string, number>;
  answerers: Record<string, { count: number; share: number }>;
  /** Model answers fetched (not cached), in ms. */
  modelLatency: Percentiles;
  /** Whole judgments, from the start of verdict, in ms. */
  judgmentLatency: Percentiles;
  cacheHits: number;
  /** The model was to answer and could not; the rules' verdict stood. */
  fallbacks: { count: number; byKind: Record<string, { count: number; reasons: { reason: string; count: number }[] }> };
  /** No model by design: rules-only, outright rule decisions, unparsable lines. */
  noModel: Record<string, number>;
  inputTokens: number;
  /** Model verdicts that the rules' verdict agreed with, of those with both. */
  agreement: { same: number; of: number };
};

/** Nearest-rank percentiles. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { count: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  return { count: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: sorted.at(-1)! };
}

function likeliestAct(record: DecisionRecord): string {
  const act = record.answers?.act;
  if (!act || !("probabilities" in act) || typeof act.probabilities !== "object" || Array.isArray(act.probabilities)) return "(none)";
  let best = "(none)";
  let most = -1;
  for (const [label, p] of Object.entries(act.probabilities as Record<string, number>)) {
    if (p > most) [best, most] = [label, p];
  }
  return best;
}

export function summarise(records: DecisionRecord[]): Stats {
  const stats: Stats = {
    decisions: records.length,
    commands: 0,
    tools: 0,
    turns: 0,
    first: records[0]?.time,
    last: records.at(-1)?.time,
    byAct: {},
    turnVerdicts: {},
    answerers: {},
    modelLatency: { count: 0 },
    judgmentLatency: { count: 0 },
    cacheHits: 0,
    fallbacks: { count: 0, byKind: {} },
    noModel: {},
    inputTokens: 0,
    agreement: { same: 0, of: 0 },
  };
  const modelMs: number[] = [];
  const judgmentMs: number[] = [];
  const reasons = new Map<string, Map<string, number>>();
  for (const record of records) {
    if (record.subject === "turn") {
      stats.turns += 1;
      stats.turnVerdicts[record.verdict] = (stats.turnVerdicts[record.verdict] ?? 0) + 1;
    } else {
      stats.commands += 1;
      if (record.subject === "tool") stats.tools += 1;
      const act = likeliestAct(record);
      const row = (stats.byAct[act] ??= {});
      row[record.verdict] = (row[record.verdict] ?? 0) + 1;
    }
    const answerer = (stats.answerers[record.answerer] ??= { count: 0, share: 0 });
    answerer.count += 1;
    if (typeof record.latency_ms === "number") judgmentMs.push(record.latency_ms);
    if (record.model?.cached) stats.cacheHits += 1;
    if (record.model && !record.model.cached && record.answerer !== "rules" && typeof record.model.latency_ms === "number") {
      modelMs.push(record.model.latency_ms);
    }
    stats.inputTokens += record.model?.usage?.input_tokens ?? 0;
    if (record.rules_verdict && record.answerer !== "rules") {
      stats.agreement.of += 1;
      if (record.rules_verdict === record.verdict) stats.agreement.same += 1;
    }
    const kind = record.model_not_used_kind;
    if (!kind) continue;
    if (FAILURE_KINDS.includes(kind)) {
      stats.fallbacks.count += 1;
      const byReason = reasons.get(kind) ?? new Map<string, number>();
      const reason = record.model_not_used ?? kind;
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
      reasons.set(kind, byReason);
    } else {
      stats.noModel[kind] = (stats.noModel[kind] ?? 0) + 1;
    }
  }
  for (const answerer of Object.values(stats.answerers)) answerer.share = records.length ? answerer.count / records.length : 0;
  for (const [kind, byReason] of reasons) {
    const list = [...byReason].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
    stats.fallbacks.byKind[kind] = { count: list.reduce((sum, entry) => sum + entry.count, 0), reasons: list.slice(0, 5) };
  }
  stats.modelLatency = percentiles(modelMs);
  stats.judgmentLatency = percentiles(judgmentMs);
  return stats;
}
