// Installs the pinned host CLIs from npm into a cache outside the repository, once, and finds their
// executables. Installation is the only step that needs the network; every run afterwards is loopback-only.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import versions from "../hosts.versions.json" with { type: "json" };

export type HostName = keyof typeof versions;
export const HOSTS = Object.keys(versions) as HostName[];

export interface InstalledHost {
  name: HostName;
  version: string;
  /** argv prefix that starts the host */
  argv: string[];
  /** seconds spent installing (0 when it came from the cache) */
  installSeconds: number;
}

export function cacheRoot(): string {
  return process.env.VERDICT_E2E_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "verdict-e2e");
}

function prefixFor(name: HostName): string {
  const { package: pkg, version } = versions[name];
  return join(cacheRoot(), `${pkg.replace("/", "_")}@${version}`);
}

function findFirst(dir: string, pick: (entry: string) => string | undefined): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir).sort()) {
    const found = pick(entry);
    if (found && existsSync(found)) return found;
  }
  return undefined;
}

function argvFor(name: HostName, prefix: string): string[] | undefined {
  const nm = join(prefix, "node_modules");
  if (name === "claude") {
    // The package's bin is a placeholder until its postinstall copies the native binary; we install with
    // --ignore-scripts and run the platform package's binary directly.
    const exe = findFirst(join(nm, "@anthropic-ai"), (e) =>
      e.startsWith("claude-code-linux") || e.startsWith("claude-code-darwin") ? join(nm, "@anthropic-ai", e, "claude") : undefined,
    );
    return exe ? [exe] : undefined;
  }
  if (name === "codex") {
    const exe = findFirst(join(nm, "@openai"), (e) => {
      if (!e.startsWith("codex-")) return undefined;
      const vendor = join(nm, "@openai", e, "vendor");
      return findFirst(vendor, (triple) => join(vendor, triple, "bin", "codex"));
    });
    return exe ? [exe] : undefined;
  }
  const node = Bun.which("node");
  const bundle = join(nm, "@google", "gemini-cli", "bundle", "gemini.js");
  return node && existsSync(bundle) ? [node, bundle] : undefined;
}

/**
 * Runs `work` holding `${prefix}.lock`, so parallel test processes install into `prefix` one at a time.
 * A crude cross-process lock: mkdir is atomic. A stale lock older than 20 min is broken.
 */
export async function underInstallLock<T>(prefix: string, work: () => Promise<T>): Promise<T> {
  const lock = `${prefix}.lock`;
  mkdirSync(cacheRoot(), { recursive: true });
  const t0 = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - t0 > 20 * 60_000) rmSync(lock, { recursive: true, force: true });
      await Bun.sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Installs (if needed) and locates one host. Throws with npm's output when the install fails. */
export async function ensureHost(name: HostName): Promise<InstalledHost> {
  const { package: pkg, version } = versions[name];
  const prefix = prefixFor(name);
  const stamp = join(prefix, ".verdict-e2e-installed");
  let installSeconds = 0;
  let argv = existsSync(stamp) ? argvFor(name, prefix) : undefined;
  if (!argv) {
    const t0 = Date.now();
    argv = await underInstallLock(prefix, async () => {
      const found = existsSync(stamp) ? argvFor(name, prefix) : undefined;
      if (found) return found;
      rmSync(prefix, { recursive: true, force: true });
      const proc = Bun.spawn(
        ["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", `${pkg}@${version}`],
        { stdout: "pipe", stderr: "pipe", env: { ...process.env } },
      );
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15 * 60_000);
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      clearTimeout(timer);
      if (code !== 0) throw new Error(`npm install ${pkg}@${version} failed (${code}):\n${out}\n${err}`);
      const installed = argvFor(name, prefix);
      if (!installed) throw new Error(`${pkg}@${version} installed but its executable was not found under ${prefix}`);
      writeFileSync(stamp, new Date().toISOString() + "\n");
      installSeconds = (Date.now() - t0) / 1000;
      return installed;
    });
  }
  return { name, version, argv, installSeconds };
}

export function pinnedVersion(name: HostName): string {
  return versions[name].version;
}
