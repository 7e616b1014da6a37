import { describe, expect, test } from "bun:test";
import { DURATION_PATTERN, MEMORY_PATTERN, bytes, durationMs, megabytes } from "../../src/core/units.ts";

describe("durations as the schema accepts them", () => {
  test.each([
    ["1500ms", 1500],
    ["2s", 2000],
    ["1.5 m", 90_000],
    ["1h", 3_600_000],
    ["7d", 604_800_000],
    ["0s", 0],
  ])("%s is %d ms", (text, ms) => {
    expect(new RegExp(DURATION_PATTERN).test(text)).toBe(true);
    expect(durationMs(text)).toBe(ms);
  });

  test.each(["", "10", "1 hour", "1w", "-1s", "1.s", "1  s", " 1s", "1S"])("%j is refused, as the schema refuses it", (text) => {
    expect(new RegExp(DURATION_PATTERN).test(text)).toBe(false);
    expect(() => durationMs(text)).toThrow(/not a duration.*1500ms or 2s/);
  });
});

describe("memory sizes", () => {
  test("decimal and binary units", () => {
    expect(megabytes("500MB")).toBe(500);
    expect(megabytes("3GB")).toBe(3000);
    expect(bytes("512KiB")).toBe(524_288);
    expect(new RegExp(MEMORY_PATTERN).test("3 GB")).toBe(true);
    expect(() => megabytes("3 gigs")).toThrow(/not a memory size/);
  });
});
