import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { cacheKey, cwdKind, pruneCache, readCached, writeCached, type CacheEntry } from "../../src/judge/cache.ts";
import { appendLine } from "../../src/log/append.ts";
import { readDecisions } from "../../src/log/decisions.ts";
import { percentiles, summarise } from "../../src/log/stats.ts";
import { tempDir } from "./helpers.ts";

const CHILD = join(import.meta.dir, "child-writer.ts");

function entry(key: string, storedAt = Date.now()): CacheEntry {
  return {
    key,
    storedAt,
    provider: "jev",
    model: "jev-1.13.0",
    answers: { act: { choice: "read", confidence: 1, probabilities: { read: 1 }, source: "model" } },
    requestIds: ["r1"],
  };
}

async function children(args: string[][]): Promise<void> {
  const procs = args.map((rest) => Bun.spawn([process.execPath, CHILD, ...rest], { stdout: "ignore", stderr: "pipe" }));
  const codes = await Promise.all(procs.map((proc) => proc.exited));
  for (const [index, proc] of procs.entries()) {
    if (codes[index] !== 0) throw new Error(`child ${index} failed: ${await new Response(proc.stderr).text()}`);
  }
}

describe("answer cache", () => {
  const limits = { maxEntries: 50, maxAgeMs: 60_000 };

  test("a key covers the command, the directory's kind, the policy digest and the model", () => {
    const base = {
      subject: "command" as const,
      text: "rm -rf build",
      cwdKind: "project-root",
      policyDigest: "p1",
      provider: "jev",
      model: "jev-1.13.0",
      endpoint: "u",
    };
    const keys = new Set([
      cacheKey(base),
      cacheKey({ ...base, text: "rm -rf dist" }),
      cacheKey({ ...base, cwdKind: "home" }),
      cacheKey({ ...base, policyDigest: "p2" }),
      cacheKey({ ...base, model: "jev-1.14.0" }),
    ]);
    expect(keys.size).toBe(5);
    expect(cacheKey(base)).toBe(cacheKey({ ...base }));
  });

  test("the working directory's kind", () => {
    const env = { HOME: "/home/dev", TMPDIR: "/tmp" };
    expect(cwdKind("/home/dev/app", "/home/dev/app", env)).toBe("project-root");
    expect(cwdKind("/home/dev/app/src", "/home/dev/app", env)).toBe("in-project");
    expect(cwdKind("/home/dev", undefined, env)).toBe("home");
    expect(cwdKind("/home/dev/notes", undefined, env)).toBe("in-home");
    expect(cwdKind("/tmp/x", undefined, env)).toBe("temp");
    expect(cwdKind("/etc/nginx", undefined, env)).toBe("system");
    expect(cwdKind("/", undefined, env)).toBe("root");
    expect(cwdKind("/srv2/x", undefined, env)).toBe("other");
  });

  test("an entry is read back until it is older than max age, and never under another key", () => {
    const dir = tempDir();
    const key = "a".repeat(64);
    writeCached(dir, entry(key), limits);
    expect(readCached(dir, key, limits)?.answers.act).toBeDefined();
    expect(readCached(dir, key, limits, Date.now() + 61_000)).toBeUndefined();
    expect(readCached(dir, "b".repeat(64), limits)).toBeUndefined();
    expect(readCached(dir, key, { ...limits, maxEntries: 0 })).toBeUndefined();
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test("pruning keeps the newest max_entries and drops expired entries and stale temporary files", () => {
    const dir = tempDir();
    for (let index = 0; index < 20; index += 1) {
      const key = String(index).padEnd(64, "0");
      writeCached(dir, entry(key), { maxEntries: 1000, maxAgeMs: 1_000_000 });
      const seconds = Date.now() / 1000 - 100 + index;
      utimesSync(join(dir, `${key.slice(0, 40)}.json`), seconds, seconds);
    }
    writeFileSync(join(dir, ".old.1.x.tmp"), "{");
    utimesSync(join(dir, ".old.1.x.tmp"), Date.now() / 1000 - 120, Date.now() / 1000 - 120);
    pruneCache(dir, { maxEntries: 5, maxAgeMs: 1_000_000 }, Date.now(), true);
    const left = readdirSync(dir).sort();
    expect(left.length).toBe(5);
    expect(left).toContain(`${String(19).padEnd(64, "0").slice(0, 40)}.json`);
    pruneCache(dir, { maxEntries: 5, maxAgeMs: 10 }, Date.now() + 100_000, true);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("concurrent writers and readers: every entry whole, the bound kept", async () => {
    const dir = tempDir();
    await children(Array.from({ length: 6 }, (_, index) => ["cache", dir, "60", "40", `c${index}`]));
    const names = readdirSync(dir);
    expect(names.filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const entries = names.filter((name) => name.endsWith(".json"));
    // Pruning runs after each write, so the bound can be passed only by the writes in flight.
    expect(entries.length).toBeLessThanOrEqual(40 + 6);
    for (const name of entries) expect(() => JSON.parse(readFileSync(join(dir, name), "utf8"))).not.toThrow();
  });
});

describe("decision log", () => {
  test("appends one line per record and rotates by size, keeping `keep` old logs", () => {
    const dir = tempDir();
    const path = join(dir, "state", "decisions.jsonl");
    for (let index = 0; index < 30; index += 1)
      appendLine(path, JSON.stringify({ index, pad: "y".repeat(80) }), { maxBytes: 1000, keep: 2 });
    expect(existsSync(`${path}.1`)).toBe(true);
    expect(existsSync(`${path}.2`)).toBe(true);
    expect(existsSync(`${path}.3`)).toBe(false);
    const newest = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).index);
    expect(newest.at(-1)).toBe(29);
    for (const file of [path, `${path}.1`, `${path}.2`]) expect(readFileSync(file).length).toBeLessThanOrEqual(1000);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  test("concurrent processes with lines far past PIPE_BUF never interleave", async () => {
    const dir = tempDir();
    const path = join(dir, "decisions.jsonl");
    // 8 processes x 25 records of ~150 KB each; no rotation.
    await children(Array.from({ length: 8 }, (_, index) => ["log", path, "25", "150000", String(1e12), "3", `p${index}`]));
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    expect(lines.length).toBe(200);
    const seen = new Set(
      lines.map((line) => {
        const record = JSON.parse(line);
        return `${record.tag}/${record.index}`;
      }),
    );
    expect(seen.size).toBe(200);
  });

  test("concurrent processes while the log rotates: nothing torn, nothing lost", async () => {
    const dir = tempDir();
    const path = join(dir, "decisions.jsonl");
    await children(Array.from({ length: 6 }, (_, index) => ["log", path, "40", "2000", "60000", "50", `p${index}`]));
    let total = 0;
    for (const file of [path, ...Array.from({ length: 50 }, (_, index) => `${path}.${index + 1}`)]) {
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
        expect(() => JSON.parse(line)).not.toThrow();
        total += 1;
      }
    }
    expect(total).toBe(240);
  });

  test("stats: verdicts by act, answerer share, latency percentiles, fallbacks with reasons", () => {
    const dir = tempDir();
    const env = { XDG_STATE_HOME: dir, HOME: dir };
    const path = join(dir, "verdict", "decisions.jsonl");
    const base = {
      time: "2026-11-01T00:00:00.000Z",
      subject: "command",
      digest: "d",
      text: "t",
      line: "l",
      policy_digest: "p",
      latency_ms: 5,
    };
    const act = (label: string) => ({ act: { choice: label, confidence: 1, probabilities: { [label]: 1 }, source: "model" } });
    const records = [
      {
        ...base,
        verdict: "ask",
        answerer: "jev",
        answers: act("delete"),
        model: { provider: "jev", model: "m", cached: false, latency_ms: 100, attempts: 1, usage: { input_tokens: 300 } },
        rules_verdict: "pass",
      },
      {
        ...base,
        verdict: "allow",
        answerer: "jev",
        answers: act("read"),
        model: { provider: "jev", model: "m", cached: false, latency_ms: 300, attempts: 1 },
        rules_verdict: "allow",
      },
      {
        ...base,
        verdict: "allow",
        answerer: "jev",
        answers: act("read"),
        model: { provider: "jev", model: "m", cached: true, latency_ms: 0, attempts: 0 },
      },
      {
        ...base,
        verdict: "pass",
        answerer: "rules",
        model_not_used: "jev not used: no answer within 1500ms",
        model_not_used_kind: "timeout",
      },
      {
        ...base,
        verdict: "deny",
        answerer: "rules",
        answers: act("delete"),
        model_not_used: "decided outright by the rule rm-root-or-home",
        model_not_used_kind: "decided",
      },
      {
        ...base,
        subject: "turn",
        verdict: "deny",
        answerer: "rules",
        model_not_used: "no model configured: TYPESAFE_API_KEY is not set",
        model_not_used_kind: "off",
      },
    ];
    for (const record of records) appendLine(path, JSON.stringify(record), { maxBytes: 1e9, keep: 1 });
    appendLine(path, "{torn", { maxBytes: 1e9, keep: 1 });
    const { records: read, skipped } = readDecisions(env);
    expect(skipped).toBe(1);
    const stats = summarise(read);
    expect(stats.decisions).toBe(6);
    expect(stats.byAct.delete).toEqual({ ask: 1, deny: 1 });
    expect(stats.byAct.read).toEqual({ allow: 2 });
    expect(stats.answerers.jev!.count).toBe(3);
    expect(stats.answerers.rules!.share).toBeCloseTo(0.5);
    expect(stats.modelLatency).toMatchObject({ count: 2, p50: 100, max: 300 });
    expect(stats.cacheHits).toBe(1);
    expect(stats.fallbacks.count).toBe(1);
    expect(stats.fallbacks.byKind.timeout!.reasons[0]!.reason).toContain("no answer within");
    expect(stats.noModel).toEqual({ decided: 1, off: 1 });
    expect(stats.agreement).toEqual({ same: 1, of: 2 });
    expect(stats.turnVerdicts).toEqual({ deny: 1 });
    expect(stats.inputTokens).toBe(300);
  });

  test("nearest-rank percentiles", () => {
    expect(percentiles([])).toEqual({ count: 0 });
    expect(percentiles([5, 1, 3, 2, 4])).toEqual({ count: 5, p50: 3, p90: 5, p99: 5, max: 5 });
  });
});
