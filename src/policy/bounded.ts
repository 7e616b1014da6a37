/**
 * Whether what a policy's layers add can only take time linear in the text it is matched against, so
 * that a hook judging under it (an ordinary payload, at most the hook's sniffed size) answers in a
 * bounded time without the watchdog thread (cli/watchdog.ts, some milliseconds and 10 MB per hook).
 *
 * The embedded default's patterns are fuzzed (bench/fuzz); a layer's regular expressions are refused
 * at load when their shape can backtrack exponentially (regex-safety.ts), but a pattern can still be
 * polynomial: `/a.*b.*c/` or the glob `*a*b*c` backtracks over every split of a long argument. So a
 * layer counts as bounded only when each of its strings, read as a pattern, is proven linear:
 *   - a plain word or a glob with at most one `*` (`^x.*y$`: one split point to try);
 *   - a glob `*x*` with no other `*` (`^.*x.*$`: each start of x tried once, the tail always matches);
 *   - a regular expression with no unbounded repetition (`*`, `+`, `{n,}`): a bounded match at each start.
 * Every other string (a regular expression that repeats, a glob with more stars) makes the layer
 * unbounded, even where it is not used as a pattern; so does a layer of more than MAX_RULES rules.
 * Erring this way only costs the watchdog's start.
 */

/** More own rules than this and the layer is not counted bounded, whatever their patterns. */
export const MAX_RULES = 200;

/** Fields of a rule that are never matched against the text. */
const NOT_MATCHED = new Set(["id", "reason", "suggest", "examples"]);

/** Whether `value` (a pattern, as rules write them) runs in time linear in the text it is matched on. */
export function linearPattern(value: string): boolean {
  if (value.length > 2 && value.startsWith("/") && (value.endsWith("/") || value.endsWith("/i"))) {
    return !/[*+]|\{\d*,\}/.test(value.slice(1, value.lastIndexOf("/")));
  }
  let stars = 0;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) === 42) stars++;
  return stars <= 1 || (stars === 2 && value.startsWith("*") && value.endsWith("*"));
}

/** Whether every string inside `value` (keys aside) is a linear pattern. */
export function allLinear(value: unknown, skip?: ReadonlySet<string>): boolean {
  if (typeof value === "string") return linearPattern(value);
  if (Array.isArray(value)) return value.every((item) => allLinear(item));
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) if (!skip?.has(key) && !allLinear(item)) return false;
  }
  return true;
}

/** Sections a hook never matches against a payload: a policy's examples are proven when it is loaded afresh. */
const NEVER_MATCHED_SECTIONS = new Set(["examples"]);

/**
 * Whether a loaded policy's own part is bounded: its own rules (the layers' rules, before the
 * default's) and what every other section holds that the embedded default's does not. A list the
 * layers add to (turn_rules, tool_rules) counts only the entries they added: the default's own entries
 * are fuzzed with the rest of it (bench/fuzz), and counting them made any layer with a turn rule
 * unbounded.
 */
export function boundedPolicy(ownRules: readonly unknown[], head: Record<string, unknown>, defaults: Record<string, unknown>): boolean {
  if (ownRules.length > MAX_RULES) return false;
  if (!ownRules.every((rule) => allLinear(rule, NOT_MATCHED))) return false;
  for (const [key, section] of Object.entries(head)) {
    if (key === "rules" || NEVER_MATCHED_SECTIONS.has(key)) continue;
    const fallback = defaults[key];
    if (JSON.stringify(section) === JSON.stringify(fallback)) continue;
    if (Array.isArray(section) && Array.isArray(fallback)) {
      const theDefaults = new Set(fallback.map((entry) => JSON.stringify(entry)));
      const added = section.filter((entry) => !theDefaults.has(JSON.stringify(entry)));
      if (added.length > MAX_RULES || !added.every((entry) => allLinear(entry, NOT_MATCHED))) return false;
      continue;
    }
    if (!allLinear(section)) return false;
  }
  return true;
}
