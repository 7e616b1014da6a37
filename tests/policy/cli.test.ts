import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, run, tempDir } from "../support/binary.ts";

function repoWith(policy: string) {
  const repo = tempDir("verdict-repo-");
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, ".verdict"));
  writeFileSync(join(repo, ".verdict", "policy.yaml"), policy);
  return repo;
}

describe("verdict policy", () => {
  test("--version prints the version, the commit and the embedded policy's digest", () => {
    const ran = run(["--version"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^verdict \d+\.\d+\.\d+ \(commit [0-9a-f]+(-dirty)?|unknown; embedded policy [0-9a-f]{16}\)/);
  });

  test("check accepts the default and refuses a broken file with file:line:col and exit 2", () => {
    expect(run(["policy", "check"]).code).toBe(0);
    const dir = tempDir();
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "judge:\n  tresholds: {}\n");
    const ran = run(["policy", "check", file]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:2:3: judge.tresholds: unknown key "tresholds"`);
    expect(ran.stderr).toContain('did you mean "thresholds"?');
    expect(ran.stdout).toBe("");
  });

  test("show --effective names the layer that set each value", () => {
    const repo = repoWith("judge:\n  thresholds:\n    ask_at_undo: 1.3\n");
    const ran = run(["policy", "show", "--effective"], { cwd: repo });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/judge\.thresholds\.ask_at_undo\s+1\.3\s+\[repo\]/);
    expect(ran.stdout).toMatch(/judge\.thresholds\.allow_at_ordinary\s+0\.9\s+\[default\]/);
  });

  test("an untrusted loosening is ignored with a warning until trusted, and again after a change", () => {
    const repo = repoWith("judge:\n  thresholds:\n    allow_at_ordinary: 0.5\n");
    const env = isolatedEnv();
    const before = run(["policy", "show", "--json"], { cwd: repo, env });
    expect(JSON.parse(before.stdout).policy.judge.thresholds.allow_at_ordinary).toBe(0.9);
    expect(before.stderr).toContain("ignored: judge.thresholds.allow_at_ordinary (0.5 is looser than 0.9)");
    expect(before.stderr).toContain("verdict policy trust");
    const trusted = run(["policy", "trust"], { cwd: repo, env });
    expect(trusted.code).toBe(0);
    const after = run(["policy", "show", "--json"], { cwd: repo, env });
    expect(JSON.parse(after.stdout).policy.judge.thresholds.allow_at_ordinary).toBe(0.5);
    expect(after.stderr).toBe("");
    writeFileSync(join(repo, ".verdict", "policy.yaml"), "judge:\n  thresholds:\n    allow_at_ordinary: 0.4\n");
    const changed = run(["policy", "show", "--json"], { cwd: repo, env });
    expect(JSON.parse(changed.stdout).policy.judge.thresholds.allow_at_ordinary).toBe(0.9);
  });

  test("schema prints the JSON Schema", () => {
    const ran = run(["policy", "schema"]);
    expect(JSON.parse(ran.stdout).title).toBe("verdict policy");
  });

  test("test fails on the first example that does not hold", () => {
    const dir = tempDir();
    const file = join(dir, "p.yaml");
    writeFileSync(file, "examples:\n  commands:\n    - { command: 'rm -rf ~', verdict: allow }\n");
    const ran = run(["policy", "test", "--policy", file]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("should be allow, got");
  });

  test("usage errors exit 2 with the message on stderr", () => {
    expect(run(["policy", "frobnicate"]).code).toBe(2);
    expect(run(["nonsense"]).stderr).toContain("unknown command");
    expect(run(["policy", "show", "--bogus"]).code).toBe(2);
  });
});
