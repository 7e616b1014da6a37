/** Cancelling verdict run with a signal, in the middle of a tool call and of a request; through the compiled binary. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, type FakeServer } from "./fake-formal-ai.ts";
import { evidenceOf, processAlive, runVerdict, setup, toolSteps, until } from "./helpers.ts";

let fake: FakeServer | undefined;
afterEach(() => fake?.stop());

describe("verdict run: cancellation", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    test(`${signal} in the middle of a call: the call's process group is killed, exit ${code}, evidence written`, async () => {
      const marker = `sleep 43.${code}`;
      fake = startFake({ script: [{ command: marker }, { answer: "never reached" }] });
      const s = setup();
      const ran = await runVerdict(s, fake.url, ["--grace", "300ms", "wait a while"], {
        during: async (pid, output) => {
          await until(() => output().includes(`[1] ${marker}`) && processAlive(marker), 5000, "the call to start");
          process.kill(pid, signal);
        },
      });
      expect(ran.code).toBe(code);
      expect(ran.durationMs).toBeLessThan(5000);
      expect(processAlive(marker)).toBe(false);
      const evidence = evidenceOf(s);
      expect(evidence.outcome).toMatchObject({
        status: "cancelled",
        exitCode: code,
        reason: signal.toLowerCase(),
        message: `cancelled by ${signal} during ${marker}`,
      });
      expect(evidence.outcome.remainingObligations[0]).toContain("later steps did not run");
      expect(evidence.endedAt).not.toBeNull();
      const [call] = toolSteps(evidence);
      expect(call).toMatchObject({ decision: "ran", receipt: { cancelled: true, timedOut: false, signal: "SIGTERM" } });
      expect(fake.requests).toHaveLength(1);
    });
  }

  test("SIGINT while a call waits on its approval: exit 130, the call never runs", async () => {
    fake = startFake({ script: [{ command: "test -e old.txt" }, { command: "rm old.txt" }, { answer: "done" }] });
    const s = setup({ "old.txt": "keep me\n" });
    const journal = join(s.home, ".local/state/verdict/approvals.jsonl");
    const ran = await runVerdict(s, fake.url, ["delete old.txt"], {
      during: async (pid) => {
        await until(() => existsSync(journal) && readFileSync(journal, "utf8").includes("task.opened"), 5000, "the approval task");
        process.kill(pid, "SIGINT");
      },
    });
    expect(ran.code).toBe(130);
    expect(existsSync(join(s.cwd, "old.txt"))).toBe(true);
    const evidence = evidenceOf(s);
    expect(toolSteps(evidence)[1]).toMatchObject({ decision: "not-run", command: "rm old.txt" });
    expect(evidence.outcome).toMatchObject({ status: "cancelled", message: "cancelled by SIGINT while waiting for an approval" });
  });

  test("SIGINT in the middle of a request: exit 130, evidence written", async () => {
    fake = startFake({ behaviour: "hang" });
    const s = setup();
    const server = fake;
    const ran = await runVerdict(s, fake.url, ["hello"], {
      during: async (pid) => {
        await until(() => server.requests.length === 1, 5000, "the request to arrive");
        process.kill(pid, "SIGINT");
      },
    });
    expect(ran.code).toBe(130);
    const evidence = evidenceOf(s);
    expect(evidence.steps).toEqual([expect.objectContaining({ kind: "request-failed", reason: "cancelled" })]);
    expect(evidence.outcome).toMatchObject({
      status: "cancelled",
      exitCode: 130,
      message: "cancelled by SIGINT while waiting for the model",
    });
  });
});
