/** verdict check through the compiled binary (dist/verdict): exit statuses, text and JSON, --stdin, hostile input. */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, isolatedEnv, run, tempDir, type Ran } from "../support/binary.ts";

function check(
  args: string[],
  options: { stdin?: string | Uint8Array; env?: Record<string, string>; cwd?: string; timeout?: number } = {},
): Ran {
  return run(["check", ...args], {
    cwd: options.cwd ?? tempDir("verdict-check-cwd-"),
    env: options.env,
    stdin: options.stdin,
    timeout: options.timeout ?? 20_000,
  });
}

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: build it with npx bun build.ts`);
});

describe("the exit status is the verdict", () => {
  test.each([
    ["ls -la", 0, "allow"],
    ["frobnicate --all", 10, "pass"],
    ["git push --force", 11, "ask"],
    ["rm -rf ~", 12, "deny"],
  ])("%p exits %p", (command, code, verdict) => {
    const ran = check(["--rules-only", "--", command]);
    expect(ran.code).toBe(code);
    expect(ran.stdout.startsWith(`${verdict}: rules: `)).toBe(true);
  });

  test("the text names the rule and the command it matched", () => {
    const ran = check(["--", "sudo bash -c 'cd / && rm -rf etc'"]);
    expect(ran.code).toBe(12);
    expect(ran.stdout).toContain("rule rm-root-or-home, on: rm -rf etc");
  });

  test("without --, the words are the command", () => {
    expect(check(["ls"]).code).toBe(0);
  });
});

describe("--json", () => {
  test("has the verdict, the answers, the rule, what executed and the policy digest", () => {
    const ran = check(["--json", "--", "git status && git push --force origin main"]);
    expect(ran.code).toBe(11);
    const out = JSON.parse(ran.stdout);
    expect(out.verdict).toBe("ask");
    expect(out.answerer).toBe("rules");
    expect(out.act.choice).toBe("history");
    expect(Object.keys(out.act.probabilities)).toContain("remote");
    expect(out.undo).toBe(3);
    expect(typeof out.load).toBe("number");
    expect(out.rule.id).toBe("git-push-force");
    expect(out.rule.command.argv).toEqual(["git", "push", "--force", "origin", "main"]);
    expect(out.executed.map((c: { name: string }) => c.name)).toEqual(["git", "git"]);
    expect(out.policy).toMatch(/^[0-9a-f]{16}$/);
    expect(out.line).toContain("rules:");
  });

  test("a line no rule knows has no answers", () => {
    const out = JSON.parse(check(["--json", "--", "frobnicate"]).stdout);
    expect(out.verdict).toBe("pass");
    expect(out.act).toBeNull();
    expect(out.rule).toBeNull();
  });
});

describe("--stdin", () => {
  test("one command a line, or a JSON object with its own cwd; the strictest verdict is the exit status", () => {
    const project = tempDir("verdict-check-project-");
    const input = [
      "ls",
      "",
      JSON.stringify({ command: "rm -rf build", cwd: project }),
      JSON.stringify({ command: "cat <<'EOF' > x.md\nrm -rf /\nEOF", cwd: project }),
      "git push",
    ].join("\n");
    const ran = check(["--stdin", "--json"], { stdin: input });
    const lines = ran.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.verdict)).toEqual(["allow", "allow", "allow", "ask"]);
    expect(lines[1].cwd).toBe(project);
    expect(ran.code).toBe(11);
  });

  test("text output shows each command", () => {
    const ran = check(["--stdin"], { stdin: "ls\nrm -rf /\n" });
    expect(ran.stdout).toContain("$ ls\nallow:");
    expect(ran.stdout).toContain("$ rm -rf /\ndeny:");
    expect(ran.code).toBe(12);
  });

  test("a command that starts with a brace group is not taken for JSON", () => {
    const ran = check(["--stdin", "--json"], { stdin: "{ ls; pwd; }\n" });
    expect(JSON.parse(ran.stdout).verdict).toBe("allow");
  });

  test("a JSON line without a command is a usage error", () => {
    const ran = check(["--stdin"], { stdin: '{"cmd": "ls"}\n' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('"command"');
  });
});

describe("usage and policy errors exit 2", () => {
  test.each([[[]], [["--stdin", "--", "ls"]], [["--bogus", "--", "ls"]], [["x", "--", "ls"]]])("%p", (args) => {
    const ran = check(args as string[]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("verdict:");
  });

  test("a policy that cannot be loaded", () => {
    const dir = tempDir();
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "rules:\n  - id: x\n    match: { program: ls }\n    act: nonsense\n    undo: 0\n    reason: r\n");
    const ran = check(["--policy", file, "--", "ls"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("nonsense");
  });

  test("--help documents the exit statuses", () => {
    const ran = check(["--help"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("0 allow, 10 pass");
    expect(ran.stdout).toContain("11 ask, 12 deny");
  });
});

test("a policy layer's rules are tried first", () => {
  const dir = tempDir();
  const file = join(dir, "policy.yaml");
  writeFileSync(
    file,
    "rules:\n  - id: no-ls-here\n    match: { program: ls }\n    act: read\n    undo: 0\n    decision: deny\n    reason: Listing is forbidden here.\n",
  );
  const ran = check(["--policy", file, "--", "ls"]);
  expect(ran.code).toBe(12);
  expect(ran.stdout).toContain("Listing is forbidden here.");
});

test("with a model key but VERDICT_MODE=rules, the rule engine answers", () => {
  const ran = check(["--json", "--", "ls"], {
    env: isolatedEnv(undefined, { TYPESAFE_API_KEY: "x", VERDICT_MODE: "rules", TYPESAFE_BASE_URL: "http://127.0.0.1:9" }),
  });
  expect(JSON.parse(ran.stdout).answerer).toBe("rules");
});

describe("hostile input gets a verdict that is not allow, with a reason, quickly", () => {
  const hostile: [string, string | Uint8Array][] = [
    ["a 10 MB command", JSON.stringify({ command: `echo ${"a".repeat(10 * 1024 * 1024)} && rm -rf "$X"` })],
    ["a 10 MB line of one word", "x".repeat(10 * 1024 * 1024)],
    ["deeply nested substitutions", `echo ${"$(".repeat(5000)}x${")".repeat(5000)}`],
    ["deeply nested bash -c", "bash -c ".repeat(200) + "ls"],
    ["binary bytes", new Uint8Array([0x6c, 0x73, 0x00, 0xff, 0xfe, 0x1b, 0x5b, 0x30, 0x6d, 0x20, 0x2d, 0x6c, 0x0a])],
    ["unterminated quotes", "echo 'unterminated\n"],
    ["an unterminated here-document", "cat <<EOF\nrm -rf /\n"],
    ["a stray closing parenthesis", "echo ok; ) rm -rf /\n"],
  ];
  test.each(hostile)("%s", (_name, input) => {
    const ran = check(["--stdin", "--json"], { stdin: input, timeout: 30_000 });
    expect(ran.ms).toBeLessThan(30_000);
    expect(ran.code).not.toBe(0);
    expect([10, 11, 12]).toContain(ran.code);
    const outputs = ran.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(outputs.length).toBeGreaterThan(0);
    for (const out of outputs) {
      expect(out.verdict).not.toBe("allow");
      expect(out.line.length).toBeGreaterThan(10);
    }
  });
});

test("each --stdin line's project is found from its own cwd", () => {
  const repo = tempDir("verdict-check-repo-");
  Bun.spawnSync(["git", "init", "-q"], { cwd: repo });
  const elsewhere = tempDir("verdict-check-else-");
  const input = [JSON.stringify({ command: "rm -rf src", cwd: repo }), JSON.stringify({ command: "rm -rf src", cwd: elsewhere })].join(
    "\n",
  );
  const ran = check(["--stdin", "--json", "--cwd", repo], { stdin: input });
  const [inRepo, inTemp] = ran.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(inRepo.verdict).toBe("ask");
  expect(inRepo.rule.id).toBe("rm-project-files");
  expect(inTemp.rule.id).toBe("rm-project-files");
});
