/**
 * Where policy layers live and how a layer file is read: its text, its
 * parsed value, and the files it `extends`, weakest first.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { PolicyProblem } from "./errors.ts";
import { isMap } from "./merge.ts";
import { parseStrict } from "./parse.ts";
import { configDir } from "./trust.ts";

export type Env = Record<string, string | undefined>;

export type LayerName = "default" | "user" | "repo" | "command-line";

/** One file of a layer, parsed. */
export type LayerFile = { file: string; text: string; data: Record<string, unknown> };

export const MAX_EXTENDS_DEPTH = 8;

export function userPolicyPath(env: Env): string {
  return join(configDir(env), "policy.yaml");
}

/** The repository root above `cwd` (the nearest folder holding .git), if any. */
export function repositoryRoot(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The repo layer: `.verdict/policy.yaml` in `cwd` or a folder above it, up
 * to the repository root (only `cwd` itself outside a repository).
 */
export function repoPolicyPath(cwd: string): string | undefined {
  const root = repositoryRoot(cwd);
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, ".verdict", "policy.yaml");
    if (existsSync(candidate)) return candidate;
    if (!root || dir === root) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Reads `file` and, first, every file it extends. Problems are returned
 * without positions; the loader adds them.
 */
export function readLayerChain(file: string, seen: string[] = []): { files: LayerFile[]; problems: PolicyProblem[] } {
  const path = resolve(file);
  if (seen.includes(path)) {
    return { files: [], problems: [{ file: path, path: "extends", message: `extends forms a loop: ${[...seen, path].join(" -> ")}`, hint: "remove one of the extends" }] };
  }
  if (seen.length >= MAX_EXTENDS_DEPTH) {
    return { files: [], problems: [{ file: path, path: "extends", message: `extends is nested more than ${MAX_EXTENDS_DEPTH} deep` }] };
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (error as Error).message;
    return { files: [], problems: [{ file: path, path: "", message: `cannot read the policy: ${why}`, hint: "check the path given with --policy, VERDICT_POLICY or extends" }] };
  }
  // Strictly, by the one reader of policy files (parse.ts): its problems come with line and column.
  const parsed = parseStrict(text, path);
  if (!parsed.ok) return { files: [], problems: parsed.problems };
  const data = parsed.data ?? {};
  if (Array.isArray(data) || !isMap(data)) {
    return { files: [], problems: [{ file: path, path: "", message: "a policy file must be a map of keys (judge:, acts:, rules:, ...)", found: Array.isArray(data) ? "a list" : JSON.stringify(data) }] };
  }
  const files: LayerFile[] = [];
  const problems: PolicyProblem[] = [];
  if (data.extends !== undefined) {
    if (typeof data.extends !== "string" || data.extends === "") {
      problems.push({ file: path, path: "extends", message: "extends names one policy file", found: JSON.stringify(data.extends) });
    } else {
      const target = isAbsolute(data.extends) ? data.extends : join(dirname(path), data.extends);
      const chain = readLayerChain(target, [...seen, path]);
      files.push(...chain.files);
      problems.push(...chain.problems);
    }
  }
  files.push({ file: path, text, data });
  return { files, problems };
}
