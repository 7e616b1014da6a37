/**
 * Codex CLI's hook trust, read the way its /hooks screen reads it: `codex app-server` (JSON-RPC over stdio)
 * answers `hooks/list` with each hook's key, trust status and current hash.
 */
import { spawn } from "node:child_process";

export type CodexHook = { key: string; eventName?: string; trustStatus?: string; currentHash?: string; source?: string; command?: string; isManaged?: boolean };

export function listCodexHooks(codex: string, cwd: string, env: Record<string, string | undefined>, timeoutMs = 20_000): Promise<CodexHook[]> {
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
    child.stdin.write(JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "verdict", version: "doctor" } } }) + "\n");
  });
}

/** The config.toml lines that trust the given hooks, as /hooks writes them. */
export function trustToml(hooks: CodexHook[]): string {
  return hooks.map((hook) => `\n[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash ?? "")}\n`).join("");
}
