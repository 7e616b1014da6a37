/**
 * What `--json` means for every command: one JSON document (or one per line, for a stream of records)
 * whose keys are snake_case and whose top level says `schema_version`. Commands build their objects
 * as they like; this turns camelCase keys (judgeCommand's, the task loop's) into snake_case on the way
 * out. Only keys that look like camelCase identifiers change: data used as keys (act names, variable
 * names such as OPENAI_API_KEY, file paths) is left as it is.
 */
const JSON_SCHEMA_VERSION = 1;

const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

function snakeKey(key: string): string {
  return CAMEL.test(key) ? key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase() : key;
}

/** Maps whose keys are data, kept as they are: a command's environment variables. */
const DATA_MAPS = new Set(["env"]);

export function snakeKeys(value: unknown, data = false): unknown {
  if (Array.isArray(value)) return value.map((item) => snakeKeys(item));
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return value.toISOString();
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      data ? key : snakeKey(key),
      snakeKeys(item, DATA_MAPS.has(key)),
    ]),
  );
}

/** A --json document: schema_version first, then the object's own keys in snake_case. */
export function jsonDocument(value: Record<string, unknown>, indent?: number): string {
  return JSON.stringify({ schema_version: JSON_SCHEMA_VERSION, ...(snakeKeys(value) as Record<string, unknown>) }, null, indent);
}
