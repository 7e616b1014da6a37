// Trusts the hooks Codex lists as untrusted, as its /hooks screen does: asks `codex app-server` for
// hooks/list and writes [hooks.state."<key>"] trusted_hash = "<currentHash>" into $CODEX_HOME/config.toml.
// Usage (env CODEX_HOME set): bun codex-trust.ts <codex executable> <project dir>
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { listCodexHooks, trustToml } from "../../../src/hosts/codex-trust.ts";

const [codex, project] = process.argv.slice(2);
const hooks = await listCodexHooks(codex!, project!, process.env);
const untrusted = hooks.filter((hook) => hook.trustStatus !== "trusted" && !hook.isManaged);
appendFileSync(join(process.env.CODEX_HOME!, "config.toml"), trustToml(untrusted));
console.log(JSON.stringify(untrusted.map((hook) => ({ key: hook.key, trustStatus: hook.trustStatus }))));
process.exit(0);
