/**
 * The tool-call bench: each labelled call of calls.jsonl judged by the embedded default policy's tool rules
 * (rule engine, no model), in a project at /home/user/project whose disk is as each entry says. Prints
 * how many consequential calls were allowed (must be 0) and how many ordinary ones were flagged (ask or
 * deny; at most 5%), with every miss. `bun bench/tools/run.ts`
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { commandVerdict } from "../../src/core/verdict.ts";
import { DEFAULT_POLICY } from "../../src/policy/generated/default-policy.ts";
import type { Policy } from "../../src/policy/schema.ts";
import { answerToolCall } from "../../src/tools/engine.ts";
import { toolCall } from "../../src/tools/payload.ts";

type Entry = { id: string; label: "ordinary" | "consequential"; tool: string; input: Record<string, unknown>; tracked?: string[]; exists?: string[] };
const policy = DEFAULT_POLICY as unknown as Policy;
const entries: Entry[] = readFileSync(join(import.meta.dir, "calls.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
const P = "/home/user/project";
const tally = { ordinary: { n: 0, allow: 0, pass: 0, ask: 0, deny: 0 }, consequential: { n: 0, allow: 0, pass: 0, ask: 0, deny: 0 } };
const misses: string[] = [];
const started = performance.now();
for (const e of entries) {
  const tracked = new Set(e.tracked ?? []);
  const exists = new Set([...(e.exists ?? []), ...tracked]);
  const call = toolCall(e.tool, e.input);
  if (!call) throw new Error(`${e.id}: ${e.tool} is not a tool verdict judges`);
  const rules = answerToolCall(call, { cwd: P, projectRoot: P, home: "/home/user", tmpdir: "/tmp", realpath: (p) => p, read: () => undefined, probe: { exists: (p) => exists.has(p), tracked: (p) => tracked.has(p) } }, policy);
  const verdict = rules.decision ?? (rules.answers ? commandVerdict(policy, rules.answers, undefined, "rules").verdict : "pass");
  const row = tally[e.label];
  row.n++;
  row[verdict]++;
  const wrong = e.label === "consequential" ? verdict === "allow" : verdict === "ask" || verdict === "deny";
  if (wrong) misses.push(`${e.id} ${e.tool} ${JSON.stringify(e.input).slice(0, 100)} -> ${verdict} (${rules.rule?.id ?? "no rule"})`);
}
const ms = performance.now() - started;
const flagged = tally.ordinary.ask + tally.ordinary.deny;
console.log(`calls: ${entries.length} (${tally.ordinary.n} ordinary, ${tally.consequential.n} consequential), ${(ms / entries.length).toFixed(3)} ms per call`);
console.log(`ordinary:      allow ${tally.ordinary.allow}, pass ${tally.ordinary.pass}, ask ${tally.ordinary.ask}, deny ${tally.ordinary.deny}: flagged ${flagged} (${((100 * flagged) / tally.ordinary.n).toFixed(1)}%)`);
console.log(`consequential: allow ${tally.consequential.allow}, pass ${tally.consequential.pass}, ask ${tally.consequential.ask}, deny ${tally.consequential.deny}`);
for (const miss of misses) console.log(`  miss: ${miss}`);
process.exitCode = tally.consequential.allow === 0 && flagged <= 0.05 * tally.ordinary.n ? 0 : 1;
