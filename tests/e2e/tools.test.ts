// verdict judges the hosts' own file tools, not only their shells: installed with `verdict install`, the
// real pinned hosts write through Claude Code's Write, Codex's apply_patch and Gemini CLI's write_file
// (scripted by the fake model), and the embedded default policy's tool rules decide. A write to a shell
// start-up file is stopped (the model is told why); an ordinary project file is written. An MCP server
// (lib/mcp-server.ts) registered the host's way: its delete tool is stopped, its list tool runs.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { InstalledHost } from "./lib/install.ts";
import { e2eHosts } from "./lib/gate.ts";
import {
  CODEX_CONFIG,
  describe as summary,
  hostSetup,
  makeSandbox,
  runHost,
  suiteHost,
  type HostSetup,
  type Outcome,
  type Sandbox,
} from "./lib/harness.ts";
import type { Step } from "./lib/fake-model.ts";

const VERDICT = resolve(import.meta.dir, "../../dist/verdict");
const MCP_SERVER = [process.execPath, resolve(import.meta.dir, "lib", "mcp-server.ts")];

/** Registers the e2e MCP server (lib/mcp-server.ts) the way each host configures one; its calls land in mcp-calls.txt. */
function addMcpServer(name: string, sb: Sandbox, setup: HostSetup) {
  const env = { MCP_E2E_MARKER: join(sb.root, "mcp-calls.txt") };
  if (name === "claude") {
    setup.files[join(sb.root, "mcp.json")] = JSON.stringify({
      mcpServers: { e2e: { command: MCP_SERVER[0], args: MCP_SERVER.slice(1), env } },
    });
    setup.argv.push("--mcp-config", join(sb.root, "mcp.json"));
  } else if (name === "codex") {
    setup.files[join(sb.home, ".codex", "config.toml")] =
      `${CODEX_CONFIG(sb.project)}\n[mcp_servers.e2e]\ncommand = ${JSON.stringify(MCP_SERVER[0])}\nargs = ${JSON.stringify(MCP_SERVER.slice(1))}\nenv = { MCP_E2E_MARKER = ${JSON.stringify(env.MCP_E2E_MARKER)} }\n`;
  } else {
    const file = join(sb.home, ".gemini", "settings.json");
    const settings = JSON.parse(setup.files[file]!);
    settings.mcpServers = { e2e: { command: MCP_SERVER[0], args: MCP_SERVER.slice(1), env, trust: true } };
    setup.files[file] = JSON.stringify(settings);
  }
}

function mcpCalls(sb: Sandbox): string[] {
  const file = join(sb.root, "mcp-calls.txt");
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
}
const FINISHED = "FAKE_FINAL: done.";

for (const name of e2eHosts()) {
  describe(`${name}: file and MCP tools judged by verdict`, () => {
    let host: InstalledHost;
    const boxes = suiteHost(name, (installed) => (host = installed), VERDICT);

    /** The tool results the model was sent after the scripted call, for failure messages. */
    const toolResults = (o: Outcome) =>
      o.followUps
        .map((f) => (f.match(/(tool_result|functionResponse|function_call_output|custom_tool_call_output)[^}]{0,400}/g) ?? []).join(" | "))
        .join("\n");
    const results = (o: Outcome) => `${summary(o)}\ntold: ${toolResults(o)}`;

    async function scenario(steps: (sb: Sandbox) => Step[], opts: { mcp?: boolean } = {}): Promise<{ o: Outcome; sb: Sandbox }> {
      const sb = makeSandbox(`${name}-tools`);
      boxes.push(sb);
      const setup = hostSetup(host, sb, undefined, { codexBypassTrust: true });
      // verdict on PATH, as installed: a project install writes `verdict hook <host>` found there
      setup.env.PATH = `${dirname(VERDICT)}:${setup.env.PATH}`;
      if (opts.mcp) addMcpServer(name, sb, setup);
      const install = name === "codex" ? [VERDICT, "install", "codex"] : [VERDICT, "install", name, "--project"];
      const o = await runHost(sb, setup, steps(sb), { timeoutMs: 90_000, pre: [install] });
      expect(o.pre[0]?.exitCode, summary(o)).toBe(0);
      return { o, sb };
    }

    test("a write to a start-up file through the file tool is stopped, and the model is told why", async () => {
      // An autostart entry (Claude Code refuses ~/.bashrc on its own as a sensitive file, before any hook).
      // Gemini CLI's file tools refuse any path outside the workspace before a hook runs: there, the
      // dotfile is the project's .envrc, which direnv runs unread.
      const target = (sb: Sandbox) =>
        name === "gemini" ? join(sb.project, ".envrc") : join(sb.home, ".config", "autostart", "e2e.desktop");
      const { o, sb } = await scenario((sb) => [{ file: { path: target(sb), content: "echo e2e-dotfile-written\n" } }, { text: FINISHED }]);
      const bashrc = target(sb);
      const written = existsSync(bashrc) && readFileSync(bashrc, "utf8").includes("e2e-dotfile-written");
      expect(written, summary(o)).toBe(false);
      expect(
        o.followUps.some((f) => f.includes(name === "gemini" ? "run without anyone reading them" : "start-up or autostart")),
        results(o),
      ).toBe(true);
    }, 120_000);

    test("an ordinary project file written through the file tool is allowed through", async () => {
      const { o, sb } = await scenario((sb) => [
        { file: { path: join(sb.project, "e2e-tool-written.txt"), content: "hello from the file tool\n" } },
        { text: FINISHED },
      ]);
      const file = join(sb.project, "e2e-tool-written.txt");
      expect(existsSync(file) && readFileSync(file, "utf8"), summary(o)).toBe("hello from the file tool\n");
      expect(toolResults(o).includes("verdict:"), results(o)).toBe(false);
    }, 120_000);

    test("an MCP tool whose name says it deletes is stopped before the server runs it; one that lists runs", async () => {
      const { o, sb } = await scenario(
        () => [
          { mcp: { server: "e2e", tool: "delete_thing", args: { id: "t1" } } },
          { mcp: { server: "e2e", tool: "list_things", args: {} } },
          { text: FINISHED },
        ],
        { mcp: true },
      );
      expect(mcpCalls(sb), results(o)).toEqual(["list_things"]);
      expect(
        o.followUps.some((f) => f.includes("MCP tool whose name says it deletes")),
        results(o),
      ).toBe(true);
    }, 120_000);
  });
}
