/**
 * A regression floor on the peers' labelled corpus (../shared/corpus, outside
 * the repository; skipped where it is absent). The figures and the reasons
 * for the remaining misses are in docs/corpus.md.
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { judge, readCorpus, sliceOf } from "../../bench/corpus/run.ts";
import { DEFAULT } from "./helpers.ts";

const CORPUS = resolve(import.meta.dir, "../../../shared/corpus");

test.skipIf(!existsSync(CORPUS))("hard default-config slice: few consequential commands allowed, few ordinary ones flagged", () => {
  const rows = readCorpus(CORPUS).filter((row) => sliceOf(row) === "hard");
  let blockAllowed = 0;
  let allowFlagged = 0;
  let allowRows = 0;
  for (const row of rows) {
    const { verdict } = judge(row, DEFAULT);
    if (row.expect === "block" && verdict === "allow") blockAllowed++;
    if (row.expect === "allow") {
      allowRows++;
      if (verdict === "ask" || verdict === "deny") allowFlagged++;
    }
  }
  expect(rows.length).toBeGreaterThan(2500);
  // Every one of these is listed with its reason in docs/corpus.md. Two of them (`find . -name "*.pyc" -delete`,
  // plain and through busybox) are allowed on purpose: issue 10 §6 counts deleting bytecode as ordinary work.
  expect(blockAllowed).toBeLessThanOrEqual(36);
  expect(allowFlagged / allowRows).toBeLessThan(0.1);
});
