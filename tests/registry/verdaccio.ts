// A real npm registry on 127.0.0.1 for the packaging test: Verdaccio, pinned, installed once from npm into
// a cache outside the repository (like the e2e hosts), then run offline (no uplinks) with its storage in a
// throwaway folder.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot, underInstallLock } from "../e2e/lib/install.ts";

/** Pinned: 6.8.0 runs on Node 20 (6.10 wants 22); its node-fetch must be 2.7.0 for it to install. */
export const VERDACCIO = { version: "6.8.0", overrides: { "node-fetch": "2.7.0" } };

export async function ensureVerdaccio(): Promise<string> {
  const prefix = join(cacheRoot(), `verdaccio@${VERDACCIO.version}`);
  const main = join(prefix, "node_modules", "verdaccio", "bin", "verdaccio");
  const stamp = join(prefix, ".verdict-installed");
  if (existsSync(stamp) && existsSync(main)) return main;
  return underInstallLock(prefix, async () => {
    if (existsSync(stamp) && existsSync(main)) return main;
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    writeFileSync(
      join(prefix, "package.json"),
      JSON.stringify(
        { name: "verdict-test-registry", private: true, dependencies: { verdaccio: VERDACCIO.version }, overrides: VERDACCIO.overrides },
        null,
        2,
      ),
    );
    const proc = Bun.spawn(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: prefix,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0 || !existsSync(main)) throw new Error(`npm install verdaccio@${VERDACCIO.version} failed (${code}):\n${out}\n${err}`);
    writeFileSync(stamp, new Date().toISOString() + "\n");
    return main;
  });
}

export type Registry = { url: string; token: string; stop(): void; log(): string };

/** Starts Verdaccio on 127.0.0.1 with storage under `dir`; resolves once it answers, with a publish token. */
export async function startRegistry(main: string, dir: string): Promise<Registry> {
  mkdirSync(join(dir, "storage"), { recursive: true });
  writeFileSync(
    join(dir, "config.yaml"),
    [
      "storage: ./storage",
      "auth:",
      "  htpasswd:",
      "    file: ./htpasswd",
      "    max_users: 10",
      "uplinks: {}", // offline: nothing is proxied from another registry
      "packages:",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "max_body_size: 300mb", // a target package carries a ~110 MB binary
      "web: { enable: false }",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    let output = "";
    const child: ChildProcess = spawn("node", [main, "--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    };
    const url = `http://127.0.0.1:${port}/`;
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      try {
        const ping = await fetch(`${url}-/ping`);
        if (ping.ok) {
          const user = await fetch(`${url}-/user/org.couchdb.user:ci`, {
            method: "PUT",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: "ci", password: "ci-password-1" }),
          });
          const token = ((await user.json()) as { token?: string }).token;
          if (!token) throw new Error(`no token from ${url}: ${user.status}`);
          return { url, token, stop, log: () => output };
        }
      } catch (error) {
        if ((error as Error).message.startsWith("no token")) {
          stop();
          throw error;
        }
      }
      await Bun.sleep(200);
    }
    stop();
    if (!/EADDRINUSE/.test(output)) throw new Error(`verdaccio did not start:\n${output}`);
  }
  throw new Error("verdaccio found no free port");
}
