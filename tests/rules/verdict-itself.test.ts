/** An assistant may look at approvals and judge commands with verdict, but not decide its own approvals or trust a policy. */
import { describe, expect, test } from "bun:test";
import { judge } from "./helpers.ts";

describe("verdict run by an assistant", () => {
  test("deciding an approval is denied, with the reason a person reads, however it is run", () => {
    for (const line of [
      "verdict approvals approve 44f4edc7287b",
      "verdict approvals approve 44f4edc7287b --always --layer user --note fine",
      "verdict approvals reject 44f4edc7287b --reason 'not now'",
      "verdict approvals answer 44f4edc7287b 'yes, go on'",
      "verdict approvals --scope run approve 44f4edc7287b",
      "cd /home/user/project && verdict approvals approve 44f4edc7287b",
      "sudo verdict approvals approve 44f4edc7287b",
      "env VERDICT_MODE=rules verdict approvals approve 44f4edc7287b",
      "bash -lc 'verdict approvals approve 44f4edc7287b'",
      'sh -c "verdict approvals reject 44f4edc7287b --reason x"',
      "echo 44f4edc7287b | xargs verdict approvals approve",
      "npx verdict approvals approve 44f4edc7287b",
      "bunx verdict approvals approve 44f4edc7287b",
      "./dist/verdict approvals approve 44f4edc7287b",
      "/tmp/verdict approvals approve 44f4edc7287b",
      "node_modules/.bin/verdict approvals approve 44f4edc7287b",
      "verdict approvals list; verdict approvals approve 44f4edc7287b",
    ]) {
      const judged = judge(line);
      expect({ line, verdict: judged.verdict, rule: judged.rule }).toEqual({ line, verdict: "deny", rule: "verdict-decides-approvals" });
      expect(judged.answer.parsed && judged.answer.rule?.reason).toBe(
        "Approvals are decided by a person: run this yourself in a terminal.",
      );
    }
  });

  test("trusting a repository policy is denied", () => {
    expect(judge("verdict policy trust")).toMatchObject({ verdict: "deny", rule: "verdict-trusts-policy" });
    expect(judge("bash -c 'verdict policy trust .verdict/policy.yaml'").verdict).toBe("deny");
  });

  test("looking at approvals, judging a command, reading policies and the log are allowed", () => {
    for (const line of [
      "verdict approvals list",
      "verdict approvals list --all --json",
      "verdict approvals show 44f4edc7287b",
      "verdict approvals verify",
      "verdict check -- rm -rf /",
      "verdict check --json --rules-only -- verdict approvals approve 44f4edc7287b",
      "verdict check --stdin < commands.txt",
      "verdict policy check",
      "verdict policy show --effective",
      "verdict policy test",
      "verdict log",
      "verdict --version",
      "echo 'verdict approvals approve 44f4edc7287b'",
      "git commit -m 'verdict approvals approve is for people'",
    ]) {
      expect({ line, verdict: judge(line).verdict }).toEqual({ line, verdict: "allow" });
    }
  });

  test("a verdict binary of unknown origin is not trusted to only read", () => {
    expect(judge("./verdict approvals list").verdict).toBe("pass");
  });
});
