/**
 * The one way a policy is loaded: layer files in, a proven policy (or every
 * problem, positioned) out. Nothing else reads policy files. For each layer
 * over the embedded default (user, repository, --policy), each possibly
 * extending other files:
 *   1. parse strictly (parse.ts: one YAML reader, duplicate keys and merge keys refused);
 *   2. validate every file in full, whatever its trust (the schema);
 *   3. compile every rule and turn rule (patterns, catastrophic backtracking,
 *      a rule that can match nothing), and prove the rules' examples with the
 *      engine's own matching, against the policy the rule will run in;
 *   4. filter by trust: an untrusted repository layer keeps only what can
 *      tighten (trust.ts); one that fails any step is ignored whole, with one warning;
 *   5. merge (merge.ts) and check the result (complete new entries, references across sections).
 * A problem in a trusted layer refuses the whole policy (the CLI exits 2, a
 * hook answers hosts.on_error); a policy that fails never falls back to
 * something else. The embedded default was proven when verdict was built and
 * by the tests, so a run with no layer of its own does none of this.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import defaultText from "../../policy/default.yaml" with { type: "text" };
import { DEFAULT_DIGEST, DEFAULT_POLICY } from "./generated/default-policy.ts";
import { formatProblem, PolicyError, type PolicyProblem } from "./errors.ts";
import {
  readLayerChain,
  repoPolicyPaths,
  repositoryRoot,
  resolvesInside,
  safeProblem,
  userPolicyPath,
  type Env,
  type LayerName,
} from "./layers.ts";
import { emptyMerged, mergeLayer, type Origin } from "./merge.ts";
import { positionOf } from "./positions.ts";
import { layeredDigest } from "./digest.ts";
import type { Pending, Written } from "./prove.ts";
import type { Policy, Rule } from "./schema.ts";
import { chainDigest, isTrusted, stricterOnly } from "./trust.ts";

/**
 * Steps 2, 3 and 5 (prove.ts) with the rule engine and the tool rules' checks they use, loaded only
 * when there is a layer to prove: a run with the embedded default alone never initialises them.
 */
function prove(): typeof import("./prove.ts") {
  return require("./prove.ts") as typeof import("./prove.ts");
}

export const DEFAULT_POLICY_TEXT: string = defaultText;
export const DEFAULT_FILE = "(embedded default)";

export type LoadOptions = {
  cwd: string;
  /** --policy FILE; VERDICT_POLICY when absent. */
  file?: string;
  env?: Env;
  /** Skip the user's and the repository's layers (tests, `policy check FILE`). */
  only?: LayerName[];
  /** Record which layer set each value (for `policy show --effective`); errors always get it. */
  origins?: boolean;
  /** Also compile and prove the embedded default's rules (policy check, tests): a hook never does. */
  proveDefault?: boolean;
  /** This file as the repository layer, instead of the one found from `cwd` (policy trust FILE). */
  repoFile?: string;
  /** Load the repository layer as trusted whatever the trust store says (policy trust checks what it would accept). */
  trustRepo?: boolean;
};

export type LayerSource = {
  name: LayerName;
  /** The layer's own file; the files it extends come first in `files`. */
  file: string;
  files: string[];
  trusted: boolean;
  /** What trust is bound to: the digest of every file of the chain. */
  digest: string;
  /** An untrusted layer with problems, ignored whole: nothing of it is in the policy. */
  ignored?: boolean;
};

/** An untrusted repository layer that failed a step and was ignored whole, with its problems. */
export type IgnoredLayer = { file: string; digest: string; problems: PolicyProblem[] };

export type LoadedPolicy = {
  policy: Policy;
  /** What a judgment was made under: the default's digest, or one over it and each layer's content and trust (digest.ts). */
  digest: string;
  layers: LayerSource[];
  /** What of an untrusted layer was ignored and what to do about it, as sentences (show each once: warnings.ts). */
  warnings: string[];
  /** Untrusted layers ignored whole for their problems (policy check and doctor report them). */
  ignored: IgnoredLayer[];
  /** Which layer and file set each value, when asked for. */
  origins?: Map<string, Origin>;
  /** The repository root found from `cwd`, the directory the layers were looked up from. */
  repositoryRoot?: string;
  cwd?: string;
};

export type LoadResult = { ok: true; loaded: LoadedPolicy } | { ok: false; error: PolicyError };

export function loadPolicy(options: LoadOptions): LoadResult {
  const result = loadOnce(options, options.origins === true);
  // Errors point into files, which needs origins: load again, tracking them.
  if (options.origins) return result;
  if (!result.ok || result.loaded.ignored.length > 0) return loadOnce(options, true);
  return result;
}

function loadOnce(options: LoadOptions, trackOrigins: boolean): LoadResult {
  const env = options.env ?? process.env;
  const wanted = (name: LayerName) => !options.only || options.only.includes(name);
  const problems: Pending[] = [];
  const texts = new Map<string, string>([[DEFAULT_FILE, defaultText]]);
  const merged = emptyMerged(trackOrigins);
  const layers: LayerSource[] = [];
  const warnings: string[] = [];
  const ignored: IgnoredLayer[] = [];
  // The rules and turn rules of trusted layers, by object: their examples are proven once all is merged.
  const written: Written = new Map();
  // The rules an untrusted layer added: they may only tighten (compile.ts, markTightening).
  const tightening = new Set<Rule>();

  mergeLayer(merged, DEFAULT_POLICY as unknown as Record<string, unknown>, "default", DEFAULT_FILE);
  layers.push({ name: "default", file: DEFAULT_FILE, files: [DEFAULT_FILE], trusted: true, digest: DEFAULT_DIGEST });
  if (options.proveDefault) problems.push(...prove().defaultProblems());

  // The repository around cwd, found once (a walk up the folders, checking for .git at each).
  const repository = repositoryRoot(options.cwd);
  const candidates: { name: LayerName; file: string | undefined; mustExist: boolean }[] = [
    { name: "user", file: wanted("user") ? userPolicyPath(env) : undefined, mustExist: false },
    // Every repository layer from the root down to cwd, root first, each under its own trust (or the one file policy trust names).
    ...(options.repoFile !== undefined ? [options.repoFile] : wanted("repo") ? repoPolicyPaths(options.cwd, repository) : []).map(
      (file) => ({
        name: "repo" as LayerName,
        file,
        mustExist: options.repoFile !== undefined,
      }),
    ),
    { name: "command-line", file: options.file ?? (wanted("command-line") ? env.VERDICT_POLICY || undefined : undefined), mustExist: true },
  ];
  for (const { name, file, mustExist } of candidates) {
    if (!file || (!mustExist && !existsSync(file))) continue;
    // 1. Parse strictly (readLayerChain reads each file with parse.ts).
    const chain = readLayerChain(file);
    const own = chain.files[chain.files.length - 1];
    const ownFile = own?.file ?? resolve(file);
    const digest = chainDigest(chain.files.map((part) => part.text));
    const trusted = name !== "repo" || options.trustRepo === true || isTrusted(env, ownFile, digest);
    // A repository file that resolves outside the repository (a link to ../.env, ~/.git-credentials,
    // /dev/zero) is not used, and nothing of it is shown, until a person trusts it.
    const root = name === "repo" ? (repository ?? options.cwd) : undefined;
    const outside = root === undefined ? [] : [file, ...chain.files.map((part) => part.file)].filter((part) => !resolvesInside(part, root));
    if (outside.length > 0 && !trusted) {
      warnings.push(
        `ignored ${file}: it resolves outside the repository (${outside.join(", ")}), so it is not read until you trust it: verdict policy trust ${file}`,
      );
      continue;
    }
    for (const part of chain.files) texts.set(part.file, part.text);
    const layerProblems: Pending[] = [...chain.problems];
    const layerWritten: Written = new Map();
    // 2. Validate every file in full, and 3. compile its rules, whatever its trust.
    for (const part of chain.files) layerProblems.push(...prove().checkFile(part, layerWritten));
    const source: LayerSource = { name, file: ownFile, files: chain.files.map((part) => part.file), trusted, digest };
    if (trusted) {
      problems.push(...layerProblems);
      layers.push(source);
      if (layerProblems.length > 0) continue;
      for (const part of chain.files) mergeLayer(merged, part.data, name, part.file);
      for (const [entry, where] of layerWritten) written.set(entry, where);
      continue;
    }
    // An untrusted layer: proven against what it would make of the policy, then 4. filtered by trust.
    if (layerProblems.length === 0) {
      const trial = { value: merged.value, origins: merged.origins && new Map(merged.origins) };
      for (const part of chain.files) mergeLayer(trial, part.data, name, part.file);
      layerProblems.push(...prove().checkMerged(trial.value, trial.origins, layerWritten, ownFile));
    }
    // 4. What the trust filter keeps must stand on its own too (a kept rule naming an act the file
    // defines, which is not kept, would break the policy): checked as merged, before it is used.
    const ignoredParts: { path: string; why: string }[] = [];
    const filtered = { value: merged.value, origins: merged.origins && new Map(merged.origins) };
    const added: Rule[] = [];
    if (layerProblems.length === 0) {
      for (const part of chain.files) {
        const { kept, ignored: dropped } = stricterOnly(part.data, filtered.value);
        ignoredParts.push(...dropped);
        // Marked before the filtered policy's index is built (checkMerged builds it, and keeps it).
        for (const rule of (kept.rules ?? []) as Rule[]) {
          prove().markTightening(rule);
          added.push(rule);
        }
        mergeLayer(filtered, kept, name, part.file);
      }
      const keptWritten: Written = new Map([...layerWritten].filter(([entry]) => added.includes(entry as Rule)));
      const remaining = prove().checkMerged(filtered.value, filtered.origins, keptWritten, ownFile);
      const left = ignoredParts.map(({ path }) => path).join(", ");
      const why = `what is left once the parts an untrusted policy may not set are ignored (${left}) does not hold on its own; trusting the file (verdict policy trust) would keep them`;
      layerProblems.push(...remaining.map((problem) => ({ ...problem, hint: problem.hint ? `${problem.hint}; ${why}` : why })));
    }
    layers.push({ ...source, ignored: layerProblems.length > 0 ? true : undefined });
    if (layerProblems.length > 0) {
      const positioned = layerProblems.map((problem) => withPosition(problem, texts));
      ignored.push({ file: ownFile, digest, problems: positioned });
      warnings.push(brokenUntrusted(ownFile, positioned));
      continue;
    }
    merged.value = filtered.value;
    merged.origins = filtered.origins;
    for (const rule of added) tightening.add(rule);
    if (ignoredParts.length > 0) warnings.push(partlyIgnored(ownFile, ignoredParts));
  }

  // 5. The merged policy checked as a whole, and the trusted layers' rules proven in it.
  // (Not when every layer over the default was ignored: the default alone was proven when verdict was built.)
  const layered = layers.some((layer) => layer.name !== "default" && !layer.ignored);
  if (problems.length === 0 && layered) problems.push(...prove().checkMerged(merged.value, merged.origins, written, undefined));
  if (problems.length > 0) return { ok: false, error: new PolicyError(problems.map((problem) => withPosition(problem, texts))) };

  const policy = merged.value as Policy;
  // Compiled now, not when a command first meets them: every rule of a layer runs as it was checked.
  if (written.size > 0 || tightening.size > 0)
    prove().compileEagerly(policy.rules, new Set([...(written.keys() as Iterable<Rule>), ...tightening]));
  const counted = layers.filter((layer) => !layer.ignored);
  const digest = counted.length === 1 ? DEFAULT_DIGEST : layeredDigest(DEFAULT_DIGEST, counted.slice(1));
  return {
    ok: true,
    loaded: {
      policy,
      digest,
      layers,
      warnings,
      ignored,
      origins: merged.origins,
      repositoryRoot: repository,
      cwd: options.cwd,
    },
  };
}

/** The one warning for an untrusted layer ignored whole. */
function brokenUntrusted(file: string, problems: PolicyProblem[]): string {
  const first = problems[0] ? formatProblem(problems[0]).split("\n")[0] : "";
  const count = problems.length === 1 ? "a problem" : `${problems.length} problems`;
  return `the repository policy ${file} is ignored: it has ${count} (${first}). It is not trusted, so it could only have made verdicts stricter, and nothing else changes. To see every problem, run: verdict policy check`;
}

/** The one warning for the parts of an untrusted layer the trust filter left out. */
function partlyIgnored(file: string, parts: { path: string; why: string }[]): string {
  const listed = parts.map(({ path, why }) => `${path} (${why})`).join("; ");
  return `the repository policy ${file} is not trusted, so only what makes verdicts stricter is used; ignored: ${listed}. If you have read it and trust it, run: verdict policy trust ${file}`;
}

/** Adds line and column, lazily loading the `yaml` package (only on this error path). */
function withPosition(problem: Pending, texts: Map<string, string>): PolicyProblem {
  // Made safe to show (layers.ts): what a problem found is redacted and clipped, never a file's secret.
  const { segments, atKey, ...rest } = safeProblem(problem);
  if (rest.line !== undefined) return rest;
  const text = texts.get(problem.file);
  if (text === undefined) return rest;
  const position = positionOf(text, segments ?? [], atKey);
  return position ? { ...rest, line: position.line, column: position.column } : rest;
}
