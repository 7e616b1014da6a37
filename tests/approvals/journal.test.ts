import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GENESIS, JournalDamaged, journalPath, readJournal, stateDir, transact, verifyJournal } from "../../src/approvals/journal.ts";
import { withLock } from "../../src/approvals/lock.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
afterEach(() => box?.cleanup());

function append(path: string, n: number): void {
  for (let i = 0; i < n; i++)
    transact(path, () => ({ append: [{ kind: "task.ended", body: { session: "s", task: `t${i}` } }], result: undefined }));
}

describe("the journal", () => {
  test("lives in $XDG_STATE_HOME/verdict, ~/.local/state/verdict by default", () => {
    expect(journalPath({ XDG_STATE_HOME: "/x" })).toBe("/x/verdict/approvals.jsonl");
    expect(stateDir({ HOME: "/h" })).toBe("/h/.local/state/verdict");
  });

  test("chains each record to the one before and verifies", () => {
    box = sandbox();
    const path = journalPath(box.env);
    append(path, 3);
    const journal = readJournal(path);
    expect(journal.records.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(journal.records[0]!.prev).toBe(GENESIS);
    expect(journal.records[1]!.prev).toBe(journal.records[0]!.hash);
    expect(verifyJournal(path)).toMatchObject({ path, records: 3, tornKept: [], anchor: { seq: 2, hash: journal.records[2]!.hash } });
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
  });

  test("appends several records at once, in order, and nothing when there is nothing to say", () => {
    box = sandbox();
    const path = journalPath(box.env);
    const result = transact(path, () => ({
      append: [
        { kind: "run.ended", body: { session: "a" } },
        { kind: "run.ended", body: { session: "b" } },
      ],
      result: 7,
    }));
    expect(result).toBe(7);
    transact(path, () => ({ append: [], result: undefined }));
    expect(readJournal(path).records.map((r) => r.body.session)).toEqual(["a", "b"]);
  });

  test("an edited record is reported at its own line, the last one too", () => {
    box = sandbox();
    const path = journalPath(box.env);
    append(path, 3);
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [lines[0], lines[1]!.replace('"t1"', '"t9"'), lines[2], ""].join("\n"));
    expect(verifyJournal(path).damage).toMatchObject({ line: 2, kind: "broken" });
    writeFileSync(path, [lines[0], lines[1], lines[2]!.replace('"t2"', '"t8"'), ""].join("\n"));
    expect(verifyJournal(path).damage).toMatchObject({ line: 3, kind: "broken", message: expect.stringContaining("hash") });
  });

  test("a removed, reordered or reformatted record breaks the chain", () => {
    box = sandbox();
    const path = journalPath(box.env);
    append(path, 3);
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [lines[0], lines[2], ""].join("\n"));
    expect(verifyJournal(path).damage).toMatchObject({ line: 2, kind: "broken" });
    writeFileSync(path, [lines[0], JSON.stringify(JSON.parse(lines[1]!), null, 1).replace(/\n/g, ""), lines[2], ""].join("\n"));
    expect(verifyJournal(path).damage).toMatchObject({ line: 2, message: expect.stringContaining("bytes") });
  });

  test("a damaged journal refuses appends", () => {
    box = sandbox();
    const path = journalPath(box.env);
    append(path, 2);
    writeFileSync(path, readFileSync(path, "utf8").replace('"t0"', '"tX"'));
    expect(() => append(path, 1)).toThrow(JournalDamaged);
  });

  test("a torn last line is reported, then kept in a journal.torn record by the next append", () => {
    box = sandbox();
    const path = journalPath(box.env);
    append(path, 2);
    const torn = '{"at":"2026-01-01T00:00:00.000Z","body":{"sess';
    appendFileSync(path, torn);
    const before = verifyJournal(path);
    expect(before.damage).toMatchObject({ line: 3, kind: "torn" });
    expect(before.records).toBe(2);
    append(path, 1);
    const after = verifyJournal(path);
    expect(after.damage).toBeUndefined();
    expect(after.tornKept).toEqual([{ seq: 2, line: 3, length: torn.length }]);
    const kept = readJournal(path).records[2]!;
    expect(kept.kind).toBe("journal.torn");
    expect(Buffer.from(String(kept.body.base64), "base64").toString("utf8")).toBe(torn);
    expect(readJournal(path).records[3]!.body.task).toBe("t0");
  });

  test("a lock left by a process that is gone is recovered", () => {
    box = sandbox();
    const path = journalPath(box.env);
    append(path, 1);
    const dead = Bun.spawnSync(["true"]).pid;
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: dead, host: require("node:os").hostname(), token: "old", at: "2020-01-01T00:00:00Z" }),
    );
    const started = Date.now();
    append(path, 1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(verifyJournal(path).records).toBe(2);
  });

  test("a live holder is waited for, not broken", () => {
    box = sandbox();
    const lock = join(box.root, "x.lock");
    writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, host: require("node:os").hostname(), token: "held", at: new Date().toISOString() }),
    );
    expect(() => withLock(lock, () => 1, 150)).toThrow(/lock/);
    expect(existsSync(lock)).toBe(true);
  });
});
