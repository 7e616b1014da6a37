/**
 * The load pipeline through the compiled binary (issue 11's cases): a policy
 * is proven before it is used, by every command and every hook, and an
 * untrusted repository policy is checked in full whatever it may set.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replyEffect } from "../../src/hosts/roundtrip.ts";
import { isolatedEnv, run, tempDir } from "../support/binary.ts";
import { prePayload } from "../hosts/helpers.ts";
import { HOST_NAMES, type HostName } from "../../src/hosts/types.ts";

const HOSTS = HOST_NAMES;
type Host = HostName;
/** The embedded default's hosts.on_error, as each host sees it. */
const ON_ERROR: Record<Host, ReturnType<typeof replyEffect>> = { claude: "asks", codex: "blocks", gemini: "blocks", cursor: "asks" };

/** A home whose user policy is `text`, and a project folder (a repository) to run in. */
function withUserPolicy(text: string) {
  const env = isolatedEnv();
  const file = join(env.XDG_CONFIG_HOME!, "verdict", "policy.yaml");
  mkdirSync(join(env.XDG_CONFIG_HOME!, "verdict"), { recursive: true });
  writeFileSync(file, text);
  const project = tempDir("verdict-project-");
  mkdirSync(join(project, ".git"));
  return { env, file, project };
}

/** A repository holding `.verdict/policy.yaml` with `text`, and a home of its own. */
function withRepoPolicy(text: string) {
  const env = isolatedEnv();
  const repo = tempDir("verdict-repo-");
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, ".verdict"));
  const file = join(repo, ".verdict", "policy.yaml");
  writeFileSync(file, text);
  return { env, repo, file };
}

const BROKEN_RM_RULE = [
  "rules:",
  "  - id: no-rm-notes",
  "    match: { program: rm, args_any: ['/notes(\\.txt/'] }",
  "    act: delete",
  "    undo: 2",
  "    decision: deny",
  "    reason: Notes are not removed here.",
  "",
].join("\n");

describe("a user rule that does not compile refuses the policy everywhere", () => {
  test("check: exit 2, with file:line:col of the pattern", () => {
    const { env, file, project } = withUserPolicy(BROKEN_RM_RULE);
    const ran = run(["check", "--rules-only", "--", "rm", "notes.txt"], { env, cwd: project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:3:38: rules.0.match.args_any.0: rule no-rm-notes: not a valid regular expression`);
  });

  for (const host of HOSTS) {
    test(`hook ${host}: hosts.on_error, with the file:line:col in the reason`, () => {
      const { env, file, project } = withUserPolicy(BROKEN_RM_RULE);
      const ran = run(["hook", host], { env, cwd: project, stdin: prePayload(host, "rm notes.txt", project) });
      expect(ran.code).toBe(0);
      expect(replyEffect(host, ran.stdout, ran.code)).toBe(ON_ERROR[host]);
      expect(ran.stdout).toContain("the policy cannot be used");
      expect(ran.stdout).toContain(`${file}:3:38`);
    });
  }
});

describe("strict parsing", () => {
  test("a key written twice is an error, wherever it is", () => {
    const { env, file, project } = withUserPolicy("judge:\n  thresholds:\n    ask_at_undo: 1.0\n    ask_at_undo: 2.9\n");
    for (const args of [
      ["policy", "check"],
      ["check", "--rules-only", "--", "ls"],
    ]) {
      const ran = run(args, { env, cwd: project });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`${file}:4:5: judge.thresholds.ask_at_undo: a key is written twice in one map`);
    }
  });

  test("a merge key and a tag are errors; an anchor and its alias are one value", () => {
    const merged = withUserPolicy("judge: &j\n  thresholds:\n    ask_at_undo: 1.0\nhosts:\n  <<: *j\n");
    const ran = run(["policy", "check"], { env: merged.env, cwd: merged.project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("a merge key (<<) is not allowed");
    const tagged = withUserPolicy("judge:\n  thresholds:\n    ask_at_undo: !!str 1.0\n");
    expect(run(["policy", "check"], { env: tagged.env, cwd: tagged.project }).stderr).toContain("a tag (!!str) is not allowed");
    const aliased = withUserPolicy("task:\n  run_within: &t 5m\n  call_within: *t\n");
    expect(run(["policy", "check"], { env: aliased.env, cwd: aliased.project }).code).toBe(0);
  });
});

describe("turn rules are checked", () => {
  test("an invalid last_command.matches and a rule with no condition are reported together, with positions", () => {
    const text = [
      "turn_rules:",
      "  - id: tests-failed",
      "    last_command: { matches: ['(pytest'], failed: true }",
      "    ending: stopped-after-failure",
      "    confidence: 0.9",
      "    reason: The tests failed.",
      "  - id: never",
      "    ending: finished",
      "    confidence: 0.9",
      "    reason: No condition.",
      "",
    ].join("\n");
    const { env, file, project } = withUserPolicy(text);
    const ran = run(["policy", "check"], { env, cwd: project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `${file}:3:31: turn_rules.0.last_command.matches.0: turn rule tests-failed: not a valid regular expression`,
    );
    expect(ran.stderr).toContain(`${file}:7:5: turn_rules.1: turn rule never: the turn rule has no condition, so it never applies`);
  });

  test("a pattern that could backtrack catastrophically is refused", () => {
    const text =
      "rules:\n  - id: slow\n    match: { program: grep, args_any: ['/^(a+)+$/'] }\n    act: read\n    undo: 0\n    reason: Slow.\n";
    const { env, file, project } = withUserPolicy(text);
    const ran = run(["policy", "check"], { env, cwd: project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:3:40: rules.0.match.args_any.0: rule slow: a repeated group holds a repetition of its own`);
  });
});

describe("tool rules go through the same pipeline", () => {
  test("a pattern that does not compile, or could backtrack, refuses the policy with its position", () => {
    const text =
      "tool_rules:\n  - id: slow\n    match:\n      kind: [read]\n      path: ['/(a+)+b/']\n    act: read\n    undo: 0\n    reason: Slow.\n  - id: broken\n    match: { kind: [read], path: ['/(unclosed/'] }\n    act: read\n    undo: 0\n    reason: Broken.\n";
    const { env, file, project } = withUserPolicy(text);
    const ran = run(["policy", "check"], { env, cwd: project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:5:14: tool_rules.0.match.path.0: tool rule slow: a repeated group holds a repetition of its own`);
    expect(ran.stderr).toContain("tool rule broken: match.path: Invalid regular expression");
  });

  test("an unknown act and an example that does not hold are reported once merged", () => {
    const text = [
      "tool_rules:",
      "  - id: notes",
      "    match: { kind: [write], path: ['*.md'] }",
      "    act: publish",
      "    undo: 0",
      "    reason: Notes.",
      "    examples:",
      "      match: [{ kind: write, path: notes.txt }]",
      "",
    ].join("\n");
    const { env, file, project } = withUserPolicy(text);
    const ran = run(["policy", "check"], { env, cwd: project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:2:5: tool_rules.0: tool rule notes: unknown act "publish"`);
    expect(ran.stderr).toContain(
      `${file}:2:5: tool_rules.0: tool rule notes does not match {"kind":"write","path":"notes.txt"}, which its examples say it must`,
    );
  });
});

describe("examples are proven by the engine itself", () => {
  const rule = (examples: string) =>
    [
      "rules:",
      "  - id: no-pytest",
      "    match: { program: pytest }",
      "    act: build",
      "    undo: 0",
      "    decision: deny",
      "    reason: Not here.",
      `    examples: ${examples}`,
      "",
    ].join("\n");

  test("uv run pytest -q: policy check and the engine agree that the rule matches", () => {
    const { env, project } = withUserPolicy(rule('{ match: ["uv run pytest -q"] }'));
    expect(run(["policy", "check"], { env, cwd: project }).code).toBe(0);
    const judged = run(["check", "--rules-only", "--", "uv", "run", "pytest", "-q"], { env, cwd: project });
    expect(judged.stdout).toContain("rule no-pytest");
    expect(judged.stdout.startsWith("deny")).toBe(true);
  });

  test("and a not_match the engine contradicts is refused", () => {
    const { env, file, project } = withUserPolicy(rule('{ not_match: ["uv run pytest -q"] }'));
    const ran = run(["policy", "check"], { env, cwd: project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `${file}:8:29: rules.0.examples.not_match.0: rule no-pytest matches "uv run pytest -q", which its examples say it must not`,
    );
  });
});

describe("an untrusted repository policy is checked in full", () => {
  const DEPLOY =
    "rules:\n  - id: deploy\n    match: { program: ./deploy.sh }\n    act: deploy\n    undo: 2\n    decision: ask\n    reason: Deploys.\n";

  test("act: deploy is reported by policy check and refused by policy trust", () => {
    const { env, repo, file } = withRepoPolicy(DEPLOY);
    const checked = run(["policy", "check"], { env, cwd: repo });
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(`${file}:4:10: rules.0.act: unknown act "deploy"`);
    const trusted = run(["policy", "trust"], { env, cwd: repo });
    expect(trusted.code).toBe(2);
    expect(trusted.stderr).toContain(`not trusting ${file}`);
    expect(trusted.stderr).toContain(`${file}:4:10: rules.0.act: unknown act "deploy"`);
    const doctor = run(["doctor"], { env, cwd: repo });
    expect(doctor.stdout + doctor.stderr).toContain(`${file}:4:10: rules.0.act: unknown act "deploy"`);
    // Nothing was recorded: the layer is still untrusted, so still ignored, and commands still run.
    expect(run(["check", "--rules-only", "--", "ls"], { env, cwd: repo }).code).toBe(0);
  });

  test("a rule naming an act the untrusted file defines (which it may not) leaves the policy whole", () => {
    const text = [
      "acts:",
      "  deploy: { phrase: deploys, definition: sends the project to a server, consequential: true }",
      "rules:",
      "  - id: deploy",
      "    match: { program: ./deploy.sh }",
      "    act: deploy",
      "    undo: 2",
      "    decision: ask",
      "    reason: Deploys.",
      "",
    ].join("\n");
    const { env, repo, file } = withRepoPolicy(text);
    const ls = run(["check", "--rules-only", "--", "ls"], { env, cwd: repo });
    expect(ls.code).toBe(0);
    expect(ls.stderr).toContain(`the repository policy ${file} is ignored`);
    expect(ls.stderr).toContain('unknown act "deploy"');
    const checked = run(["policy", "check"], { env, cwd: repo });
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain("trusting the file (verdict policy trust) would keep them");
    // Trusted, the file holds: the act is its own.
    expect(run(["policy", "trust"], { env, cwd: repo }).code).toBe(0);
    expect(run(["check", "--rules-only", "--", "./deploy.sh"], { env, cwd: repo }).stdout.startsWith("ask")).toBe(true);
  });

  test("a typo leaves ls allowed, with one warning the first time only", () => {
    const { env, repo, file } = withRepoPolicy(
      "version: 1\nrules:\n  - id: ask-curl\n    match: { program: curl }\n    act: remote\n    undo: 1\n    decision: ask\n    reason: Asks.\n    exmaples: {}\n",
    );
    const first = run(["hook", "claude"], { env, cwd: repo, stdin: prePayload("claude", "ls", repo) });
    expect(replyEffect("claude", first.stdout, first.code)).toBe("runs");
    const warnings = first.stderr.split("\n").filter((line) => line.includes("warning"));
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain(`the repository policy ${file} is ignored`);
    expect(warnings[0]).toContain(`${file}:9:5: rules.0.exmaples: unknown key "exmaples"`);
    expect(warnings[0]).toContain("verdict policy check");
    for (const host of HOSTS) {
      const again = run(["hook", host], { env, cwd: repo, stdin: prePayload(host, "ls", repo) });
      expect(replyEffect(host, again.stdout, again.code)).toBe("runs");
      expect(again.stderr).not.toContain("warning");
    }
    const checked = run(["check", "--rules-only", "--", "ls"], { env, cwd: repo });
    expect(checked.code).toBe(0);
    expect(checked.stderr).toBe("");
  });

  test("an ask rule is kept (it only tightens), version: 1 is not warned about, a loosening is", () => {
    const text = [
      "version: 1",
      "rules:",
      "  - id: ask-ls",
      "    match: { program: ls }",
      "    act: read",
      "    undo: 0",
      "    decision: ask",
      "    reason: This repository wants ls asked about.",
      "  - id: ask-rm",
      "    match: { program: rm }",
      "    act: delete",
      "    undo: 0",
      "    decision: ask",
      "    reason: An ask cannot loosen a deny.",
      "  - id: ask-uv",
      "    match: { program: uv }",
      "    act: build",
      "    undo: 0",
      "    decision: ask",
      "    reason: An ask cannot hide what uv runs.",
      "  - id: allow-curl",
      "    match: { program: curl }",
      "    act: read",
      "    undo: 0",
      "    decision: allow",
      "    reason: Loosens.",
      "",
    ].join("\n");
    const { env, repo } = withRepoPolicy(text);
    const ls = run(["check", "--rules-only", "--", "ls"], { env, cwd: repo });
    expect(ls.stdout.startsWith("ask")).toBe(true);
    expect(ls.stderr).not.toContain("version");
    expect(ls.stderr).toContain("ignored: rules.3 (allow-curl) (an untrusted policy may add only rules with decision: ask or deny)");
    // The default's deny for rm -rf ~ stands: an added rule only adds its ask, never answers in a trusted rule's place,
    // so it neither lowers a deny nor hides the command a runner runs.
    expect(run(["check", "--rules-only", "--", "rm", "-rf", "~"], { env, cwd: repo }).stdout.startsWith("deny")).toBe(true);
    expect(run(["check", "--rules-only", "--", "uv", "run", "rm", "-rf", "~"], { env, cwd: repo }).stdout.startsWith("deny")).toBe(true);
    expect(run(["check", "--rules-only", "--", "uv", "run", "pytest"], { env, cwd: repo }).stdout.startsWith("ask")).toBe(true);
  });
});
