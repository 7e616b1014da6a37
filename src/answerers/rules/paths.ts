/**
 * Where a path points: the classes rules match on (see PathClass in
 * src/policy/schema-rules.ts for their meaning and order). Pure string work
 * on the path as written, resolved against the working directory; nothing
 * here touches the disk.
 */
import { posix } from "node:path";

export type PathClass =
  | "unknown"
  | "device"
  | "root"
  | "home"
  | "system"
  | "vcs"
  | "project"
  | "build"
  | "repo"
  | "temp"
  | "home-files"
  | "outside";

export type PathContext = {
  /** Where relative paths start; undefined when an earlier `cd` went somewhere unknown. */
  cwd: string | undefined;
  /** The project: the repository root, or the working directory the line started in. Undefined when there is none. */
  projectRoot: string | undefined;
  home: string;
  tmpdir?: string;
  /** Variables the line itself sets (export TMPDIR=..., HOME=... cmd): their values are not known. */
  overridden?: ReadonlySet<string>;
};

/** Directory names whose contents a build, an install or a test run regenerates. */
const BUILD_DIRS = new Set([
  "node_modules",
  "dist",
  "build",
  "target",
  "out",
  "coverage",
  ".cache",
  "__pycache__",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".vite",
  ".angular",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".nox",
  ".gradle",
  ".venv",
  "venv",
  ".eggs",
  ".dart_tool",
  "_build",
  ".build",
  "DerivedData",
  "obj",
  "elm-stuff",
  ".stack-work",
  "dist-newstyle",
  "zig-cache",
  "zig-out",
  ".zig-cache",
  ".terraform",
  "storybook-static",
  ".docusaurus",
  ".expo",
  ".sass-cache",
  "bower_components",
  "jspm_packages",
  ".bundle",
  ".nyc_output",
  "htmlcov",
  ".hypothesis",
  ".benchmarks",
  "cmake-build-debug",
  "cmake-build-release",
]);

/** Files a compiler or an interpreter writes next to the sources, which the next run writes again. */
const GENERATED_FILE = /\.(pyc|pyo|o|obj|class|tsbuildinfo)$|^\.DS_Store$/;

const SYSTEM_DIRS = new Set([
  "etc",
  "usr",
  "var",
  "bin",
  "sbin",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "boot",
  "opt",
  "srv",
  "sys",
  "proc",
  "snap",
  "run",
  "nix",
  "System",
  "Library",
  "Applications",
  "private",
  "cores",
  "lost+found",
  "selinux",
]);

const TEMP_DIRS = ["/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/private/var/folders", "/dev/shm", "/var/folders"];

/** Null sinks and standard streams: writing to them changes nothing. */
export const SINKS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/proc/self/fd/1", "/proc/self/fd/2"]);

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** Home directories: the user's own, /root, /home/x, /Users/x. */
function homeOf(path: string, home: string): string | undefined {
  if (home !== "/" && inside(path, home)) return home;
  const m = /^\/(?:root|home\/[^/]+|Users\/[^/]+)(?=\/|$)/.exec(path);
  if (m) return m[0];
  if (path === "/home" || path === "/Users") return path;
  return undefined;
}

/** A project root is not a place whose loss is ordinary: never /, a home directory, a top-level system or temp directory. */
export function usableProjectRoot(root: string | undefined, home: string): string | undefined {
  if (root === undefined || !root.startsWith("/")) return undefined;
  const normal = posix.normalize(root).replace(/(.)\/+$/, "$1");
  if (normal === "/" || normal === home || homeOf(normal, home) === normal) return undefined;
  const parts = normal.split("/").filter(Boolean);
  if (parts.length === 1 && (SYSTEM_DIRS.has(parts[0] as string) || parts[0] === "tmp" || parts[0] === "home" || parts[0] === "Users"))
    return undefined;
  if (TEMP_DIRS.includes(normal) || normal === "/var" || normal === "/usr") return undefined;
  // /home/x/y: not the home itself; fine.
  if (home !== "/" && inside(home, normal)) return undefined; // an ancestor of home
  return normal;
}

const VARIABLE = /^\$(?:\{(HOME|TMPDIR|PWD)(?::?-([^}$`]*))?\}|(HOME|TMPDIR|PWD)(?![A-Za-z0-9_]))/;

/** The absolute path a word stands for, or undefined when it cannot be known. Globs stay in. */
export function resolveWord(word: string, ctx: PathContext): string | undefined {
  let text = word;
  if (text === "~" || text.startsWith("~/")) text = ctx.home + text.slice(1);
  else if (/^~[A-Za-z0-9._-]+(\/|$)/.test(text)) {
    const slash = text.indexOf("/");
    const user = slash === -1 ? text.slice(1) : text.slice(1, slash);
    text = (user === "root" ? "/root" : `/home/${user}`) + (slash === -1 ? "" : text.slice(slash));
  } else {
    const m = VARIABLE.exec(text);
    if (m) {
      const name = (m[1] ?? m[3]) as string;
      if (ctx.overridden?.has(name)) return undefined;
      const fallback = m[2];
      let value = name === "HOME" ? ctx.home : name === "PWD" ? ctx.cwd : ctx.tmpdir;
      // ${TMPDIR:-/tmp}: the default when unset; an unset TMPDIR means /tmp to most tools.
      if (value === undefined && name === "TMPDIR") value = fallback ?? "/tmp";
      if (value === undefined) return undefined;
      text = value + text.slice(m[0].length);
    }
  }
  if (text.includes("$") || text.includes("`") || text.includes("{}")) return undefined;
  if (text === "") return undefined;
  if (!text.startsWith("/")) {
    if (ctx.cwd === undefined) return undefined;
    text = `${ctx.cwd}/${text}`;
  }
  const normal = posix.normalize(text);
  return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}

const WHOLE_DIR = new Set(["*", ".*", "*.*", "**", ".[!.]*", "..?*"]);

/** The class of a word used as a path. */
export function classifyPath(word: string, ctx: PathContext): PathClass {
  // A URL (s3://b/x, https://h/p) is not a path on this machine.
  if (/^[a-zA-Z][\w+.-]*:\/\//.test(word)) return "unknown";
  const resolved = resolveWord(word, ctx);
  if (resolved === undefined) return "unknown";
  // A glob: `dir/*` stands for the whole of dir; `dir/*.log` for things inside it.
  let path = resolved;
  const parts = path.split("/");
  const globAt = parts.findIndex((part) => /[*?[]/.test(part));
  if (globAt !== -1) {
    const dir = parts.slice(0, globAt).join("/") || "/";
    const whole = globAt === parts.length - 1 && WHOLE_DIR.has(parts[globAt] as string);
    path = whole ? dir : posix.join(dir, "__entry__");
  }
  return classifyAbsolute(path, ctx);
}

/** The class of an absolute, normalised path. */
export function classifyAbsolute(path: string, ctx: PathContext): PathClass {
  if (path === "/") return "root";
  if (path === "/dev/shm" || path.startsWith("/dev/shm/")) return "temp";
  if (inside(path, "/dev")) return "device";
  const home = homeOf(path, ctx.home);
  if (home !== undefined && path === home) return "home";
  if (path.split("/").includes(".git")) return "vcs";
  const root = ctx.projectRoot;
  if (root !== undefined && inside(path, root)) {
    if (path === root) return "project";
    const rel = path.slice(root.length + 1).split("/");
    if (rel.some((part) => BUILD_DIRS.has(part) || part.endsWith(".egg-info"))) return "build";
    if (GENERATED_FILE.test(rel[rel.length - 1] as string)) return "build";
    return "repo";
  }
  if (root !== undefined && inside(root, path)) {
    // An ancestor of the project holds it: as bad as its own place.
    return home !== undefined ? "home-files" : classifyOutside(path, ctx);
  }
  return classifyOutside(path, ctx, home);
}

function classifyOutside(path: string, ctx: PathContext, home?: string): PathClass {
  const tmpdir = ctx.tmpdir && ctx.tmpdir !== "/" ? posix.normalize(ctx.tmpdir).replace(/(.)\/+$/, "$1") : undefined;
  const temp = [...TEMP_DIRS, ...(tmpdir ? [tmpdir] : [])].filter((dir) => inside(path, dir)).sort((a, b) => b.length - a.length)[0];
  // The nearer of the two wins: a home under /tmp is still a home, a TMPDIR under the home still temp.
  if (home !== undefined && (temp === undefined || home.length > temp.length)) return "home-files";
  if (temp !== undefined) return "temp";
  const first = path.split("/")[1] ?? "";
  if (SYSTEM_DIRS.has(first)) return "system";
  return "outside";
}
