/**
 * Loads the effective policy: the embedded default, then the user's, the
 * repository's and the command line's layers, merged and validated.
 * (First version: default plus --policy/VERDICT_POLICY; layers, trust and
 * positioned errors follow.)
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import defaultText from "../../policy/default.yaml" with { type: "text" };
import { PolicyError } from "./errors.ts";
import { Policy } from "./schema.ts";

export type LoadOptions = {
  cwd: string;
  /** --policy FILE */
  file?: string;
  env?: Record<string, string | undefined>;
};

export type LayerSource = { name: "default" | "user" | "repo" | "command-line"; file: string; trusted: boolean };

export type LoadedPolicy = {
  policy: Policy;
  /** SHA-256 of the effective policy's canonical JSON, shortened. */
  digest: string;
  layers: LayerSource[];
  warnings: string[];
};

export type LoadResult = { ok: true; loaded: LoadedPolicy } | { ok: false; error: PolicyError };

export const DEFAULT_POLICY_TEXT: string = defaultText;

export function loadPolicy(options: LoadOptions): LoadResult {
  const env = options.env ?? process.env;
  let raw = Bun.YAML.parse(defaultText) as Record<string, unknown>;
  const layers: LayerSource[] = [{ name: "default", file: "(embedded default)", trusted: true }];
  const file = options.file ?? env.VERDICT_POLICY;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      return { ok: false, error: new PolicyError([{ file, path: "", message: `cannot read the policy: ${(error as Error).message}` }]) };
    }
    const layer = Bun.YAML.parse(text) as Record<string, unknown>;
    raw = mergeSimple(raw, layer) as Record<string, unknown>;
    layers.push({ name: "command-line", file, trusted: true });
  }
  const parsed = Policy.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      error: new PolicyError(parsed.error.issues.map((issue) => ({ file: file ?? "(embedded default)", path: issue.path.join("."), message: issue.message }))),
    };
  }
  const digest = createHash("sha256").update(JSON.stringify(parsed.data)).digest("hex").slice(0, 16);
  return { ok: true, loaded: { policy: parsed.data, digest, layers, warnings: [] } };
}

function mergeSimple(base: unknown, over: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(over)) return [...over, ...base];
  if (isMap(base) && isMap(over)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(over)) out[key] = key in base ? mergeSimple(base[key], value) : value;
    return out;
  }
  return over;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
