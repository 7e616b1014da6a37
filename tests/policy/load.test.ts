import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPolicy } from "../../src/policy/index.ts";
import { trust, chainDigest } from "../../src/policy/trust.ts";
import { tempDir } from "../support/binary.ts";

/** A repository with an optional repo policy, a home, and an environment pointing at that home. */
function workspace(repoPolicy?: string) {
  const root = tempDir();
  const repo = join(root, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  if (repoPolicy !== undefined) {
    mkdirSync(join(repo, ".verdict"));
    writeFileSync(join(repo, ".verdict", "policy.yaml"), repoPolicy);
  }
  const env = { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "config") };
  return { root, repo, env, write: (name: string, text: string) => (writeFileSync(join(root, name), text), join(root, name)) };
}

function problemsOf(text: string) {
  const w = workspace();
  const file = w.write("p.yaml", text);
  const result = loadPolicy({ cwd: w.repo, file, env: w.env });
  if (result.ok) throw new Error("expected the policy to be refused");
  return { file, problems: result.error.problems, message: result.error.message };
}

describe("the embedded default", () => {
  test("loads alone, with every section", () => {
    const w = workspace();
    const result = loadPolicy({ cwd: w.repo, env: w.env });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.loaded.layers.map((layer) => layer.name)).toEqual(["default"]);
    expect(result.loaded.policy.judge.thresholds).toEqual({
      ask_at_consequential: 0.6,
      ask_at_undo: 1.6,
      allow_at_ordinary: 0.9,
      allow_undo_at_most: 1.2,
      block_stop_at: 0.85,
    });
    expect(result.loaded.policy.judge.answer_within).toBe("1500ms");
    expect(result.loaded.digest).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("errors name file, line, column, path, and a fix", () => {
  test("a misspelt key suggests the nearest valid one", () => {
    const { file, problems } = problemsOf("judge:\n  tresholds:\n    ask_at_undo: 1.2\n");
    expect(problems[0]).toMatchObject({ file, line: 2, column: 3, path: "judge.tresholds", hint: 'did you mean "thresholds"?' });
  });
  test("a wrong type", () => {
    const { problems } = problemsOf("judge:\n  thresholds:\n    ask_at_undo: high\n");
    expect(problems[0]).toMatchObject({ line: 3, column: 18, path: "judge.thresholds.ask_at_undo", expected: "number", found: '"high"' });
  });
  test("an out-of-range threshold", () => {
    const { problems } = problemsOf("judge:\n  thresholds:\n    allow_at_ordinary: 1.5\n");
    expect(problems[0]).toMatchObject({ line: 3, path: "judge.thresholds.allow_at_ordinary", expected: "at most 1", found: "1.5" });
  });
  test("a duration without a unit", () => {
    const { problems } = problemsOf("judge:\n  answer_within: 1500\n");
    expect(problems[0]).toMatchObject({ line: 2, column: 18, path: "judge.answer_within", hint: "write it with a unit: 1500ms, or 1.5s" });
    const { problems: text } = problemsOf("judge:\n  answer_within: soon\n");
    expect(text[0]).toMatchObject({ path: "judge.answer_within", message: "wrong format", found: '"soon"' });
  });
  test("broken YAML", () => {
    const { file, message, problems } = problemsOf("judge:\n  thresholds: [1, 2\n  x: y\n");
    expect(problems[0]).toMatchObject({ file, line: 3, column: 3 });
    expect(message).toContain("not valid YAML");
  });
  test("a value of the wrong enum suggests the nearest", () => {
    const { problems } = problemsOf("model:\n  provider: jevv\n");
    expect(problems[0]).toMatchObject({ line: 2, column: 13, hint: 'did you mean "jev"?' });
  });
  test("a rule naming an unknown act points at the rule in its file", () => {
    const { file, problems } = problemsOf("rules:\n  - id: x\n    match: { program: rm }\n    act: delet\n    undo: 1\n    reason: r\n");
    expect(problems[0]).toMatchObject({ file, line: 4, column: 10, path: "rules.0.act", hint: 'did you mean "delete"?' });
  });
  test("an incomplete new act is reported against the layer that added it", () => {
    const { file, problems } = problemsOf("acts:\n  publish:\n    definition: sends a package to a registry\n");
    expect(problems[0]).toMatchObject({ file, path: "acts.publish", message: 'missing key "phrase"' });
    expect(problems[0]!.line).toBe(3);
  });
  test("every problem is reported, not only the first", () => {
    const { problems } = problemsOf("judge:\n  tresholds: {}\n  answer_within: 5\nmodel:\n  provider: x\n");
    expect(problems.length).toBe(3);
  });
  test("a missing --policy file is an error, never a silent fallback", () => {
    const w = workspace();
    const result = loadPolicy({ cwd: w.repo, file: join(w.root, "nope.yaml"), env: w.env });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("no such file");
  });
  test("a policy that is a list is refused", () => {
    const { problems } = problemsOf("- a\n- b\n");
    expect(problems[0]!.message).toContain("must be a map");
  });
});

describe("layers", () => {
  test("user, repo and command line apply in order; scalars replace, maps merge", () => {
    const w = workspace("judge:\n  thresholds:\n    ask_at_undo: 1.4\n");
    mkdirSync(join(w.env.XDG_CONFIG_HOME, "verdict"), { recursive: true });
    writeFileSync(
      join(w.env.XDG_CONFIG_HOME, "verdict", "policy.yaml"),
      "judge:\n  thresholds:\n    ask_at_undo: 1.5\n    allow_at_ordinary: 0.95\n",
    );
    const file = w.write("cli.yaml", "judge:\n  answer_within: 900ms\n");
    const result = loadPolicy({ cwd: join(w.repo, "src", "deep"), file, env: w.env, origins: true });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { policy, layers } = result.loaded;
    const origins = result.loaded.origins!;
    expect(layers.map((layer) => layer.name)).toEqual(["default", "user", "repo", "command-line"]);
    expect(policy.judge.thresholds.ask_at_undo).toBe(1.4);
    expect(policy.judge.thresholds.allow_at_ordinary).toBe(0.95);
    expect(policy.judge.answer_within).toBe("900ms");
    expect(origins.get("judge.thresholds.ask_at_undo")?.layer).toBe("repo");
    expect(origins.get("judge.thresholds.allow_at_ordinary")?.layer).toBe("user");
    expect(origins.get("judge.answer_within")?.layer).toBe("command-line");
    expect(origins.get("judge.thresholds.block_stop_at")?.layer).toBe("default");
  });

  test("rules concatenate, stronger layers first, and a same-id rule replaces", () => {
    const w = workspace();
    const rule = (id: string, program: string) => `  - { id: ${id}, match: { program: ${program} }, act: read, undo: 0, reason: r }\n`;
    const base = w.write("base.yaml", `rules:\n${rule("mine", "foo")}`);
    const file = w.write("cli.yaml", `extends: ${base}\nrules:\n${rule("mine", "bar")}${rule("other", "baz")}`);
    const result = loadPolicy({ cwd: w.repo, file, env: w.env });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const ids = result.loaded.policy.rules.map((r) => `${r.id}:${String(r.match.program)}`);
    expect(ids.slice(0, 2)).toEqual(["mine:bar", "other:baz"]);
    expect(ids.filter((id) => id.startsWith("mine"))).toEqual(["mine:bar"]);
    expect(result.loaded.layers[1]!.files).toEqual([base, file]);
  });

  test("extends is relative to the file and a loop is refused", () => {
    const w = workspace();
    w.write("a.yaml", "extends: b.yaml\n");
    w.write("b.yaml", "extends: a.yaml\n");
    const result = loadPolicy({ cwd: w.repo, file: join(w.root, "a.yaml"), env: w.env });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("loop");
  });

  test("VERDICT_POLICY names the command-line layer", () => {
    const w = workspace();
    const file = w.write("env.yaml", "judge:\n  answerer: rules\n");
    const result = loadPolicy({ cwd: w.repo, env: { ...w.env, VERDICT_POLICY: file } });
    expect(result.ok && result.loaded.policy.judge.answerer).toBe("rules");
  });
});

describe("an untrusted repository policy only tightens", () => {
  const loosening = [
    "judge:",
    "  answerer: rules",
    "  thresholds:",
    "    allow_at_ordinary: 0.5",
    "    ask_at_consequential: 0.9",
    "    ask_at_undo: 1.2",
    "acts:",
    "  delete:",
    "    consequential: false",
    "  edit:",
    "    consequential: true",
    "rules:",
    "  - { id: let-rm, match: { program: rm }, act: read, undo: 0, decision: allow, reason: r }",
    "  - { id: no-curl, match: { program: curl }, act: remote, undo: 3, decision: deny, reason: r }",
    "  - { id: rm-root-or-home, match: { program: nothing }, act: delete, undo: 3, decision: deny, reason: r }",
    "",
  ].join("\n");

  test("loosening parts are ignored with a warning naming them and the fix", () => {
    const w = workspace(loosening);
    const result = loadPolicy({ cwd: w.repo, env: w.env });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { policy, warnings, layers } = result.loaded;
    expect(layers.at(-1)).toMatchObject({ name: "repo", trusted: false });
    expect(policy.judge.thresholds.allow_at_ordinary).toBe(0.9);
    expect(policy.judge.thresholds.ask_at_consequential).toBe(0.6);
    expect(policy.judge.thresholds.ask_at_undo).toBe(1.2);
    expect(policy.judge.answerer).toBe("auto");
    expect(policy.acts.delete!.consequential).toBe(true);
    expect(policy.acts.edit!.consequential).toBe(true);
    const ids = policy.rules.map((rule) => rule.id);
    expect(ids).toContain("no-curl");
    expect(ids).not.toContain("let-rm");
    expect(policy.rules.find((rule) => rule.id === "rm-root-or-home")!.match.program).not.toEqual("nothing");
    const text = warnings.join("\n");
    for (const path of [
      "judge.thresholds.allow_at_ordinary",
      "judge.thresholds.ask_at_consequential",
      "judge.answerer",
      "acts.delete.consequential",
      "let-rm",
      "rm-root-or-home",
    ]) {
      expect(text).toContain(path);
    }
    expect(text).toContain("verdict policy trust");
  });

  test("after trust it applies; after the file changes it is ignored again", () => {
    const w = workspace(loosening);
    const file = join(w.repo, ".verdict", "policy.yaml");
    trust(w.env, file, chainDigest([loosening]));
    const trusted = loadPolicy({ cwd: w.repo, env: w.env });
    expect(trusted.ok && trusted.loaded.policy.judge.thresholds.allow_at_ordinary).toBe(0.5);
    expect(trusted.ok && trusted.loaded.policy.rules.map((rule) => rule.id)).toContain("let-rm");
    writeFileSync(file, `${loosening}# edited\n`);
    const changed = loadPolicy({ cwd: w.repo, env: w.env });
    expect(changed.ok && changed.loaded.policy.judge.thresholds.allow_at_ordinary).toBe(0.9);
    expect(changed.ok && changed.loaded.layers.at(-1)!.trusted).toBe(false);
  });

  test("the user's own layer is trusted", () => {
    const w = workspace();
    mkdirSync(join(w.env.XDG_CONFIG_HOME, "verdict"), { recursive: true });
    writeFileSync(join(w.env.XDG_CONFIG_HOME, "verdict", "policy.yaml"), "judge:\n  thresholds:\n    allow_at_ordinary: 0.5\n");
    const result = loadPolicy({ cwd: w.repo, env: w.env });
    expect(result.ok && result.loaded.policy.judge.thresholds.allow_at_ordinary).toBe(0.5);
  });

  test("a repo policy is found only up to the repository root", () => {
    const w = workspace();
    mkdirSync(join(w.root, ".verdict"));
    writeFileSync(join(w.root, ".verdict", "policy.yaml"), "judge:\n  thresholds:\n    ask_at_undo: 1.0\n");
    const result = loadPolicy({ cwd: join(w.repo, "src"), env: w.env });
    expect(result.ok && result.loaded.layers.map((layer) => layer.name)).toEqual(["default"]);
  });
});

describe("untrusted durations and host mappings", () => {
  test("a shorter wait and a stricter ask mapping are kept; a longer wait is not", () => {
    const w = workspace("approvals:\n  wait_at_most: 10m\ntask:\n  run_within: 1h\nhosts:\n  ask_becomes:\n    claude: deny\n");
    const result = loadPolicy({ cwd: w.repo, env: w.env });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.loaded.policy.approvals.wait_at_most).toBe("10m");
    expect(result.loaded.policy.task.run_within).toBe("10m");
    expect(result.loaded.warnings.join("\n")).toContain("task.run_within");
  });
});

describe("the policy digest", () => {
  test("changes with a layer's content and its trust, and not otherwise", () => {
    const w = workspace("judge:\n  thresholds:\n    ask_at_undo: 1.4\n");
    const digest = () => {
      const result = loadPolicy({ cwd: w.repo, env: w.env });
      if (!result.ok) throw new Error(result.error.message);
      return result.loaded.digest;
    };
    const untrusted = digest();
    expect(digest()).toBe(untrusted);
    const file = join(w.repo, ".verdict", "policy.yaml");
    trust(w.env, file, chainDigest(["judge:\n  thresholds:\n    ask_at_undo: 1.4\n"]));
    const trusted = digest();
    expect(trusted).not.toBe(untrusted);
    writeFileSync(file, "judge:\n  thresholds:\n    ask_at_undo: 1.3\n");
    expect(digest()).not.toBe(trusted);
    const alone = loadPolicy({ cwd: w.root, env: w.env });
    expect(alone.ok && alone.loaded.digest).toMatch(/^[0-9a-f]{16}$/);
  });
});
