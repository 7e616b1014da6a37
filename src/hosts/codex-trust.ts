/**
 * Codex CLI's hook trust, read the way its /hooks screen reads it: `codex app-server` (JSON-RPC over stdio)
 * answers `hooks/list` with each hook's key, trust status and current hash.
 */
import { spawn } from "node:child_process";

type CodexHook = {
  key: string;
  eventName?: string;
  trustStatus?: string;
  currentHash?: string;
  source?: string;
  command?: string;
  isManaged?: boolean;
};

export function listCodexHooks(
  codex: string,
  cwd: string,
  env: Record<string, string | undefined>,
  timeoutMs = 20_000,
): Promise<CodexHook[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(codex, ["app-server"], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let buffer = "";
    let done = false;
    const finish = (error: Error | undefined, hooks?: CodexHook[]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      if (error) reject(error);
      else resolve(hooks ?? []);
    };
    const timer = setTimeout(() => finish(new Error(`codex app-server gave no hooks/list answer within ${timeoutMs} ms`)), timeoutMs);
    child.on("error", (error) => finish(error));
    child.on("close", (code) => finish(new Error(`codex app-server exited (${code}) before answering`)));
    child.stderr.on("data", () => {});
    child.stdout.on("data", (data) => {
      buffer += data;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let message: any;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message?.id === 1) {
          child.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
          child.stdin.write(JSON.stringify({ id: 2, method: "hooks/list", params: { cwds: [cwd] } }) + "\n");
        } else if (message?.id === 2) {
          if (message.error) return finish(new Error(`hooks/list failed: ${JSON.stringify(message.error)}`));
          const data = message.result?.data ?? [];
          const hooks: CodexHook[] = [];
          for (const entry of Array.isArray(data) ? data : []) for (const hook of entry?.hooks ?? []) hooks.push(hook);
          finish(undefined, hooks);
        }
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.write(
      JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "verdict", version: "doctor" } } }) + "\n",
    );
  });
}

/** The config.toml lines that trust the given hooks, as /hooks writes them. */
export function trustToml(hooks: CodexHook[]): string {
  return hooks
    .map((hook) => `\n[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash ?? "")}\n`)
    .join("");
}

/**
 * What doctor needs, without touching the person's Codex home: `codex app-server` runs with a throwaway
 * CODEX_HOME and HOME (a copy of the user hooks.json, the project marked trusted, plugins, apps, updates
 * and analytics off, so it fetches nothing), and only lists the hooks with their current hashes. Whether
 * each is trusted is then read from the real config.toml's [hooks.state."<key>"] trusted_hash (a hook's
 * hash does not depend on where its file is, measured on 0.171.0). The throwaway home is removed after.
 */
type CodexTrust = { key: string; eventName?: string; trusted: boolean; status: string };

function throwawayConfig(projectRoot: string): string {
  return [
    "check_for_update_on_startup = false",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[features]",
    "plugins = false",
    "remote_plugin = false",
    "apps = false",
    "in_app_updates = false",
    "",
    `[projects.${JSON.stringify(projectRoot)}]`,
    'trust_level = "trusted"',
    "",
  ].join("\n");
}

/** The trusted hashes recorded in a Codex config.toml, by hook key. */
function trustedHashes(configText: string | undefined): Map<string, string> {
  const found = new Map<string, string>();
  if (!configText) return found;
  let parsed: any;
  try {
    parsed = Bun.TOML.parse(configText);
  } catch {
    return found;
  }
  const state = parsed?.hooks?.state;
  if (state && typeof state === "object")
    for (const [key, value] of Object.entries(state))
      if (typeof (value as any)?.trusted_hash === "string") found.set(key, (value as any).trusted_hash);
  return found;
}

export async function codexTrust(
  codex: string,
  cwd: string,
  projectRoot: string,
  codexHome: string,
  timeoutMs = 20_000,
): Promise<CodexTrust[]> {
  const { mkdtempSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const temp = mkdtempSync(join(tmpdir(), "verdict-doctor-codex-"));
  try {
    const realHooks = join(codexHome, "hooks.json");
    if (existsSync(realHooks)) copyFileSync(realHooks, join(temp, "hooks.json"));
    writeFileSync(join(temp, "config.toml"), throwawayConfig(projectRoot));
    const env = { PATH: process.env.PATH, HOME: temp, CODEX_HOME: temp, TMPDIR: temp, LANG: process.env.LANG };
    const hooks = await listCodexHooks(codex, cwd, env, timeoutMs);
    let config: string | undefined;
    try {
      config = readFileSync(join(codexHome, "config.toml"), "utf8");
    } catch {}
    const trusted = trustedHashes(config);
    const prefix = `${join(temp, "hooks.json")}:`;
    return hooks.map((hook) => {
      const key = hook.key.startsWith(prefix) ? `${realHooks}:${hook.key.slice(prefix.length)}` : hook.key;
      const recorded = trusted.get(key);
      const ok = hook.isManaged === true || (recorded !== undefined && recorded === hook.currentHash);
      return {
        key,
        eventName: hook.eventName,
        trusted: ok,
        status: ok ? "trusted" : recorded ? "modified since it was trusted" : "untrusted",
      };
    });
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}
