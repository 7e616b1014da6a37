/** `verdict policy check` and `verdict policy test` run the rules' own checks, pointing at the rule's file and line. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, run, tempDir } from "../support/binary.ts";

const rule = (id: string, match: string, examples = "") =>
  [
    `  - id: ${id}`,
    `    match: ${match}`,
    "    act: read",
    "    undo: 0",
    "    reason: A rule of this test's own.",
    ...(examples ? [`    examples: ${examples}`] : []),
  ].join("\n");

function layer(...rules: string[]): string {
  const file = join(tempDir("verdict-rule-checks-"), "policy.yaml");
  writeFileSync(file, `# a layer of rules\nrules:\n${rules.join("\n")}\n`);
  return file;
}

describe("policy check runs the rules' own checks", () => {
  test("a pattern that does not compile: exit 2, with the rule's id and file:line", () => {
    const file = layer(rule("fine", "{ program: frob }"), rule("bad-pattern", '{ program: frob, args_any: ["/(unclosed/"] }'));
    const ran = run(["policy", "check", file]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `${file}:9:40: rules.1.match.args_any.0: rule bad-pattern: not a valid regular expression (found "/(unclosed/")`,
    );
    expect(ran.stdout).toBe("");
  });

  test("a rule that can match nothing: exit 2", () => {
    const file = layer(rule("matches-nothing", "{ flags_any: [--force] }"));
    const ran = run(["policy", "check", file]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:4:12: rules.0.match: rule matches-nothing: the rule can match nothing`);
    expect(ran.stderr).toContain("a rule needs match.program");
  });

  test("an example its rule contradicts: exit 2, each example named", () => {
    const file = layer(rule("frob-list", "{ program: frob, subcommand: list }", '{ match: ["frob show"], not_match: ["frob list"] }'));
    const ran = run(["policy", "check", file]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `${file}:8:51: rules.0.examples.not_match.0: rule frob-list matches "frob list", which its examples say it must not`,
    );
    expect(ran.stderr).toContain(
      `${file}:8:25: rules.0.examples.match.0: rule frob-list does not match "frob show", which its examples say it must`,
    );
  });

  test("rules whose examples hold pass, and the default's do", () => {
    const file = layer(rule("frob-list", "{ program: frob, subcommand: list }", '{ match: ["frob list -a"], not_match: ["frob show"] }'));
    expect(run(["policy", "check", file]).code).toBe(0);
    expect(run(["policy", "check"]).code).toBe(0);
  });
});

describe("policy test runs each rule's examples first", () => {
  test("a rule's example that does not hold is a policy problem (proven at load): exit 2, with file:line:col", () => {
    const file = layer(rule("frob-list", "{ program: frob, subcommand: list }", '{ match: ["frob show"] }'));
    const ran = run(["policy", "test", "--policy", file]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:8:25: rules.0.examples.match.0: rule frob-list does not match "frob show"`);
  });

  test("a rule that cannot be used is a policy problem: exit 2", () => {
    const file = layer(rule("bad-pattern", '{ program: frob, args_any: ["/(unclosed/"] }'));
    expect(run(["policy", "test", "--policy", file]).code).toBe(2);
  });

  test("a command example is judged in its own cwd's project", () => {
    const repo = tempDir("verdict-rule-checks-repo-");
    Bun.spawnSync(["git", "init", "-q"], { cwd: repo });
    const sub = join(repo, "sub");
    Bun.spawnSync(["mkdir", sub]);
    const file = join(tempDir("verdict-rule-checks-"), "policy.yaml");
    // ../src from repo/sub is in the project (untracked files: ask), not in a temp folder (allowed).
    writeFileSync(file, `examples:\n  commands:\n    - { command: "rm -rf ../src", cwd: ${JSON.stringify(sub)}, verdict: ask }\n`);
    // A home outside the temp folders, as the default's own examples expect (~/.bashrc is not a temp file).
    const ran = run(["policy", "test", "--policy", file, "--cwd", tempDir()], {
      env: isolatedEnv(tempDir(), { HOME: "/nonexistent-verdict-home" }),
    });
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
  });
});
