/**
 * Canonical JSON and the digests built on it. Canonical JSON follows RFC 8785
 * (JCS): object keys sorted by UTF-16 code units, no insignificant
 * whitespace, numbers in ECMAScript form. Every digest is SHA-256 over a
 * domain name, a NUL byte and the canonical bytes, so a digest of one kind
 * can never be mistaken for a digest of another.
 */

/** The domains of verdict's approval digests. */
export const DOMAIN = {
  /** An approval or question task: exactly the recorded facts a person is shown. */
  task: "verdict.approval-task.v1",
  /** The identity of a call for scopes: tool, program, command, working directory. */
  call: "verdict.call.v1",
  /** A task id: the session, the call and how many tasks that call had before. */
  taskId: "verdict.task-id.v1",
  /** A journal record, over its exact bytes without its own hash. */
  record: "verdict.journal-record.v1",
} as const;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The canonical JSON text of `value`. Throws on what JSON cannot carry exactly. */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for ${value}`);
      return JSON.stringify(value);
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
      const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
    }
    default:
      throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
  }
}

function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

/** SHA-256 over `domain`, a NUL byte and the canonical JSON of `value`, in hex. */
export function digestOf(domain: string, value: unknown): string {
  return sha256Hex(`${domain}\0${canonicalJson(value)}`);
}

/** SHA-256 over `domain`, a NUL byte and `text` as it is, in hex. */
export function digestOfText(domain: string, text: string): string {
  return sha256Hex(`${domain}\0${text}`);
}

/** The first characters of a digest or id, as shown to a person. */
export function short(hex: string, length = 12): string {
  return hex.slice(0, length);
}
