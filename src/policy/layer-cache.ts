/**
 * The policy as a hook loads it: the embedded default as it was built when no layer file exists, and
 * otherwise the loader's result (load.ts) kept on disk, so that a hook whose layers have not changed
 * neither parses, validates, proves, merges nor indexes them again.
 *
 * An entry lives in `$XDG_CACHE_HOME/verdict/policy/` (default `~/.cache/verdict/policy/`), one file per
 * set of layer files (their paths, the trust store's path and verdict's build), and holds what the
 * loader returned: the merged policy without its rules, the layers' own rules packed and indexed
 * (answerers/rules/packed.ts; the default's stay the embedded ones, minus those a layer replaced), the
 * digest, the layers and the warnings. Beside them it records every file the result depends on (each
 * layer's chain of extends, and the trust store when a repository layer is in it) with its size, mtime
 * and SHA-256. An entry is used only when every one of those files still has the recorded size and
 * mtime, or failing that the recorded digest; a file whose mtime was too recent to tell a later
 * same-second change apart is recorded without one, so it is always digested.
 *
 * An entry is never trusted: one that is not a regular file owned by this user and readable by no one
 * else, that is from another build of verdict, whose checksum does not match its content, or that
 * does not parse is ignored, and the policy is loaded afresh and the entry rewritten. Loading afresh
 * is always correct; the cache only saves its time. Entries are written whole to a temporary file and
 * renamed into place. VERDICT_POLICY_CACHE=off turns the cache off.
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { cacheDir } from "../files/dirs.ts";
import { attachRuleIndex } from "../answerers/rules/compile.ts";
import { packRules, packedRuleIndex, unpackRules, type PackedRules } from "../answerers/rules/packed.ts";
import { provenSafe } from "../answerers/rules/pattern.ts";
import { DEFAULT_DIGEST, DEFAULT_POLICY, DEFAULT_RULES } from "./generated/default-policy.ts";
import type { IgnoredLayer, LayerSource, LoadedPolicy, LoadOptions, LoadResult } from "./load.ts";
import { readPolicyText, repoPolicyPaths, repositoryRoot, userPolicyPath, type Env } from "./layers.ts";
import type { Policy } from "./schema.ts";
import { boundedPolicy } from "./bounded.ts";
import { isMap } from "./merge.ts";
import { trustStorePath } from "./trust.ts";

// The loader, with the validators, the merge and the checks it brings, is initialised only when a
// policy is loaded afresh: a hook with no layers or a cached policy does not pay for it (about 2 M
// instructions).
const loader = () => require("./load.ts") as typeof import("./load.ts");
const loadPolicy = (options: LoadOptions): LoadResult => loader().loadPolicy(options);

/** As load.ts names the embedded default's layer (tests/policy/layer-cache.test.ts checks they agree). */
export const DEFAULT_FILE = "(embedded default)";

declare const VERDICT_VERSION: string | undefined;
declare const VERDICT_COMMIT: string | undefined;
declare const VERDICT_BUILD: string | undefined;

/** Changes whenever an entry's shape or meaning does; entries of another format are ignored. */
const FORMAT = 3;
/**
 * The build an entry was written by: an entry of another build is ignored. VERDICT_BUILD, the digest of
 * the sources compiled (build.ts), tells apart builds of one commit with changes in the tree.
 */
const BUILD = `${typeof VERDICT_VERSION === "string" ? VERDICT_VERSION : "dev"}+${typeof VERDICT_COMMIT === "string" ? VERDICT_COMMIT : "source"}+${typeof VERDICT_BUILD === "string" ? VERDICT_BUILD : ""}+${DEFAULT_DIGEST}`;
/** A file modified this recently (ms) may change again within its mtime's tick: record it without one. */
const RACY_MS = 3000;

attachRuleIndex(
  DEFAULT_POLICY,
  packedRuleIndex([{ pack: DEFAULT_RULES }], () => DEFAULT_POLICY.rules),
);
// The default's regular expressions were checked when verdict was built; a layer's are checked as
// they are compiled, cached or not.
provenSafe(DEFAULT_RULES.safe ?? []);

const DEFAULT_LAYER: LayerSource = { name: "default", file: DEFAULT_FILE, files: [DEFAULT_FILE], trusted: true, digest: DEFAULT_DIGEST };

/**
 * A file an entry depends on, as it was when the entry was written. size -1: the file did not exist.
 * `real`: the path with every link resolved, for a repository file (whether it lies inside the
 * repository decides whether it is read at all: load.ts).
 */
type Recorded = { path: string; size: number; mtimeMs: number; digest: string; real?: string };

type Entry = {
  format: number;
  build: string;
  files: Recorded[];
  /** sha256 of `payload` */
  sum: string;
  /** JSON of Payload */
  payload: string;
};

type Payload = {
  digest: string;
  layers: LayerSource[];
  warnings: string[];
  /** Untrusted layers ignored whole for their problems, with the problems. */
  ignored: IgnoredLayer[];
  repositoryRoot?: string;
  /** The effective policy without `rules`. */
  head: Record<string, unknown>;
  /** The layers' rules, strongest first, packed. */
  own: PackedRules;
  /** Ids of the default's rules that a layer replaced. */
  replaced: string[];
  /** Whether the layers' own patterns are all proven linear (bounded.ts). */
  bounded: boolean;
  /**
   * The sections of the policy (besides its rules) that are the embedded default's, as JSON: kept in
   * `head` as null and taken from the default as built when read, so that an entry holds and a hook
   * parses and digests only what the layers changed (the default's turn and tool rules and examples are
   * most of a policy).
   */
  defaults: string[];
};

type CacheOutcome = "none" | "hit" | "miss" | "off";

/** What the last load did, for the benchmark and the tests. */
export let lastOutcome: CacheOutcome = "none";

/**
 * The effective policy, as loadPolicy returns it, from the embedded default or the cache when it can.
 * Options that need the loader's own work (origins, a subset of the layers) go straight to it.
 *
 * `unbounded` is called before anything whose time the sizes of the inputs do not bound: a fresh load
 * (parsing, validating and proving the layers), or a cached policy whose layers add a pattern not
 * proven linear (bounded.ts). The hook starts its watchdog thread then, and only then.
 */
export function loadPolicyCached(options: LoadOptions, unbounded?: () => void): LoadResult {
  if (options.origins || options.only) {
    unbounded?.();
    return loadPolicy(options);
  }
  const env = options.env ?? process.env;
  const root = repositoryRoot(options.cwd);
  const wanted = layerFiles(options, env, root);
  if (wanted.length === 0) {
    lastOutcome = "none";
    return {
      ok: true,
      loaded: {
        policy: DEFAULT_POLICY,
        digest: DEFAULT_DIGEST,
        layers: [DEFAULT_LAYER],
        warnings: [],
        ignored: [],
        repositoryRoot: root,
        cwd: options.cwd,
      },
    };
  }
  if (env.VERDICT_POLICY_CACHE === "off") {
    lastOutcome = "off";
    unbounded?.();
    return loadPolicy(options);
  }
  const path = entryPath(env, [`root:${root ?? ""}`, ...wanted]);
  const cached = readEntry(path);
  if (cached) {
    lastOutcome = "hit";
    if (!cached.payload.bounded) unbounded?.();
    // The same entry as the last hit (a resident judge reads it at every hook): the policy already made
    // from it, whose compiled rules are warm. Its layers were checked unchanged just now, as at every hit.
    if (remembered?.identity !== cached.identity)
      remembered = { identity: cached.identity, loaded: fromPayload(cached.payload, options.cwd) };
    return { ok: true, loaded: { ...remembered.loaded, cwd: options.cwd } };
  }
  lastOutcome = "miss";
  unbounded?.();
  // What the loader will read, as it is before it reads it: a file that changes while it loads makes
  // the entry stale at once rather than wrong.
  const store = trustStorePath(env);
  let before: Recorded | undefined;
  try {
    before = recordFile(store);
  } catch {
    before = undefined; // a trust store that cannot be read as a file: the loader reports it; nothing is cached
  }
  const result = loadPolicy(options);
  if (result.ok && before) {
    try {
      writeEntry(path, result.loaded, wanted, store, before);
    } catch {
      // A cache that cannot be written only costs the next hook its time.
    }
  }
  return result;
}

/** The layer files that exist (the command line's named whether or not it exists: the loader reports it). */
function layerFiles(options: LoadOptions, env: Env, root: string | undefined): string[] {
  const files: string[] = [];
  const user = userPolicyPath(env);
  if (exists(user)) files.push(`user:${user}`);
  // The repository's root as loadPolicyCached found it: walking up again would stat every folder twice.
  for (const repo of repoPolicyPaths(options.cwd, root)) files.push(`repo:${repo}`);
  const line = options.file ?? (env.VERDICT_POLICY || undefined);
  // Resolved as the loader resolves it: against the process's directory.
  if (line) files.push(`command-line:${resolve(line)}`);
  return files;
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** Where the entries are: verdict's cache folder (files/dirs.ts, never relative to the working directory). */
export function policyCacheDir(env: Env): string {
  return join(cacheDir(env), "policy");
}

function sha256(text: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

function entryPath(env: Env, files: string[]): string {
  return join(policyCacheDir(env), `${sha256([BUILD, trustStorePath(env), ...files].join("\n")).slice(0, 32)}.json`);
}

/**
 * A file's size, mtime and digest now; an mtime too recent to rely on is recorded as -1. Read as the
 * loader reads a policy (layers.ts: a regular file only, bounded, never blocking); one that cannot be
 * read so makes the entry not worth writing (throws).
 */
function recordFile(path: string): Recorded {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return { path, size: -1, mtimeMs: -1, digest: "" };
  const read = readPolicyText(path);
  if (!("text" in read)) throw new Error(`${path}: ${read.why}`);
  const mtimeMs = Date.now() - stat.mtimeMs < RACY_MS ? -1 : stat.mtimeMs;
  return { path, size: stat.size, mtimeMs, digest: sha256(read.text) };
}

/** Whether a file is as recorded: the same size and mtime, or else the same content; and the same real path. */
function unchanged(file: Recorded): boolean {
  if (file.real !== undefined) {
    try {
      if (realpathSync(file.path) !== file.real) return false;
    } catch {
      return false;
    }
  }
  const stat = statSync(file.path, { throwIfNoEntry: false });
  if (!stat) return file.size === -1;
  if (file.size === -1) return false;
  if (stat.size === file.size && stat.mtimeMs === file.mtimeMs && file.mtimeMs !== -1) return true;
  if (stat.size !== file.size || !stat.isFile()) return false;
  const read = readPolicyText(file.path);
  return "text" in read && sha256(read.text) === file.digest;
}

function isPack(value: unknown): value is PackedRules {
  return (
    isMap(value) &&
    typeof value.text === "string" &&
    Array.isArray(value.at) &&
    typeof value.ids === "string" &&
    typeof value.names === "string" &&
    Array.isArray(value.patterns) &&
    Array.isArray(value.redirects) &&
    Array.isArray(value.exact)
  );
}

/** The entry's payload when the entry can be used; undefined for a missing, foreign, corrupt or stale one. */
/** The policy made from the entry last read, by the entry file's identity (see loadPolicyCached). */
let remembered: { identity: string; loaded: LoadedPolicy } | undefined;
/** The entry last read in full and found sound, by its file's identity. */
let lastRead: { identity: string; payload: Payload; files: Recorded[] } | undefined;

/**
 * The entry at `path`, if it is one this user wrote and its layers are as it recorded them; with the
 * identity of its file (device, inode, size, times: a rewritten entry, always renamed into place, has
 * another). The entry's content is read and checked again only when that identity changed.
 */
function readEntry(path: string): { payload: Payload; identity: string } | undefined {
  let text: string;
  let identity: string;
  try {
    // Non-blocking: a FIFO put in its place cannot hold the hook up (it is then refused as not a file).
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const stat = fstatSync(fd);
      // Only an entry this user wrote and no one else can have changed.
      if (!stat.isFile() || (process.getuid && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0) return undefined;
      identity = `${path}\0${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
      if (lastRead?.identity === identity) return lastRead.files.every(unchanged) ? { payload: lastRead.payload, identity } : undefined;
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  try {
    const entry = JSON.parse(text) as Entry;
    if (
      !isMap(entry) ||
      entry.format !== FORMAT ||
      entry.build !== BUILD ||
      typeof entry.payload !== "string" ||
      !Array.isArray(entry.files)
    )
      return undefined;
    if (sha256(entry.payload) !== entry.sum) return undefined;
    for (const file of entry.files) {
      if (!isMap(file) || typeof file.path !== "string" || !unchanged(file)) return undefined;
    }
    const payload = JSON.parse(entry.payload) as Payload;
    if (
      !isMap(payload) ||
      !isMap(payload.head) ||
      !isPack(payload.own) ||
      !Array.isArray(payload.replaced) ||
      typeof payload.bounded !== "boolean" ||
      !Array.isArray(payload.defaults) ||
      !Array.isArray(payload.layers) ||
      !Array.isArray(payload.ignored) ||
      typeof payload.digest !== "string"
    )
      return undefined;
    lastRead = { identity, payload, files: entry.files };
    return { payload, identity };
  } catch {
    return undefined;
  }
}

/** The loaded policy an entry holds: its head, with the rules read through the packs when used. */
function fromPayload(payload: Payload, cwd: string): LoadedPolicy {
  const replaced = new Set(payload.replaced);
  let rules: Policy["rules"] | undefined;
  const unpack = (): Policy["rules"] => [...unpackRules(payload.own), ...DEFAULT_POLICY.rules.filter((rule) => !replaced.has(rule.id))];
  const head = payload.head as Record<string, unknown>;
  const embedded = DEFAULT_POLICY as unknown as Record<string, unknown>;
  // The embedded default's own properties, not their values: its larger sections stay JSON text until
  // read (embed.ts), and reading them here cost every hook with a layer ≈1.5 M instructions.
  for (const key of payload.defaults) {
    const property = key === "rules" ? undefined : Object.getOwnPropertyDescriptor(embedded, key);
    if (property) Object.defineProperty(head, key, { ...property, enumerable: true });
  }
  const policy = head as unknown as Policy;
  Object.defineProperty(policy, "rules", { enumerable: true, configurable: true, get: () => (rules ??= unpack()) });
  attachRuleIndex(
    policy,
    packedRuleIndex([{ pack: payload.own }, { pack: DEFAULT_RULES, replaced }], () => policy.rules),
  );
  return {
    policy,
    digest: payload.digest,
    layers: payload.layers,
    warnings: payload.warnings,
    ignored: payload.ignored,
    repositoryRoot: payload.repositoryRoot,
    cwd,
  };
}

/**
 * Writes the entry for a fresh load, if the files it read are still what it read (their chain digests
 * match the loaded layers') and the trust store did not change meanwhile.
 */
function writeEntry(path: string, loaded: LoadedPolicy, wanted: string[], store: string, storeBefore: Recorded): void {
  const files: Recorded[] = [];
  const withReal = (file: Recorded): Recorded => ({ ...file, real: realpathSync(file.path) });
  for (const layer of loaded.layers) {
    if (layer.name === "default") continue;
    const recorded = layer.files.map(recordFile).map((file) => (layer.name === "repo" ? withReal(file) : file));
    if (recorded.some((file) => file.size === -1)) return;
    const texts = layer.files.map((file) => readPolicyText(file));
    if (texts.some((read) => !("text" in read))) return;
    if (
      (require("./trust.ts") as typeof import("./trust.ts")).chainDigest(texts.map((read) => ("text" in read ? read.text : ""))) !==
      layer.digest
    )
      return;
    files.push(...recorded);
  }
  // A layer file the loader left out (a repository file resolving outside the repository) counts too:
  // the entry is stale once it changes, moves or is trusted.
  for (const own of wanted) {
    const file = own.slice(own.indexOf(":") + 1);
    if (!files.some((recorded) => recorded.path === file))
      files.push(own.startsWith("repo:") ? withReal(recordFile(file)) : recordFile(file));
  }
  if (wanted.some((own) => own.startsWith("repo:"))) {
    const storeAfter = recordFile(store);
    if (storeAfter.digest !== storeBefore.digest || storeAfter.size !== storeBefore.size) return;
    files.push(storeBefore.mtimeMs === storeAfter.mtimeMs ? storeBefore : { ...storeBefore, mtimeMs: -1 });
  }
  // The effective rules are the layers' own (first) and then the default's not replaced, in order, the
  // very objects of DEFAULT_POLICY.rules (merge.ts copies none): anything else is not cached.
  const defaults = DEFAULT_POLICY.rules;
  const defaultSet = new Set<unknown>(defaults);
  const effective = loaded.policy.rules;
  let own = 0;
  while (own < effective.length && !defaultSet.has(effective[own])) own++;
  const kept = new Set(effective.slice(own));
  const rest = defaults.filter((rule) => kept.has(rule));
  if (rest.length !== effective.length - own || rest.some((rule, at) => effective[own + at] !== rule)) return;
  const embedded = DEFAULT_POLICY as unknown as Record<string, unknown>;
  const head: Record<string, unknown> = { ...loaded.policy, rules: null };
  const defaultSections = Object.keys(head).filter(
    (key) => key !== "rules" && key in embedded && JSON.stringify(head[key]) === JSON.stringify(embedded[key]),
  );
  for (const key of defaultSections) head[key] = null;
  const payload: Payload = {
    digest: loaded.digest,
    layers: loaded.layers,
    warnings: loaded.warnings,
    ignored: loaded.ignored,
    repositoryRoot: loaded.repositoryRoot,
    // rules: null keeps the key's place, so the policy read back lists its keys in the same order.
    head,
    own: packRules(effective.slice(0, own)),
    replaced: defaults.filter((rule) => !kept.has(rule)).map((rule) => rule.id),
    bounded: boundedPolicy(effective.slice(0, own), loaded.policy as unknown as Record<string, unknown>, embedded),
    defaults: defaultSections,
  };
  const text = JSON.stringify(payload);
  const entry: Entry = { format: FORMAT, build: BUILD, files, sum: sha256(text), payload: text };
  const dir = join(path, "..");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    const data = Buffer.from(JSON.stringify(entry));
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}
