/**
 * The fast path of the policy reader (parse.ts): whether a file is written in
 * "plain" YAML, the subset on which Bun's native reader and the `yaml`
 * package cannot disagree, and how many map keys it writes.
 *
 * Plain means: block maps and lists, one-line flow lists and maps, quoted
 * strings that end on their line, plain scalars that are words, decimal
 * numbers, true, false or null (or a number with a unit: 1500ms); no anchor,
 * alias, tag, merge key, block scalar (| >), document marker or tab, and
 * nothing spanning lines. That is every policy file we have seen; anything
 * else goes to the `yaml` package, which is exact but costs about 50 ms.
 *
 * Counting is how a duplicate key is caught without a second parser: in a
 * plain file every key is at the start of a line (after `- `) or after `{`
 * or `,` in a flow map, so the count is exact, and a reader that kept only
 * the last of two equal keys returns fewer keys than were written.
 */

/** The number of map keys written in `text`, or undefined when the text is not plain. */
export function plainKeyCount(text: string): number | undefined {
  let keys = 0;
  let start = 0;
  /** Inside a block scalar (key: >-) whose key is at this column: lines indented more are its text. */
  let scalarAt = -1;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (scalarAt >= 0) {
      let indent = start;
      while (indent < end && text.charCodeAt(indent) === 32) indent++;
      const blank = indent === end || (text[indent] === "\r" && indent + 1 === end);
      if (blank || indent - start > scalarAt) {
        start = end + 1;
        continue;
      }
      scalarAt = -1;
    }
    const counted = lineKeys(text, start, end);
    if (counted === undefined) return undefined;
    keys += counted.keys;
    if (counted.scalarAt !== undefined) scalarAt = counted.scalarAt;
    start = end + 1;
  }
  return keys;
}

type Line = { keys: number; scalarAt?: number };

/** Keys written on the line text[start, end), and where a block scalar it opens is; undefined when it is not plain. */
function lineKeys(text: string, start: number, end: number): Line | undefined {
  let i = start;
  while (i < end && text.charCodeAt(i) === 32) i++;
  if (i < end && text[i] === "\r") return end - i === 1 ? { keys: 0 } : undefined;
  if (i === end || text[i] === "#") return { keys: 0 };
  const lineEnd = text[end - 1] === "\r" ? end - 1 : end;
  if (i === start && (text.startsWith("---", i) || text.startsWith("...", i) || text[i] === "%")) return undefined;
  // List markers: "- ", possibly several ("- - x").
  while (text[i] === "-" && (i + 1 === lineEnd || text[i + 1] === " ")) {
    i++;
    while (i < lineEnd && text[i] === " ") i++;
  }
  if (i >= lineEnd || text[i] === "#") return { keys: 0 };
  const scanner = new Scanner(text, i, lineEnd);
  const keys = scanner.blockNode();
  if (keys === undefined) return undefined;
  return scanner.blockScalar ? { keys, scalarAt: i - start } : { keys };
}

const STRUCTURAL = /^[&*!|>%@`?]$/;
/** Plain scalars both readers read the same way. */
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const WITH_UNIT = /^[0-9]+(\.[0-9]+)?[a-zA-Z]+$/;
const YAML11_WORDS = /^(y|yes|n|no|on|off|true|false|null|~|\.inf|-\.inf|\+\.inf|\.nan)$/i;

function plainScalarOk(value: string): boolean {
  if (value === "true" || value === "false" || value === "null") return true;
  if (YAML11_WORDS.test(value)) return false;
  if (DECIMAL.test(value) || WITH_UNIT.test(value)) return true;
  // Other forms that start like a number (0x1F, 0o17, 1e3, 1_000, .5, +1, 2024-01-01, 1:30) are typed differently by YAML 1.1 and 1.2 readers.
  return !/^[0-9+.]/.test(value);
}

class Scanner {
  keys = 0;
  /** The line's key has a block scalar (| or >, with + or - at most) as its value. */
  blockScalar = false;
  constructor(
    private readonly text: string,
    private i: number,
    private readonly end: number,
  ) {}

  /** A block node: `key: value`, `key:`, or a value. */
  blockNode(): number | undefined {
    const first = this.scalar(false);
    if (first === undefined) return undefined;
    if (first.kind === "flow") return this.rest() ? this.keys : undefined;
    this.skipSpaces();
    if (this.text[this.i] === ":" && (this.i + 1 === this.end || this.text[this.i + 1] === " ")) {
      if (first.kind === "plain" && (first.value === "<<" || !plainScalarOk(first.value))) return undefined;
      this.keys++;
      this.i++;
      this.skipSpaces();
      if (this.i >= this.end || this.text[this.i] === "#") return this.keys;
      if (
        /^[|>][+-]?$/.test(
          this.text
            .slice(this.i, this.end)
            .replace(/\s+#.*$/, "")
            .trimEnd(),
        )
      ) {
        this.blockScalar = true;
        return this.keys;
      }
      // A value after a key: not another key on the same line (a: b: c is not valid YAML).
      const value = this.scalar(false);
      if (value === undefined) return undefined;
      return this.rest() ? this.keys : undefined;
    }
    return this.rest() ? this.keys : undefined;
  }

  /** Only spaces and a comment may follow. */
  private rest(): boolean {
    this.skipSpaces();
    return this.i >= this.end || this.text[this.i] === "#";
  }

  private skipSpaces() {
    while (this.i < this.end && this.text[this.i] === " ") this.i++;
  }

  /**
   * A scalar or a flow collection at i. In block context a plain scalar runs to ": " or " #" or the
   * line's end; in flow context also to , ] }.
   */
  private scalar(flow: boolean): { kind: "plain"; value: string } | { kind: "quoted" | "flow" } | undefined {
    const ch = this.text[this.i] as string;
    if (ch === '"' || ch === "'") return this.quoted(ch) ? { kind: "quoted" } : undefined;
    if (ch === "[" || ch === "{") return this.flowCollection() ? { kind: "flow" } : undefined;
    if (STRUCTURAL.test(ch) || ch === "\t") return undefined;
    const from = this.i;
    while (this.i < this.end) {
      const c = this.text[this.i] as string;
      if (c === "\t") return undefined;
      if (c === ":" && (this.i + 1 === this.end || this.text[this.i + 1] === " " || (flow && /[,\]}]/.test(this.text[this.i + 1] ?? ""))))
        break;
      if (c === "#" && this.text[this.i - 1] === " ") break;
      if (flow && (c === "," || c === "]" || c === "}" || c === "[" || c === "{")) break;
      // A colon inside a plain scalar (a:b) reads differently in flow context across YAML versions: not plain.
      if (flow && c === ":") return undefined;
      this.i++;
    }
    const value = this.text.slice(from, this.i).trimEnd();
    if (value === "" || !plainScalarOk(value)) return undefined;
    return { kind: "plain", value };
  }

  private quoted(quote: string): boolean {
    this.i++;
    while (this.i < this.end) {
      const c = this.text[this.i];
      if (quote === '"' && c === "\\") {
        this.i += 2;
        continue;
      }
      if (c === quote) {
        if (quote === "'" && this.text[this.i + 1] === "'") {
          this.i += 2;
          continue;
        }
        this.i++;
        return true;
      }
      this.i++;
    }
    return false;
  }

  /** A flow list or map that ends on this line; counts the map keys in it. */
  private flowCollection(): boolean {
    const open = this.text[this.i];
    const close = open === "[" ? "]" : "}";
    this.i++;
    for (;;) {
      this.skipSpaces();
      if (this.i >= this.end) return false;
      if (this.text[this.i] === close) {
        this.i++;
        return true;
      }
      const entry = this.scalar(true);
      if (entry === undefined) return false;
      this.skipSpaces();
      if (this.text[this.i] === ":") {
        // A key: only in a map (a pair inside a list is a map of its own, which is not plain).
        if (open !== "{") return false;
        if (entry.kind === "flow" || (entry.kind === "plain" && (entry.value === "<<" || !plainScalarOk(entry.value)))) return false;
        this.keys++;
        this.i++;
        this.skipSpaces();
        if (this.text[this.i] === "," || this.text[this.i] === close) return false;
        if (this.scalar(true) === undefined) return false;
        this.skipSpaces();
      } else if (open === "{") {
        // A key with no value ({ a, b }): not plain.
        return false;
      }
      if (this.text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.text[this.i] === close) continue;
      return false;
    }
  }
}

/** The number of map keys in a parsed value. */
export function keysIn(value: unknown): number {
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += keysIn(item);
    return sum;
  }
  if (value === null || typeof value !== "object") return 0;
  let sum = 0;
  for (const key in value) sum += 1 + keysIn((value as Record<string, unknown>)[key]);
  return sum;
}
