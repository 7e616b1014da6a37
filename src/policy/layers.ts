/**
 * Where policy layers live and how a layer file is read: its text, its
 * parsed value, and the files it `extends`, weakest first.
 *
 * Read safely: a policy file is a file a repository or a person wrote, and
 * may be a link to anything. Only regular files are read (not /dev/zero, a
 * FIFO or a folder), at most MAX_POLICY_BYTES of them, and nothing of their
 * content is ever quoted in an error: a `.verdict/policy.yaml` that links to
 * `../.env` must not put the secret into the hook's reason. A repository
 * file that resolves outside the repository is marked `outside`; the loader
 * does not use it until it is trusted.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { configDir } from "../files/dirs.ts";
import { readAll } from "../files/private.ts";
import { redact } from "../core/redact.ts";
import type { PolicyProblem } from "./errors.ts";
import { isMap } from "./merge.ts";

export type Env = Record<string, string | undefined>;

export type LayerName = "default" | "user" | "repo" | "command-line";

/** One file of a layer, parsed. */
export type LayerFile = { file: string; text: string; data: Record<string, unknown> };

const MAX_EXTENDS_DEPTH = 8;
/** A policy is a page or two of YAML; a file past this is refused before it is read whole. */
const MAX_POLICY_BYTES = 1024 * 1024;

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
 * to the repository root (only `cwd` itself outside a repository); the
 * nearest one.
 */
export function repoPolicyPath(cwd: string): string | undefined {
  return repoPolicyPaths(cwd).at(-1);
}

/**
 * Every `.verdict/policy.yaml` from the repository root down to `cwd`, root
 * first: each applies, under its own trust, so a nested one (untrusted, it
 * can only tighten) never replaces the one at the root.
 */
export function repoPolicyPaths(cwd: string, root: string | undefined = repositoryRoot(cwd)): string[] {
  const found: string[] = [];
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, ".verdict", "policy.yaml");
    if (existsSync(candidate)) found.push(candidate);
    if (!root || dir === root) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found.reverse();
}

/** Whether `file`, links resolved, is inside `root` (links resolved too). */
export function resolvesInside(file: string, root: string): boolean {
  try {
    const rel = relative(realpathSync(root), realpathSync(file));
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
  } catch {
    return false;
  }
}

/**
 * A policy file's text: only a regular file, at most MAX_POLICY_BYTES. Opened
 * non-blocking, so a FIFO cannot hold the hook up; checked after opening, so a
 * file swapped for a device meanwhile is still refused.
 */
export function readPolicyText(path: string): { text: string } | { why: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      why:
        code === "ENOENT"
          ? "no such file"
          : code === "EACCES"
            ? "permission denied"
            : code === "ELOOP"
              ? "too many levels of links"
              : `cannot open it (${code ?? "error"})`,
    };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      return {
        why: `it is not a regular file (${stat.isDirectory() ? "a folder" : stat.isFIFO() ? "a pipe" : stat.isCharacterDevice() || stat.isBlockDevice() ? "a device" : stat.isSocket() ? "a socket" : "not a file"}); a policy must be a YAML file`,
      };
    if (stat.size > MAX_POLICY_BYTES) return { why: `it is ${stat.size} bytes, more than the ${MAX_POLICY_BYTES} a policy may have` };
    return { text: readAll(fd, stat.size).toString("utf8") };
  } catch (error) {
    return { why: `cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    closeSync(fd);
  }
}

/** What a value is, without its bytes: a policy problem may be shown to the model, never a file's content. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return `a string of ${value.length} characters`;
  return `a ${typeof value}`;
}

/** A problem made safe to show: what it found is redacted and clipped. */
export function safeProblem<T extends { message: string; found?: string }>(problem: T): T {
  const found = problem.found === undefined ? undefined : redact(problem.found);
  return {
    ...problem,
    message: redact(problem.message),
    ...(found !== undefined ? { found: found.length > 120 ? `${found.slice(0, 120)}…` : found } : {}),
  };
}

/**
 * Reads `file` and, first, every file it extends. Problems are returned
 * without positions; the loader adds them.
 */
export function readLayerChain(file: string, seen: string[] = []): { files: LayerFile[]; problems: PolicyProblem[] } {
  const chain = readLayerChainRaw(file, seen);
  return { files: chain.files, problems: chain.problems.map(safeProblem) };
}

function readLayerChainRaw(file: string, seen: string[]): { files: LayerFile[]; problems: PolicyProblem[] } {
  const path = resolve(file);
  if (seen.includes(path)) {
    return {
      files: [],
      problems: [
        {
          file: path,
          path: "extends",
          message: `extends forms a loop: ${[...seen, path].join(" -> ")}`,
          hint: "remove one of the extends",
        },
      ],
    };
  }
  if (seen.length >= MAX_EXTENDS_DEPTH) {
    return { files: [], problems: [{ file: path, path: "extends", message: `extends is nested more than ${MAX_EXTENDS_DEPTH} deep` }] };
  }
  const read = readPolicyText(path);
  if ("why" in read) {
    return {
      files: [],
      problems: [
        {
          file: path,
          path: "",
          message: `cannot read the policy: ${read.why}`,
          hint: "check the path given with --policy, VERDICT_POLICY or extends",
        },
      ],
    };
  }
  const text = read.text;
  // Strictly, by the one reader of policy files (parse.ts): its problems come with line and column.
  // Required here, not imported: a run with no layer never initialises the reader.
  const { parseStrict } = require("./parse.ts") as typeof import("./parse.ts");
  const parsed = parseStrict(text, path);
  if (!parsed.ok) return { files: [], problems: parsed.problems };
  const data = parsed.data ?? {};
  if (Array.isArray(data) || !isMap(data)) {
    return {
      files: [],
      problems: [
        { file: path, path: "", message: "a policy file must be a map of keys (judge:, acts:, rules:, ...)", found: kindOf(data) },
      ],
    };
  }
  const files: LayerFile[] = [];
  const problems: PolicyProblem[] = [];
  if (data.extends !== undefined) {
    if (typeof data.extends !== "string" || data.extends === "") {
      problems.push({ file: path, path: "extends", message: "extends names one policy file", found: kindOf(data.extends) });
    } else {
      const target = isAbsolute(data.extends) ? data.extends : join(dirname(path), data.extends);
      const chain = readLayerChainRaw(target, [...seen, path]);
      files.push(...chain.files);
      problems.push(...chain.problems);
    }
  }
  files.push({ file: path, text, data });
  return { files, problems };
}
