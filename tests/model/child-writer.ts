/**
 * A child process for the concurrency tests: appends records to the decision
 * log, or writes entries to the answer cache, as fast as it can.
 *   bun child-writer.ts log <path> <count> <bytes> <maxBytes> <keep> <tag>
 *   bun child-writer.ts cache <dir> <count> <maxEntries> <tag>
 */
import { appendLine } from "../../src/log/append.ts";
import { readCached, writeCached } from "../../src/judge/cache.ts";

const [mode, target, countText, ...rest] = process.argv.slice(2);
const count = Number(countText);
if (mode === "log") {
  const [bytesText, maxText, keepText, tag] = rest;
  const filler = "x".repeat(Number(bytesText));
  for (let index = 0; index < count; index += 1) {
    appendLine(target!, JSON.stringify({ tag, index, filler }), { maxBytes: Number(maxText), keep: Number(keepText) });
  }
} else {
  const [maxText, tag] = rest;
  const limits = { maxEntries: Number(maxText), maxAgeMs: 60_000 };
  for (let index = 0; index < count; index += 1) {
    // Half the keys are shared by every child, half are the child's own.
    const key = index % 2 === 0 ? `shared${String(index).padStart(4, "0")}`.padEnd(64, "0") : `${tag}${index}`.padEnd(64, "1");
    writeCached(
      target!,
      {
        key,
        storedAt: Date.now(),
        provider: "jev",
        model: "m",
        answers: { act: { choice: "read", confidence: 1, probabilities: { read: 1 }, source: "model" } },
        requestIds: [tag!],
      },
      limits,
    );
    readCached(target!, key, limits);
  }
}
