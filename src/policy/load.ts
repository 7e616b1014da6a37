/**
 * Loads the effective policy: the embedded default, then the user's layer,
 * the repository's layer and the command line's, each possibly extending
 * other files; merged (see merge.ts), validated, and checked. Problems are
 * reported all at once with file, line and column. A policy that fails to
 * load never falls back to something else.
 */
import { existsSync } from "node:fs";
import defaultText from "../../policy/default.yaml" with { type: "text" };
import { DEFAULT_DIGEST, DEFAULT_POLICY } from "./generated/default-policy.ts";
import { PolicyError, type PolicyProblem } from "./errors.ts";
import { readLayerChain, repoPolicyPaths, repositoryRoot, resolvesInside, safeProblem, userPolicyPath, type Env, type LayerFile, type LayerName } from "./layers.ts";
import { emptyMerged, mergeLayer, originOf, type Origin } from "./merge.ts";
import { positionOf, yamlSyntaxError } from "./positions.ts";
import { layeredDigest } from "./digest.ts";
import type { Policy } from "./schema.ts";
import { checkSemantics } from "./semantics.ts";
import { chainDigest, isTrusted, stricterOnly } from "./trust.ts";
import { checkComplete, checkLayer } from "./validate.ts";

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
};

export type LayerSource = {
  name: LayerName;
  /** The layer's own file; the files it extends come first in `files`. */
  file: string;
  files: string[];
  trusted: boolean;
  /** What trust is bound to: the digest of every file of the chain. */
  digest: string;
};

export type LoadedPolicy = {
  policy: Policy;
  /** What a judgment was made under: the default's digest, or one over it and each layer's content and trust (digest.ts). */
  digest: string;
  layers: LayerSource[];
  /** Parts of untrusted layers that were ignored, as sentences. */
  warnings: string[];
  /** Which layer and file set each value, when asked for. */
  origins?: Map<string, Origin>;
  /** The repository root found from `cwd`, the directory the layers were looked up from. */
  repositoryRoot?: string;
  cwd?: string;
};

export type LoadResult = { ok: true; loaded: LoadedPolicy } | { ok: false; error: PolicyError };

type Pending = PolicyProblem & { segments?: (string | number)[]; atKey?: boolean; syntax?: boolean; text?: string };

export function loadPolicy(options: LoadOptions): LoadResult {
  const result = loadOnce(options, options.origins === true);
  // Errors point into files, which needs origins: load again, tracking them.
  return result.ok || options.origins ? result : loadOnce(options, true);
}

function loadOnce(options: LoadOptions, trackOrigins: boolean): LoadResult {
  const env = options.env ?? process.env;
  const wanted = (name: LayerName) => !options.only || options.only.includes(name);
  const problems: Pending[] = [];
  const texts = new Map<string, string>([[DEFAULT_FILE, defaultText]]);
  const merged = emptyMerged(trackOrigins);
  const layers: LayerSource[] = [];
  const warnings: string[] = [];

  mergeLayer(merged, DEFAULT_POLICY as unknown as Record<string, unknown>, "default", DEFAULT_FILE);
  layers.push({ name: "default", file: DEFAULT_FILE, files: [DEFAULT_FILE], trusted: true, digest: DEFAULT_DIGEST });

  const candidates: { name: LayerName; file: string | undefined; mustExist: boolean }[] = [
    { name: "user", file: wanted("user") ? userPolicyPath(env) : undefined, mustExist: false },
    // Every repository layer from the root down to cwd, root first, each under its own trust.
    ...(wanted("repo") ? repoPolicyPaths(options.cwd) : []).map((file) => ({ name: "repo" as LayerName, file, mustExist: false })),
    { name: "command-line", file: options.file ?? (wanted("command-line") ? env.VERDICT_POLICY || undefined : undefined), mustExist: true },
  ];
  for (const { name, file, mustExist } of candidates) {
    if (!file || (!mustExist && !existsSync(file))) continue;
    const chain = readLayerChain(file);
    const own = chain.files[chain.files.length - 1];
    const digest = chainDigest(chain.files.map((part) => part.text));
    // A repository file that resolves outside the repository (a link to ../.env, ~/.git-credentials,
    // /dev/zero) is not used, and nothing of it is shown, until a person trusts it.
    const root = name === "repo" ? repositoryRoot(options.cwd) ?? options.cwd : undefined;
    const outside = root === undefined ? [] : [file, ...chain.files.map((part) => part.file)].filter((part) => !resolvesInside(part, root));
    if (outside.length > 0 && !(own && isTrusted(env, own.file, digest))) {
      warnings.push(`ignored ${file}: it resolves outside the repository (${outside.join(", ")}), so it is not read until you trust it: verdict policy trust ${file}`);
      continue;
    }
    problems.push(...chain.problems);
    for (const part of chain.files) texts.set(part.file, part.text);
    if (!own) continue;
    const trusted = name !== "repo" || isTrusted(env, own.file, digest);
    layers.push({ name, file: own.file, files: chain.files.map((part) => part.file), trusted, digest });
    for (const part of chain.files) {
      const schemaProblems = checkLayer(part.data).map(safeProblem);
      problems.push(...schemaProblems.map((problem) => ({ ...problem, file: part.file })));
      if (schemaProblems.length > 0) continue;
      mergeLayer(merged, trusted ? part.data : untrustedPart(part, own.file, merged.value, warnings), name, part.file);
    }
  }

  // The embedded default alone was checked when verdict was built (tests/policy), so only
  // a policy with layers on top pays for checking the merge.
  if (problems.length === 0 && layers.length > 1) {
    const effective = checkComplete(merged.value, DEFAULT_POLICY as unknown as Record<string, unknown>);
    problems.push(...effective.map((problem) => safeProblem(located(problem, merged.origins))));
    if (effective.length === 0) {
      problems.push(...checkSemantics(merged.value as Policy, new Set(DEFAULT_POLICY.turn_rules)).map((problem) => located(problem, merged.origins)));
    }
  }
  if (problems.length > 0) return { ok: false, error: new PolicyError(problems.map((problem) => withPosition(problem, texts))) };

  const policy = merged.value as Policy;
  const digest = layers.length === 1 ? DEFAULT_DIGEST : layeredDigest(DEFAULT_DIGEST, layers.slice(1));
  return { ok: true, loaded: { policy, digest, layers, warnings, origins: merged.origins, repositoryRoot: repositoryRoot(options.cwd), cwd: options.cwd } };
}

function untrustedPart(part: LayerFile, own: string, effective: Record<string, unknown>, warnings: string[]): Record<string, unknown> {
  const { kept, ignored } = stricterOnly(part.data, effective);
  for (const { path, why } of ignored) {
    warnings.push(`ignored ${path} in ${part.file}: the repository policy is not trusted and ${why}. If you trust it, run: verdict policy trust ${own}`);
  }
  return kept;
}

/** A problem in the effective policy, pointed at the layer file that set the value. */
function located(problem: Omit<Pending, "file"> & { segments: (string | number)[] }, origins: Map<string, Origin> | undefined): Pending {
  const origin = origins && originOf(origins, problem.segments);
  return { ...problem, file: origin?.file ?? DEFAULT_FILE, segments: origin?.path ?? problem.segments };
}

/** Adds line and column, lazily loading the `yaml` package (only on this error path). */
function withPosition(problem: Pending, texts: Map<string, string>): PolicyProblem {
  const { segments, atKey, syntax, text: ownText, ...rest } = problem;
  const text = ownText ?? texts.get(problem.file);
  if (text === undefined) return rest;
  if (syntax) {
    const error = yamlSyntaxError(text);
    return error ? { ...rest, message: `not valid YAML: ${error.message}`, line: error.position?.line, column: error.position?.column } : rest;
  }
  const position = positionOf(text, segments ?? [], atKey);
  return position ? { ...rest, line: position.line, column: position.column } : rest;
}
