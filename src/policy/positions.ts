/**
 * Line and column for a key path in a policy file. Only used once something
 * is wrong, so the `yaml` package (slow to load and parse, but with node
 * positions) is loaded lazily, here.
 */
/** `require` rather than `import`: loading stays lazy (only on the error path) and the loader stays synchronous. */
const yaml = () => require("yaml") as typeof import("yaml");

export type Position = { line: number; column: number };

/**
 * The position of `path` in `text`: the value's node where it exists, else
 * the nearest existing ancestor's. `key: true` points at the key instead
 * (for an unknown key, the key is what is wrong).
 */
export function positionOf(text: string, path: (string | number)[], key = false): Position | undefined {
  const { parseDocument, LineCounter, isMap, isSeq, isPair, isScalar } = yaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  let node: unknown = document.contents;
  let found: { range?: [number, number, number] | null } | undefined = node as never;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      const target = key && segment === path[path.length - 1] ? pair.key : pair.value;
      node = target;
      found = (target ?? pair.key) as never;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      found = item as never;
    } else {
      break;
    }
  }
  const offset = (found as { range?: [number, number, number] | null } | undefined)?.range?.[0];
  if (offset === undefined) return undefined;
  const where = lineCounter.linePos(offset);
  return { line: where.line, column: where.col };
}
