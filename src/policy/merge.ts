/**
 * Merging layers, weakest first, into the effective policy:
 *   - maps merge by key, at any depth;
 *   - the lists of rules, turn rules and examples concatenate, the stronger
 *     layer's entries first (the rule engine tries rules in that order); an
 *     entry whose `id` an earlier (weaker) entry has is replaced by it;
 *   - every other value (scalars, and lists such as undo_levels) is replaced
 *     whole.
 * Every value remembers which layer set it (its provenance).
 */

export type Origin = { layer: string; file: string; path: (string | number)[] };

/** Lists that concatenate rather than replace. */
const CONCATENATED = new Set(["rules", "turn_rules", "tool_rules", "examples.commands", "examples.turns", "examples.tools"]);

/** `origins` is undefined when not tracked: tracking costs about a millisecond, which a hook does not spend. */
type Merged = { value: Record<string, unknown>; origins?: Map<string, Origin> };

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function emptyMerged(trackOrigins = true): Merged {
  return { value: {}, origins: trackOrigins ? new Map() : undefined };
}

/**
 * Layer `over` merged on top of `into`. Maps are copied along the paths the
 * layer changes and shared everywhere else, so the embedded default (one
 * object for the whole process) is never changed by a merge.
 */
export function mergeLayer(into: Merged, over: Record<string, unknown>, layer: string, file: string): void {
  into.value = { ...into.value };
  mergeMap(into.value, over, [], [], into.origins, layer, file);
}

function record(
  origins: Map<string, Origin> | undefined,
  at: (string | number)[],
  value: unknown,
  from: (string | number)[],
  layer: string,
  file: string,
  replaced: boolean,
) {
  if (!origins) return;
  const prefix = at.join(".");
  // Forget what weaker layers set beneath this path: it is replaced whole.
  if (replaced) for (const key of [...origins.keys()]) if (key === prefix || key.startsWith(`${prefix}.`)) origins.delete(key);
  if (isMap(value)) {
    for (const [key, child] of Object.entries(value)) record(origins, [...at, key], child, [...from, key], layer, file, false);
  } else {
    origins.set(prefix, { layer, file, path: from });
  }
}

function mergeMap(
  target: Record<string, unknown>,
  over: Record<string, unknown>,
  at: string[],
  from: (string | number)[],
  origins: Map<string, Origin> | undefined,
  layer: string,
  file: string,
) {
  for (const [key, value] of Object.entries(over)) {
    if (key === "extends") continue;
    const path = [...at, key];
    const dotted = path.join(".");
    const existing = target[key];
    if (CONCATENATED.has(dotted) && Array.isArray(value)) {
      target[key] = concatenate(dotted, existing, value, origins, layer, file, [...from, key]);
    } else if (isMap(existing) && isMap(value)) {
      const copy = { ...existing };
      target[key] = copy;
      mergeMap(copy, value, path, [...from, key], origins, layer, file);
    } else {
      // Layers are parsed afresh on every load, so their values can be taken as they are.
      target[key] = value;
      record(origins, path, value, [...from, key], layer, file, existing !== undefined);
    }
  }
}

function concatenate(
  dotted: string,
  existing: unknown,
  added: unknown[],
  origins: Map<string, Origin> | undefined,
  layer: string,
  file: string,
  from: (string | number)[],
): unknown[] {
  const before = Array.isArray(existing) ? existing : [];
  const ids = new Set(added.map((entry) => (isMap(entry) ? entry.id : undefined)).filter((id) => id !== undefined));
  const replaced = (entry: unknown) => isMap(entry) && entry.id !== undefined && ids.has(entry.id);
  if (!origins) {
    // The hook's case (no provenance): one pass over the default's ~250 rules, no bookkeeping objects.
    const result = added.slice();
    for (const entry of before) if (!replaced(entry)) result.push(entry);
    return result;
  }
  const beforeOrigins = before.map((_, index) => origins.get(`${dotted}.${index}`));
  const kept = before.map((entry, index) => ({ entry, origin: beforeOrigins[index] })).filter(({ entry }) => !replaced(entry));
  const result = [...added, ...kept.map(({ entry }) => entry)];
  for (const key of [...origins.keys()]) if (key.startsWith(`${dotted}.`)) origins.delete(key);
  added.forEach((_, index) => origins.set(`${dotted}.${index}`, { layer, file, path: [...from, index] }));
  kept.forEach(({ origin }, index) => {
    if (origin) origins.set(`${dotted}.${added.length + index}`, origin);
  });
  return result;
}

/** The origin of a path in the effective policy: its own, or its nearest recorded ancestor's or list entry's. */
export function originOf(origins: Map<string, Origin>, path: (string | number)[]): Origin | undefined {
  for (let length = path.length; length > 0; length--) {
    const key = path.slice(0, length).join(".");
    const origin = origins.get(key);
    if (origin) return { ...origin, path: [...origin.path, ...path.slice(length)] };
  }
  // A map that only exists through its children (a new act): the layer that set its first child.
  const prefix = `${path.join(".")}.`;
  for (const [key, origin] of origins) {
    if (key.startsWith(prefix))
      return { ...origin, path: origin.path.slice(0, origin.path.length - (key.split(".").length - path.length)) };
  }
  return undefined;
}
