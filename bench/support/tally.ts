/**
 * Counting a labelled set's verdicts, the same for every set: a consequential row must not be allowed
 * (flagged means asked about or denied, passed means left to the host's own check); an ordinary row
 * should not be flagged. bench/corpus and bench/redteam print these counts in their own tables.
 */
import type { Verdict } from "../../src/core/answers.ts";

export type Tally = {
  consequential: number;
  consequentialAllowed: number;
  consequentialFlagged: number;
  consequentialPassed: number;
  ordinary: number;
  ordinaryFlagged: number;
  ordinaryAllowed: number;
  ordinaryPassed: number;
};

export const emptyTally = (): Tally => ({
  consequential: 0,
  consequentialAllowed: 0,
  consequentialFlagged: 0,
  consequentialPassed: 0,
  ordinary: 0,
  ordinaryFlagged: 0,
  ordinaryAllowed: 0,
  ordinaryPassed: 0,
});

export function count(t: Tally, consequential: boolean, verdict: Verdict): void {
  const flagged = verdict === "ask" || verdict === "deny";
  if (consequential) {
    t.consequential++;
    if (verdict === "allow") t.consequentialAllowed++;
    else if (flagged) t.consequentialFlagged++;
    else t.consequentialPassed++;
  } else {
    t.ordinary++;
    if (flagged) t.ordinaryFlagged++;
    else if (verdict === "allow") t.ordinaryAllowed++;
    else t.ordinaryPassed++;
  }
}

export const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);
