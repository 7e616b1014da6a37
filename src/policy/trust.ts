/**
 * Trust in repository policies. A repo policy arrives with whatever
 * repository a person clones, so until the person runs `verdict policy
 * trust` it may only make verdicts stricter. Trust is recorded by the
 * content digest of the file (and of the files it extends) in the user's
 * config, and is void once any of them changes.
 */
import { join } from "node:path";
import { configDir } from "../files/dirs.ts";
import { readPrivate, writePrivateAtomic } from "../files/private.ts";
import { isMap } from "./merge.ts";
import { durationMs } from "../core/units.ts";
import { VERDICTS } from "../core/answers.ts";

export function trustStorePath(env: Record<string, string | undefined>): string {
  return join(configDir(env), "trusted.json");
}

/** The digest that trust is bound to: every file of the layer's chain, in order. */
export function chainDigest(texts: string[]): string {
  const hash = new Bun.CryptoHasher("sha256");
  for (const text of texts) hash.update(new Bun.CryptoHasher("sha256").update(text).digest("hex")).update("\n");
  return hash.digest("hex");
}

type TrustStore = { version: 1; files: Record<string, { digest: string; trusted_at: string }> };

export function readTrustStore(env: Record<string, string | undefined>): TrustStore {
  try {
    const parsed = JSON.parse(readPrivate(trustStorePath(env), 4 * 1024 * 1024)?.toString("utf8") ?? "") as TrustStore;
    return isMap(parsed) && isMap(parsed.files) ? parsed : { version: 1, files: {} };
  } catch {
    return { version: 1, files: {} };
  }
}

export function isTrusted(env: Record<string, string | undefined>, file: string, digest: string): boolean {
  return readTrustStore(env).files[file]?.digest === digest;
}

/** Records trust in `file` at `digest`, atomically. */
export function trust(env: Record<string, string | undefined>, file: string, digest: string): string {
  const store = readTrustStore(env);
  store.files[file] = { digest, trusted_at: new Date().toISOString() };
  const path = trustStorePath(env);
  writePrivateAtomic(path, `${JSON.stringify(store, null, 2)}\n`);
  return path;
}

/** How a value can only tighten verdicts. */
type Direction = "lower-is-stricter" | "higher-is-stricter" | "shorter-is-stricter" | { order: readonly string[] /* strictest first */ };

/** Verdicts strictest first: the one order of src/core/answers.ts. */
const VERDICT_ORDER = { order: [...VERDICTS].reverse() };

/**
 * The keys an untrusted layer may change, and in which direction. Anything
 * not listed here (definitions, questions, model endpoints, answerer, ...)
 * could loosen verdicts in ways no comparison can see, so it is ignored.
 */
const DIRECTIONS: Record<string, Direction> = {
  "judge.thresholds.ask_at_consequential": "lower-is-stricter",
  "judge.thresholds.ask_at_undo": "lower-is-stricter",
  "judge.thresholds.allow_at_ordinary": "higher-is-stricter",
  "judge.thresholds.allow_undo_at_most": "lower-is-stricter",
  "judge.thresholds.block_stop_at": "lower-is-stricter",
  "task.max_tool_calls": "lower-is-stricter",
  "task.run_within": "shorter-is-stricter",
  "task.call_within": "shorter-is-stricter",
  // An expired approval is a refusal, so a shorter wait refuses sooner.
  "approvals.wait_at_most": "shorter-is-stricter",
  "task.effects": { order: ["read-only", "workspace", "any"] },
  "hosts.on_error.claude": VERDICT_ORDER,
  "hosts.on_error.codex": VERDICT_ORDER,
  "hosts.on_error.gemini": VERDICT_ORDER,
  "hosts.on_error.cursor": VERDICT_ORDER,
  "hosts.ask_becomes.claude": VERDICT_ORDER,
  "hosts.ask_becomes.codex": VERDICT_ORDER,
  "hosts.ask_becomes.gemini": VERDICT_ORDER,
  "hosts.ask_becomes.cursor": VERDICT_ORDER,
};

/** Lists whose entries an untrusted layer may add, when each entry passes its check. */
const ADDABLE: Record<string, (entry: unknown, effectiveIds: Set<unknown>) => string | undefined> = {
  rules: (entry, ids) => {
    if (!isMap(entry)) return "not a rule";
    if (ids.has(entry.id)) return `it would replace the rule ${JSON.stringify(entry.id)} of a trusted layer`;
    if (entry.decision !== "deny" && entry.decision !== "ask") return "an untrusted policy may add only rules with decision: ask or deny";
    const match = isMap(entry.match) ? entry.match : {};
    if (match.program === undefined || match.command_exact !== undefined)
      return "an untrusted policy may add only rules that name a program (match.program, without command_exact)";
    if (entry.runs !== undefined) return "an untrusted rule may not say what a program runs (runs)";
    return undefined;
  },
  tool_rules: (entry, ids) => {
    if (!isMap(entry)) return "not a tool rule";
    if (ids.has(entry.id)) return `it would replace the tool rule ${JSON.stringify(entry.id)} of a trusted layer`;
    return entry.decision === "deny" ? undefined : "only tool rules with decision: deny can only make verdicts stricter";
  },
  "examples.commands": () => undefined,
  "examples.turns": () => undefined,
  "examples.tools": () => undefined,
};

type Ignored = { path: string; why: string };

/**
 * The part of an untrusted layer that can only make verdicts stricter than
 * `effective` (the merge of the trusted layers beneath it), and what was
 * ignored with why.
 */
export function stricterOnly(
  layer: Record<string, unknown>,
  effective: Record<string, unknown>,
): { kept: Record<string, unknown>; ignored: Ignored[] } {
  const ignored: Ignored[] = [];
  const kept: Record<string, unknown> = {};
  walk(layer, [], kept, effective, ignored);
  return { kept, ignored };
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) node = isMap(node) ? node[key] : undefined;
  return node;
}

function setAt(root: Record<string, unknown>, path: string[], value: unknown) {
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (!isMap(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function walk(
  node: Record<string, unknown>,
  at: string[],
  kept: Record<string, unknown>,
  effective: Record<string, unknown>,
  ignored: Ignored[],
) {
  for (const [key, value] of Object.entries(node)) {
    // extends is followed by the loader; version is always 1 (the schema says so): neither loosens anything.
    if ((key === "extends" || key === "version") && at.length === 0) continue;
    const path = [...at, key];
    const dotted = path.join(".");
    const addable = ADDABLE[dotted];
    if (addable && Array.isArray(value)) {
      const existing = valueAt(effective, path);
      const ids = new Set(Array.isArray(existing) ? existing.map((entry) => (isMap(entry) ? entry.id : undefined)) : []);
      const accepted = value.filter((entry, index) => {
        const why = addable(entry, ids);
        if (why) ignored.push({ path: `${dotted}.${index}${isMap(entry) && entry.id ? ` (${String(entry.id)})` : ""}`, why });
        return !why;
      });
      if (accepted.length > 0) setAt(kept, path, accepted);
      continue;
    }
    const direction = DIRECTIONS[dotted];
    if (direction) {
      const current = valueAt(effective, path);
      if (current === undefined || isStricterOrEqual(direction, value, current)) setAt(kept, path, value);
      else ignored.push({ path: dotted, why: `${JSON.stringify(value)} is looser than ${JSON.stringify(current)}` });
      continue;
    }
    if (path[0] === "acts" && path.length === 3 && key === "consequential") {
      if (value === true && isMap(valueAt(effective, path.slice(0, 2)))) setAt(kept, path, value);
      else ignored.push({ path: dotted, why: "only marking an existing act consequential can only make verdicts stricter" });
      continue;
    }
    if (isMap(value) && canDescend(path)) {
      walk(value, path, kept, effective, ignored);
      continue;
    }
    ignored.push({ path: dotted, why: "an untrusted policy may not change it" });
  }
}

/** Whether some key an untrusted layer may change lies beneath `path`. */
function canDescend(path: string[]): boolean {
  if (path[0] === "acts" && path.length <= 2) return true;
  const dotted = path.join(".");
  return [...Object.keys(DIRECTIONS), ...Object.keys(ADDABLE)].some((known) => known.startsWith(`${dotted}.`));
}

function isStricterOrEqual(direction: Direction, value: unknown, current: unknown): boolean {
  if (direction === "lower-is-stricter") return typeof value === "number" && typeof current === "number" && value <= current;
  if (direction === "higher-is-stricter") return typeof value === "number" && typeof current === "number" && value >= current;
  if (direction === "shorter-is-stricter") {
    try {
      return typeof value === "string" && typeof current === "string" && durationMs(value) <= durationMs(current);
    } catch {
      return false;
    }
  }
  const rank = (x: unknown) => direction.order.indexOf(String(x));
  return rank(value) >= 0 && rank(value) <= rank(current);
}
