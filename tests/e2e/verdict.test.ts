// verdict itself as the hook of the real, pinned hosts: installed with `verdict install`, run headless
// against the fake model, judging with a test policy whose rules decide the marker commands outright and
// whose turn rule recognises a turn that stopped early. The compiled binary (dist/verdict) is what runs.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { HostName, InstalledHost } from "./lib/install.ts";
import { markerRules } from "./lib/markers.ts";
import { e2eHosts } from "./lib/gate.ts";
import { describe as summary, hostSetup, makeSandbox, runHost, suiteHost, type Outcome, type Sandbox } from "./lib/harness.ts";
import type { Step } from "./lib/fake-model.ts";

const VERDICT = resolve(import.meta.dir, "../../dist/verdict");

const POLICY = `${markerRules("allowed", "denied", "asked")}turn_rules:
  - id: e2e-stopped-early
    final_matches: ["^I will now"]
    ending: stopped-early
    confidence: 0.99
    reason: "E2E_STOPPED_EARLY: it says what it will do instead of doing it"
`;

/** What each host does with an ask, as documented in docs/hosts.md. */
const ASK: Record<HostName, { ran: boolean; told: string }> = {
  // headless -p: an ask is a denial whose reason the model reads
  claude: { ran: false, told: "E2E_ASKED" },
  // Codex cannot ask: verdict denies, saying a person's approval is needed
  codex: { ran: false, told: "approval" },
  // Gemini CLI would end the run silently on ask: verdict denies instead, and the model is told
  gemini: { ran: false, told: "approval" },
};

const FINISHED = "FAKE_FINAL: done.";

for (const name of e2eHosts()) {
  describe(`${name} with verdict as its hook`, () => {
    let host: InstalledHost;
    const boxes = suiteHost(name, (installed) => (host = installed), VERDICT);

    async function scenario(
      steps: (sb: Sandbox) => Step[],
      opts: { trustCodexHooks?: boolean; breakPolicyAfterInstall?: boolean } = {},
    ): Promise<{ o: Outcome; sb: Sandbox }> {
      const sb = makeSandbox(`${name}-verdict`);
      boxes.push(sb);
      const setup = hostSetup(host, sb, undefined, { codexBypassTrust: !opts.trustCodexHooks });
      // verdict on PATH, as installed: a project install writes `verdict hook <host>` found there
      setup.env.PATH = `${dirname(VERDICT)}:${setup.env.PATH}`;
      setup.files[join(sb.home, ".config", "verdict", "policy.yaml")] = POLICY;
      const install = name === "codex" ? [VERDICT, "install", "codex"] : [VERDICT, "install", name, "--project"];
      const pre = [install];
      if (name === "codex" && opts.trustCodexHooks)
        pre.push([process.execPath, join(import.meta.dir, "lib", "codex-trust.ts"), host.argv[0]!, sb.project]);
      if (opts.breakPolicyAfterInstall)
        pre.push(["/bin/sh", "-c", `printf 'rules: [[[\\n  tresholds: x\\n' >> ${join(sb.home, ".config", "verdict", "policy.yaml")}`]);
      const o = await runHost(sb, setup, steps(sb), { timeoutMs: 90_000, pre });
      return { o, sb };
    }

    function expectInstalled(o: Outcome) {
      const why = summary(o);
      expect(o.pre[0]?.exitCode, why).toBe(0);
      expect(o.pre[0]?.stdout, why).toContain("Checked:");
      expect(o.timedOut, why).toBe(false);
      expect(o.exitCode, why).toBe(0);
    }

    const told = (o: Outcome, text: string) => o.followUps.some((f) => f.includes(text));

    test("a command verdict allows runs, and a finished turn is not continued", async () => {
      const { o, sb } = await scenario((sb) => [{ command: `touch ${join(sb.project, "e2e-allowed-marker")}` }, { text: FINISHED }]);
      expectInstalled(o);
      expect(existsSync(join(sb.project, "e2e-allowed-marker")), summary(o)).toBe(true);
      expect(o.mainRequests.length, summary(o)).toBe(2);
    }, 120_000);

    test("a session's later commands are answered by the resident judge its first hooks started", async () => {
      const markers = [1, 2, 3, 4, 5, 6].map((n) => `e2e-allowed-marker-${n}`);
      // `verdict resident` runs while the session is still on (the judges end with the run's namespace).
      const { o, sb } = await scenario((sb) => [
        ...markers.map((m) => ({ command: `touch ${join(sb.project, m)}` })),
        { text: FINISHED, run: [[VERDICT, "resident"]] },
      ]);
      expectInstalled(o);
      for (const m of markers) expect(existsSync(join(sb.project, m)), summary(o)).toBe(true);
      // The host's hooks share one kind of process (the same environment at every call): the second
      // started a judge, and the judge answered some of the later ones.
      const status = o.stepRuns.map((r) => r.stdout).join("\n");
      const answered = [...status.matchAll(/(\d+) answered/g)].map((m) => Number(m[1]));
      expect(Math.max(0, ...answered), `${status}\n${summary(o)}`).toBeGreaterThanOrEqual(1);
    }, 120_000);

    test("a command verdict denies does not run, and the model is told why", async () => {
      const { o, sb } = await scenario((sb) => [{ command: `touch ${join(sb.project, "e2e-denied-marker")}` }, { text: FINISHED }]);
      expectInstalled(o);
      expect(existsSync(join(sb.project, "e2e-denied-marker")), summary(o)).toBe(false);
      expect(told(o, "E2E_DENIED"), summary(o)).toBe(true);
    }, 120_000);

    test("an ask behaves as documented for this host", async () => {
      const { o, sb } = await scenario((sb) => [{ command: `touch ${join(sb.project, "e2e-asked-marker")}` }, { text: FINISHED }]);
      expectInstalled(o);
      expect(existsSync(join(sb.project, "e2e-asked-marker")), summary(o)).toBe(ASK[name].ran);
      expect(told(o, ASK[name].told), summary(o)).toBe(true);
      // The run goes on to its end (Gemini CLI would have ended silently on a raw ask).
      expect(o.mainRequests.length, summary(o)).toBe(2);
    }, 120_000);

    test("a turn that stops early is continued with verdict's reason, once it is finished it ends", async () => {
      const { o } = await scenario((sb) => [
        { command: `touch ${join(sb.project, "e2e-allowed-marker")}` },
        { text: "I will now run the tests." },
        { text: "The tests pass: 12 passed, 0 failed." },
      ]);
      expectInstalled(o);
      expect(o.mainRequests.length, summary(o)).toBe(3);
      expect(o.followUps[1]!.includes("E2E_STOPPED_EARLY") || o.followUps[1]!.includes("stopped early"), summary(o)).toBe(true);
    }, 120_000);

    test("continues are capped by hosts.max_continues", async () => {
      const { o } = await scenario(() => [{ text: "I will now run the tests." }]);
      expectInstalled(o);
      // the first answer, then two continues (max_continues: 2), then the turn may end
      expect(o.mainRequests.length, summary(o)).toBe(3);
    }, 120_000);

    test("with a broken policy the host still gets a valid, safe decision: on_error, and the model is told why", async () => {
      const { o, sb } = await scenario((sb) => [{ command: `touch ${join(sb.project, "e2e-allowed-marker")}` }, { text: FINISHED }], {
        breakPolicyAfterInstall: true,
      });
      expectInstalled(o);
      expect(o.pre.at(-1)?.exitCode, summary(o)).toBe(0);
      // on_error: ask on Claude Code (a denial in -p), deny on Codex and Gemini CLI
      expect(existsSync(join(sb.project, "e2e-allowed-marker")), summary(o)).toBe(false);
      expect(told(o, "the policy cannot be used"), summary(o)).toBe(true);
      expect(o.mainRequests.length, summary(o)).toBe(2);
    }, 120_000);

    if (name === "codex" || name === "gemini") {
      test("an ask becomes an approval task; once a person approves it, the agent's retry runs", async () => {
        const { o, sb } = await scenario((sb) => [
          { command: `touch ${join(sb.project, "e2e-asked-marker")}` },
          // A person approves from another terminal, and the model tries the same command again.
          { command: `touch ${join(sb.project, "e2e-asked-marker")}`, run: [[VERDICT, "approvals", "approve", "{{APPROVAL}}"]] },
          { text: FINISHED },
        ]);
        expectInstalled(o);
        expect(told(o, "verdict approvals approve "), summary(o)).toBe(true);
        expect(o.stepRuns[0]?.exitCode, JSON.stringify(o.stepRuns)).toBe(0);
        expect(existsSync(join(sb.project, "e2e-asked-marker")), summary(o)).toBe(true);
      }, 120_000);
    }

    if (name === "codex") {
      test("with the hooks trusted the way /hooks does it (no bypass flag), a deny still holds", async () => {
        const { o, sb } = await scenario((sb) => [{ command: `touch ${join(sb.project, "e2e-denied-marker")}` }, { text: FINISHED }], {
          trustCodexHooks: true,
        });
        expectInstalled(o);
        expect(o.pre[1]?.stdout, summary(o)).toContain("pre_tool_use");
        expect(existsSync(join(sb.project, "e2e-denied-marker")), summary(o)).toBe(false);
        expect(told(o, "E2E_DENIED"), summary(o)).toBe(true);
      }, 120_000);
    }
  });
}
