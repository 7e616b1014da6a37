// The hosts' hook contracts as they really behave, proved with the real, pinned CLIs and stub hooks (a
// bash script replying with a fixed decision). These pin down what the adapters in src/hosts must emit;
// when a host upgrade changes its behaviour, this file says so first. See docs/hosts.md.
import { describe, expect, test } from "bun:test";
import type { HostName, InstalledHost } from "./lib/install.ts";
import { e2eHosts } from "./lib/gate.ts";
import { join } from "node:path";
import {
  describe as summary,
  hostSetup,
  makeSandbox,
  runHost,
  suiteHost,
  setStub,
  stubPayloads,
  writeStubHook,
  type Outcome,
  type Sandbox,
} from "./lib/harness.ts";

const REASON = "E2E_REASON_7f3a";
const STOP_REASON = "E2E_STOP_REASON_91c2 run the tests before finishing";

type Reply = { stdout?: string | object; exit?: number; stderr?: string };
interface Case {
  name: string;
  reply: Reply;
  /** whether the command ran */
  ran: boolean;
  /** text the model must see in a later request */
  told?: string;
  /** Gemini's `ask`: the run ends with no output at all */
  silentEnd?: boolean;
}

const pre = (decision: string, reason = REASON) => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason },
});

const CASES: Record<HostName, Case[]> = {
  claude: [
    { name: "allow runs", reply: { stdout: pre("allow") }, ran: true },
    { name: "deny blocks and tells the model", reply: { stdout: pre("deny") }, ran: false, told: `PreToolUse:Bash hook error: ${REASON}` },
    { name: "ask is a denial in headless mode", reply: { stdout: pre("ask") }, ran: false, told: REASON },
    { name: "no output leaves the headless permission flow, which refuses", reply: {}, ran: false },
    { name: "exit 1 is a non-blocking error; the headless flow refuses", reply: { exit: 1, stderr: "boom" }, ran: false },
    { name: "exit 2 blocks with stderr as the reason", reply: { exit: 2, stderr: REASON }, ran: false, told: REASON },
  ],
  codex: [
    { name: "no output runs", reply: {}, ran: true },
    { name: "bare allow is unsupported and runs", reply: { stdout: pre("allow") }, ran: true },
    {
      name: "deny blocks and tells the model",
      reply: { stdout: pre("deny") },
      ran: false,
      told: `Command blocked by PreToolUse hook: ${REASON}`,
    },
    { name: "deny with an empty reason fails open", reply: { stdout: pre("deny", "") }, ran: true },
    { name: "ask is unsupported and runs", reply: { stdout: pre("ask") }, ran: true },
    { name: "legacy block blocks", reply: { stdout: { decision: "block", reason: REASON } }, ran: false, told: REASON },
    { name: "exit 1 fails open", reply: { exit: 1, stderr: "boom" }, ran: true },
    { name: "exit 2 blocks with stderr as the reason", reply: { exit: 2, stderr: REASON }, ran: false, told: REASON },
  ],
  gemini: [
    { name: "allow runs", reply: { stdout: { decision: "allow" } }, ran: true },
    {
      name: "deny blocks and tells the model",
      reply: { stdout: { decision: "deny", reason: REASON } },
      ran: false,
      told: `Tool execution blocked: ${REASON}`,
    },
    { name: "ask ends the headless run silently", reply: { stdout: { decision: "ask", reason: REASON } }, ran: false, silentEnd: true },
    { name: "no output runs", reply: {}, ran: true },
    { name: "exit 1 fails open", reply: { exit: 1, stderr: "boom" }, ran: true },
    { name: "exit 2 blocks with stderr as the reason", reply: { exit: 2, stderr: REASON }, ran: false, told: REASON },
  ],
};

const STOP_BLOCK: Record<HostName, object> = {
  claude: { decision: "block", reason: STOP_REASON },
  codex: { decision: "block", reason: STOP_REASON },
  gemini: { decision: "deny", reason: STOP_REASON },
};
const STOP_SEEN_AS: Record<HostName, string> = {
  claude: `Stop hook feedback:\\n${STOP_REASON}`,
  codex: `">${STOP_REASON}</hook_prompt>`,
  gemini: STOP_REASON,
};

for (const name of e2eHosts()) {
  describe(`${name} hook mechanics (stub hooks)`, () => {
    let host: InstalledHost;
    const boxes = suiteHost(name, (installed) => (host = installed));

    async function scenario(reply: Reply, stop: object | null): Promise<{ o: Outcome; sb: Sandbox }> {
      const sb = makeSandbox(`${name}-mech`);
      boxes.push(sb);
      const stub = writeStubHook(sb);
      setStub(sb, "PRE", reply.stdout ?? "", { exit: reply.exit, stderr: reply.stderr });
      if (stop) setStub(sb, "STOP", stop, { call: 1 });
      const setup = hostSetup(host, sb, { pre: `${stub} PRE`, stop: `${stub} STOP` });
      const o = await runHost(sb, setup, [{ command: `touch ${sb.marker}` }, { text: "FAKE_FINAL: done." }], { timeoutMs: 90_000 });
      return { o, sb };
    }

    for (const c of CASES[name]) {
      test(c.name, async () => {
        const { o, sb } = await scenario(c.reply, null);
        const why = summary(o);
        expect(o.timedOut, why).toBe(false);
        expect(o.exitCode, why).toBe(0);
        const payload = stubPayloads(sb, "PRE")[0];
        expect(payload?.tool_input?.command, why).toBe(`touch ${sb.marker}`);
        expect(o.markerExists, why).toBe(c.ran);
        if (c.told)
          expect(
            o.followUps.some((f) => f.includes(JSON.stringify(c.told).slice(1, -1))),
            why,
          ).toBe(true);
        if (c.silentEnd) {
          expect(o.stdout.trim(), why).toBe("");
          expect(stubPayloads(sb, "STOP").length, why).toBe(0);
          expect(o.mainRequests.length, why).toBe(1);
        } else {
          expect(stubPayloads(sb, "STOP").length, why).toBe(1);
        }
      }, 120_000);
    }

    if (name === "claude") {
      // verdict install writes onFailure: "block" on Claude's PreToolUse hook: if verdict cannot run at all,
      // the command is refused. Shown under bypassPermissions, where a failed hook would otherwise let it run.
      for (const onFailure of [undefined, "block"] as const) {
        test(`a hook that cannot run ${onFailure ? "blocks with onFailure: block" : "fails open without onFailure"}`, async () => {
          const sb = makeSandbox("claude-onfailure");
          boxes.push(sb);
          const setup = hostSetup(host, sb, undefined, { claudePermissionMode: "bypassPermissions" });
          setup.env.IS_SANDBOX = "1"; // bypassPermissions as root
          const handler: Record<string, unknown> = { type: "command", command: "/nonexistent/verdict hook claude", timeout: 5 };
          if (onFailure) handler.onFailure = onFailure;
          setup.files[join(sb.project, ".claude", "settings.json")] = JSON.stringify({
            hooks: { PreToolUse: [{ matcher: "Bash", hooks: [handler] }] },
          });
          const o = await runHost(sb, setup, [{ command: `touch ${sb.marker}` }, { text: "FAKE_FINAL: done." }], { timeoutMs: 90_000 });
          expect(o.markerExists, summary(o)).toBe(onFailure !== "block");
          if (onFailure) expect(o.followUps[0]!.includes('blocking because onFailure is \\\"block\\\"'), summary(o)).toBe(true);
        }, 120_000);
      }
    }

    test("a turn-end block makes the host continue with the reason, once", async () => {
      const allow = name === "claude" ? pre("allow") : name === "gemini" ? { decision: "allow" } : "";
      const { o, sb } = await scenario({ stdout: allow }, STOP_BLOCK[name]);
      const why = summary(o);
      expect(o.markerExists, why).toBe(true);
      const stops = stubPayloads(sb, "STOP");
      expect(
        stops.map((s) => s.stop_hook_active),
        why,
      ).toEqual([false, true]);
      expect(o.mainRequests.length, why).toBe(3);
      expect(o.followUps[1]!.includes(STOP_SEEN_AS[name]), why).toBe(true);
      expect(o.followUps[0]!.includes(STOP_REASON), why).toBe(false);
    }, 120_000);
  });
}
