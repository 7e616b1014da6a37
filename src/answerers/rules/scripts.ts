/**
 * Scripts are judged by what they run: `npm run X`, `pnpm X`, `yarn X`,
 * `bun run X`, `make T`, `just R` run a body the project wrote (package.json
 * `scripts`, a Makefile recipe, a justfile recipe). The body is read from the
 * disk where the hook runs, only for these commands, bounded in size and
 * depth, and judged by the same engine. Where it cannot be read (no file, a
 * runner with no readable bodies such as turbo or nx), a name that says
 * deploy, release, publish, drop, destroy, migrate or prod is asked about.
 */
import { readFileSync, statSync } from "node:fs";
import { posix } from "node:path";
import { parseArgs } from "./args.ts";

/** Names of scripts whose purpose is to change something elsewhere or for good. */
export const CONSEQUENTIAL_NAME =
  /(^|[^a-z])(deploy|release|publish|drop|destroy|migrate|migration|prod|production|nuke|wipe|purge|teardown|apply|push|ship|upload|rollback)([^a-z]|$)/i;

/** The largest file read for a body, and how many recipes deep prerequisites are followed. */
const MAX_FILE = 256 * 1024;
const MAX_PREREQUISITES = 8;

type ScriptCall = {
  /** How the line names it: "npm run deploy", "make release". */
  label: string;
  /** The script, target or recipe names. */
  names: string[];
  /** The bodies, as shell lines, when the project has them; undefined when they cannot be read. */
  body?: string;
  /** Where the body runs. */
  cwd: string;
};

const NPM_BUILTINS = new Set([
  "install",
  "i",
  "ci",
  "add",
  "remove",
  "rm",
  "uninstall",
  "un",
  "update",
  "up",
  "upgrade",
  "outdated",
  "ls",
  "list",
  "ll",
  "la",
  "link",
  "unlink",
  "publish",
  "pack",
  "init",
  "create",
  "exec",
  "x",
  "dlx",
  "audit",
  "config",
  "set",
  "get",
  "why",
  "info",
  "view",
  "show",
  "search",
  "login",
  "logout",
  "whoami",
  "version",
  "help",
  "cache",
  "store",
  "prune",
  "dedupe",
  "rebuild",
  "fund",
  "doctor",
  "import",
  "patch",
  "patch-commit",
  "env",
  "setup",
  "root",
  "bin",
  "prefix",
  "owner",
  "team",
  "token",
  "access",
  "deprecate",
  "dist-tag",
  "unpublish",
  "star",
  "stars",
  "ping",
  "edit",
  "explore",
  "docs",
  "bugs",
  "repo",
  "diff",
  "query",
  "sbom",
  "shrinkwrap",
  "workspaces",
  "workspace",
  "node",
  "plugin",
  "constraints",
  "npm",
  "dedup",
  "licenses",
  "server",
  "recursive",
  "m",
  "multi",
  "-r",
  "--recursive",
  "-w",
  "--workspace",
  "--filter",
  "-F",
  "global",
]);
const NPM_LIFECYCLE = new Set(["test", "t", "tst", "start", "stop", "restart"]);
const NAME_ONLY = new Set([
  "turbo",
  "nx",
  "lerna",
  "rake",
  "task",
  "mage",
  "grunt",
  "gulp",
  "invoke",
  "fab",
  "cargo-make",
  "earthly",
  "gradle",
  "gradlew",
  "sbt",
  "ant",
]);
const TURBO_LIKE_RUN = new Set(["run", "run-many", "affected", "exec"]);

/** Reads a small text file, or undefined. */
export function readSmall(path: string): string | undefined {
  try {
    if (statSync(path).size > MAX_FILE) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function packageScripts(dir: string): Record<string, string> | undefined {
  const text = readSmall(posix.join(dir, "package.json"));
  if (text === undefined) return undefined;
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    if (scripts === null || typeof scripts !== "object") return {};
    return Object.fromEntries(Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return undefined;
  }
}

/** The recipes of a Makefile: target -> prerequisites and recipe lines; the first target is the default. */
function makeRecipes(text: string): { first?: string; recipes: Map<string, { prerequisites: string[]; lines: string[] }> } {
  const recipes = new Map<string, { prerequisites: string[]; lines: string[] }>();
  let first: string | undefined;
  let current: { prerequisites: string[]; lines: string[] }[] = [];
  for (const raw of text.replace(/\\\n/g, " ").split("\n")) {
    if (raw.startsWith("\t")) {
      const line = raw
        .slice(1)
        .replace(/^[@+-]+/, "")
        .trim();
      if (line !== "") for (const recipe of current) recipe.lines.push(line);
      continue;
    }
    const m = /^([A-Za-z0-9_.%/ -]+?)\s*::?(?!=)\s*([^=;]*?)(?:;\s*(.*))?$/.exec(raw);
    if (!m || raw.trimStart().startsWith("#")) {
      if (raw.trim() !== "" && !raw.startsWith("#")) current = [];
      continue;
    }
    const targets = (m[1] as string).split(/\s+/).filter((t) => t !== "");
    const prerequisites = (m[2] ?? "").split(/\s+/).filter((t) => t !== "" && !t.startsWith("|"));
    current = targets.map((target) => {
      const recipe = recipes.get(target) ?? { prerequisites: [], lines: [] };
      recipe.prerequisites.push(...prerequisites);
      recipes.set(target, recipe);
      if (first === undefined && !target.startsWith(".")) first = target;
      return recipe;
    });
    if (m[3]) for (const recipe of current) recipe.lines.push(m[3].trim());
  }
  return { first, recipes };
}

/** The recipes of a justfile: name -> dependencies and body lines; the first recipe is the default. */
function justRecipes(text: string): { first?: string; recipes: Map<string, { prerequisites: string[]; lines: string[] }> } {
  const recipes = new Map<string, { prerequisites: string[]; lines: string[] }>();
  let first: string | undefined;
  let current: { prerequisites: string[]; lines: string[] } | undefined;
  for (const raw of text.split("\n")) {
    if (/^\s+\S/.test(raw) && current) {
      current.lines.push(raw.trim().replace(/^[@-]+/, ""));
      continue;
    }
    const m = /^@?([A-Za-z0-9_-]+)(?:\s+[^:=]*)?:(?!=)\s*(.*)$/.exec(raw);
    if (!m) {
      if (raw.trim() !== "" && !raw.startsWith("#")) current = undefined;
      continue;
    }
    current = { prerequisites: (m[2] ?? "").split(/\s+/).filter((t) => /^[A-Za-z0-9_-]+$/.test(t)), lines: [] };
    recipes.set(m[1] as string, current);
    first ??= m[1];
  }
  return { first, recipes };
}

/** A recipe's lines with its prerequisites' lines first, prerequisites followed a bounded number of times. */
function withPrerequisites(recipes: Map<string, { prerequisites: string[]; lines: string[] }>, names: string[]): string[] | undefined {
  const lines: string[] = [];
  const seen = new Set<string>();
  let budget = MAX_PREREQUISITES;
  const visit = (name: string): boolean => {
    if (seen.has(name)) return true;
    seen.add(name);
    const recipe = recipes.get(name);
    if (!recipe) return false;
    for (const prerequisite of recipe.prerequisites) if (recipes.has(prerequisite) && budget-- > 0) visit(prerequisite);
    lines.push(...recipe.lines);
    return true;
  };
  for (const name of names) if (!visit(name)) return undefined;
  return lines;
}

/** The script a command runs by name, and its body when the project has it; undefined for any other command. */
export function scriptCall(name: string, args: readonly string[], cwd: string | undefined): ScriptCall | undefined {
  if (cwd === undefined) return undefined;
  if (name === "npm" || name === "pnpm" || name === "yarn" || name === "bun") {
    const parsed = parseArgs(args, new Set(["--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "--filter", "-F"]));
    let operands = parsed.operands;
    // yarn workspace NAME run X / yarn workspaces foreach [options] run X: the script of a workspace.
    if (name === "yarn" && operands[0] === "workspace") operands = operands.slice(2);
    else if (name === "yarn" && operands[0] === "workspaces" && operands[1] === "foreach") operands = operands.slice(2);
    const [first, second] = operands;
    if (first === undefined) return undefined;
    let script: string | undefined;
    if (first === "run" || first === "run-script" || first === "rr") script = second;
    else if (NPM_LIFECYCLE.has(first)) script = first === "t" || first === "tst" ? "test" : first;
    else if (name !== "npm" && name !== "bun" && !NPM_BUILTINS.has(first)) script = first;
    if (script === undefined) return undefined;
    const dirOption = parsed.values.find(([option]) => ["--prefix", "-C", "--dir", "--cwd"].includes(option))?.[1];
    const dir = dirOption === undefined ? cwd : posix.resolve(cwd, dirOption);
    const scripts = packageScripts(dir);
    const label = `${name} run ${script}`;
    if (scripts === undefined || scripts[script] === undefined) return { label, names: [script], cwd: dir };
    const body = [scripts[`pre${script}`], scripts[script], scripts[`post${script}`]]
      .filter((line): line is string => line !== undefined)
      .join("\n");
    return { label, names: [script], body, cwd: dir };
  }
  if (name === "make" || name === "gmake") {
    const parsed = parseArgs(args, new Set(["-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs", "-l", "-o", "-W", "-I"]));
    // -n, --dry-run, --just-print, --recon: make prints the recipes and runs none of them; -q only asks whether they are up to date.
    if (
      parsed.letters.has("n") ||
      parsed.letters.has("q") ||
      ["--dry-run", "--just-print", "--recon", "--question"].some((option) => parsed.longs.has(option))
    )
      return undefined;
    const targets = parsed.operands.filter((word) => !word.includes("="));
    const dirOption = parsed.values.find(([option]) => option === "-C" || option === "--directory")?.[1];
    const dir = dirOption === undefined ? cwd : posix.resolve(cwd, dirOption);
    const fileOption = parsed.values.find(([option]) => option === "-f" || option === "--file" || option === "--makefile")?.[1];
    if (fileOption === "-" || fileOption?.startsWith("/dev/")) return undefined; // judged by make-reads-makefile-from-input
    const text =
      fileOption !== undefined
        ? readSmall(posix.resolve(dir, fileOption))
        : (readSmall(posix.join(dir, "GNUmakefile")) ?? readSmall(posix.join(dir, "makefile")) ?? readSmall(posix.join(dir, "Makefile")));
    const label = `make ${targets.join(" ")}`.trim();
    if (text === undefined) return { label, names: targets, cwd: dir };
    const { first, recipes } = makeRecipes(text);
    const names = targets.length > 0 ? targets : first ? [first] : [];
    const lines = withPrerequisites(recipes, names);
    if (lines === undefined) return { label, names, cwd: dir };
    return {
      label,
      names,
      body: lines.map((line) => line.replaceAll("$(MAKE)", "make").replaceAll("${MAKE}", "make").replaceAll("$$", "$")).join("\n"),
      cwd: dir,
    };
  }
  if (name === "just") {
    const parsed = parseArgs(
      args,
      new Set(["-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--dotenv-path", "--dotenv-filename"]),
    );
    const recipe = parsed.operands[0];
    const fileOption = parsed.values.find(([option]) => option === "-f" || option === "--justfile")?.[1];
    const text =
      fileOption !== undefined
        ? readSmall(posix.resolve(cwd, fileOption))
        : (readSmall(posix.join(cwd, "justfile")) ?? readSmall(posix.join(cwd, "Justfile")) ?? readSmall(posix.join(cwd, ".justfile")));
    const label = `just ${recipe ?? ""}`.trim();
    if (text === undefined) return recipe === undefined ? undefined : { label, names: [recipe], cwd };
    const { first, recipes } = justRecipes(text);
    const names = recipe !== undefined ? [recipe] : first ? [first] : [];
    const lines = withPrerequisites(recipes, names);
    if (lines === undefined) return { label, names, cwd };
    return { label, names, body: lines.join("\n"), cwd };
  }
  if (name === "deno" && args[0] === "task" && args[1] !== undefined) return { label: `deno task ${args[1]}`, names: [args[1]], cwd };
  if (NAME_ONLY.has(name)) {
    const parsed = parseArgs(
      args,
      new Set([
        "--filter",
        "-F",
        "--scope",
        "-p",
        "--project",
        "--projects",
        "-t",
        "--target",
        "-c",
        "--configuration",
        "--concurrency",
        "--cache-dir",
      ]),
    );
    const operands = parsed.operands;
    const names =
      (name === "turbo" || name === "nx" || name === "lerna") && TURBO_LIKE_RUN.has(operands[0] ?? "") ? operands.slice(1) : operands;
    const targets = parsed.values.filter(([option]) => option === "-t" || option === "--target").map(([, value]) => value);
    const all = [...names, ...targets].filter((word) => !word.includes("="));
    if (all.length === 0) return undefined;
    return { label: `${name} ${all.join(" ")}`, names: all, cwd };
  }
  return undefined;
}
