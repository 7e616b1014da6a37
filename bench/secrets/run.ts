/**
 * The redactor measured: recall on the labelled secret set, false positives on its near-misses, and
 * time against input length on hostile shapes (it must stay linear). Figures go to docs/secrets.md.
 *
 *   npx bun bench/secrets/run.ts
 */
import { redact } from "../../src/core/redact.ts";
import { NEAR_MISSES, SECRETS } from "../../tests/secrets/labelled.ts";

const byClass = new Map<string, { total: number; caught: number }>();
for (const c of SECRETS) {
  const entry = byClass.get(c.class) ?? { total: 0, caught: 0 };
  entry.total++;
  if (!redact(c.text).includes(c.secret)) entry.caught++;
  else console.log(`MISSED ${c.class}: ${c.text}`);
  byClass.set(c.class, entry);
}
const caught = [...byClass.values()].reduce((sum, e) => sum + e.caught, 0);
console.log(`recall: ${caught}/${SECRETS.length} (${((100 * caught) / SECRETS.length).toFixed(1)}%) over ${byClass.size} classes`);
for (const [name, e] of [...byClass].sort()) console.log(`  ${name.padEnd(20)} ${e.caught}/${e.total}`);

const changed = NEAR_MISSES.filter((c) => redact(c.text) !== c.text);
console.log(`false positives: ${changed.length}/${NEAR_MISSES.length} near-misses changed`);
for (const c of changed) console.log(`  ${c.kind}: ${c.text} -> ${redact(c.text)}`);

const shapes: [string, (n: number) => string][] = [
  [
    "realistic command line",
    (n) => "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 curl -u a:b https://x/ ".repeat(Math.ceil(n / 80)).slice(0, n),
  ],
  ["one long word", (n) => "A".repeat(n)],
  ["names without values", (n) => "TOKEN_".repeat(n / 6)],
  ["unterminated quotes after names", (n) => 'TOKEN="x '.repeat(n / 9)],
  ["jwt-like heads", (n) => "-eyJaaaaaaaaaa".repeat(n / 14)],
  ["schemes without hosts", (n) => "a://b:".repeat(n / 6)],
  ["mysql -p repeated", (n) => "mysql -p".repeat(n / 8)],
];
console.log("\ntime (ms) by input size");
console.log(`  ${"shape".padEnd(34)} ${["10 KB", "100 KB", "1 MB", "10 MB"].map((s) => s.padStart(8)).join(" ")}`);
for (const [name, make] of shapes) {
  const cells: string[] = [];
  for (const size of [10_000, 100_000, 1_000_000, 10_000_000]) {
    const text = make(size);
    const started = performance.now();
    redact(text);
    cells.push((performance.now() - started).toFixed(1).padStart(8));
  }
  console.log(`  ${name.padEnd(34)} ${cells.join(" ")}`);
}
