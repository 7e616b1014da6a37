/**
 * Durations and memory sizes as a person writes them in a policy ("1500ms",
 * "3GB"). The schema keeps them as strings, so the YAML and the JSON Schema
 * say what was written; these functions turn them into numbers at the point
 * of use.
 */
/** "1500ms", "2s", "1.5 m", "1h", "7d": a number and a unit, no bare numbers. */
export const DURATION_PATTERN = "^[0-9]+(\\.[0-9]+)? ?(ms|s|m|h|d)$";
/** "500MB", "3GB", "0MB", "512KiB". */
export const MEMORY_PATTERN = "^[0-9]+(\\.[0-9]+)? ?(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$";

// Read with the schema's own patterns: the second group is the unit, the number is what precedes it.
const DURATION = new RegExp(DURATION_PATTERN);
const MEMORY = new RegExp(MEMORY_PATTERN);
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Milliseconds in a duration the schema already accepted. Read with the schema's own pattern and a table,
 * as megabytes() below is: the `ms` package read a wider language than the schema allows, and building its
 * pattern cost every hook about 0.5 M instructions (docs/latency.md).
 */
export function durationMs(text: string): number {
  const match = DURATION.exec(text);
  const unit = match?.[2] === undefined ? undefined : DURATION_UNITS[match[2]];
  if (!match || unit === undefined) {
    throw new Error(`not a duration: ${JSON.stringify(text)} (write a number and a unit, such as 1500ms or 2s)`);
  }
  return Number.parseFloat(text) * unit;
}

const MEMORY_UNITS: Record<string, number> = {
  B: 1 / 1e6,
  KB: 1e3 / 1e6,
  MB: 1,
  GB: 1e3,
  TB: 1e6,
  KiB: 1024 / 1e6,
  MiB: 1048576 / 1e6,
  GiB: 1073741824 / 1e6,
  TiB: 1099511627776 / 1e6,
};

/** Megabytes (10^6 bytes) in a memory size the schema already accepted. */
export function megabytes(text: string): number {
  const match = MEMORY.exec(text);
  const unit = match?.[2] === undefined ? undefined : MEMORY_UNITS[match[2]];
  if (!match || unit === undefined) {
    throw new Error(`not a memory size: ${JSON.stringify(text)} (write a number and a unit, such as 500MB or 3GB)`);
  }
  return Number.parseFloat(text) * unit;
}

/** Bytes in a memory size. */
export function bytes(text: string): number {
  return Math.round(megabytes(text) * 1e6);
}
