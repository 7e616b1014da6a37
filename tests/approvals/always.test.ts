import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  alwaysRule,
  alwaysRuleId,
  alwaysSupported,
  layerFile,
  layerProblem,
  writeAlwaysRule,
  EXACT_FIELD,
  AlwaysError,
} from "../../src/approvals/always.ts";
import { shownVerdict, toCall } from "../../src/approvals/call.ts";
import type { Who } from "../../src/approvals/decision.ts";
import { approvalTask, type ApprovalFacts, type Task } from "../../src/approvals/task.ts";
import { defaultPolicy, judgment, sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
afterEach(() => box?.cleanup());

const dana: Who = { name: "Dana", basis: "asserted", via: "command-line" };
/** The layer check with the exact-command field accepted, for builds whose rule language lacks it. */
const lenient = (data: unknown) => {
  const copy = JSON.parse(JSON.stringify(data)) as { rules?: { match: Record<string, unknown> }[] };
  for (const rule of copy.rules ?? []) delete rule.match[EXACT_FIELD];
  return layerProblem(copy);
};
const validate = alwaysSupported() ? layerProblem : lenient;

function task(command = "rm -rf build"): Task & ApprovalFacts {
  const call = toCall({ command, cwd: box.project, host: "codex", session: "s1" }, judgment());
  return approvalTask(call, shownVerdict(judgment()), [], ["once", "task", "run", "always"], {
    openedAt: new Date(),
    dueAt: new Date(Date.now() + 1000),
    batched: false,
    n: 0,
  }) as Task & ApprovalFacts;
}

describe("always", () => {
  test("the rule allows exactly the approved command: its program and the whole line", () => {
    box = sandbox();
    const rule = alwaysRule(task(), dana, defaultPolicy(), new Date("2026-02-03T00:00:00Z"));
    expect(rule).toMatchObject({ match: { program: "rm", [EXACT_FIELD]: "rm -rf build" }, act: "delete", undo: 2.2, decision: "allow" });
    expect(String(rule.id)).toMatch(/^always-rm-[0-9a-f]{10}$/);
    expect(String(rule.reason)).toContain("Dana");
    expect(alwaysRuleId(task("rm -rf build"))).not.toBe(alwaysRuleId(task("rm -rf dist")));
  });

  test("the rule is bound to the project: the repository root, or the working directory outside a repository", () => {
    box = sandbox();
    expect(alwaysRule(task(), dana, defaultPolicy(), new Date()).match).toMatchObject({ where: box.project });
    if (!existsSync(join(box.project, ".git"))) mkdirSync(join(box.project, ".git"));
    const sub = join(box.project, "pkg");
    mkdirSync(sub);
    const call = toCall({ command: "rm -rf build", cwd: sub, host: "codex", session: "s1" }, judgment());
    const inSub = approvalTask(call, shownVerdict(judgment()), [], ["once", "always"], {
      openedAt: new Date(),
      dueAt: new Date(Date.now() + 1000),
      batched: false,
      n: 0,
    }) as Task & ApprovalFacts;
    expect(alwaysRule(inSub, dana, defaultPolicy(), new Date()).match).toMatchObject({ where: box.project });
  });

  test("the user layer is $XDG_CONFIG_HOME/verdict/policy.yaml; the repo layer .verdict/policy.yaml at the repository root", () => {
    box = sandbox();
    expect(layerFile("user", box.project, box.env)).toBe(join(box.env.XDG_CONFIG_HOME!, "verdict", "policy.yaml"));
    const sub = join(box.project, "src");
    mkdirSync(sub);
    expect(layerFile("repo", sub, box.env)).toBe(join(box.project, ".verdict", "policy.yaml"));
  });

  test("creates the layer when there is none", () => {
    box = sandbox();
    const file = join(box.root, "config", "verdict", "policy.yaml");
    const rule = alwaysRule(task(), dana, defaultPolicy(), new Date());
    expect(writeAlwaysRule(file, "user", rule, "why", validate)).toEqual({
      layer: "user",
      file,
      rule_id: String(rule.id),
      where: box.project,
    });
    expect(parse(readFileSync(file, "utf8")).rules[0].match[EXACT_FIELD]).toBe("rm -rf build");
  });

  test("adds the rule at the end of the layer's rules, keeping every comment, and only once", () => {
    box = sandbox();
    const file = join(box.root, "policy.yaml");
    const original = [
      "# my policy: keep this comment",
      "judge:",
      "  thresholds:",
      "    ask_at_undo: 1.5 # stricter than the default",
      "rules:",
      "  # my own rule",
      "  - id: mine",
      "    match: { program: make }",
      "    act: build",
      "    undo: 0",
      "    reason: Builds.",
      "",
    ].join("\n");
    writeFileSync(file, original);
    const rule = alwaysRule(task(), dana, defaultPolicy(), new Date());
    writeAlwaysRule(file, "repo", rule, "Added by verdict approvals approve --always", validate);
    writeAlwaysRule(file, "repo", rule, "Added by verdict approvals approve --always", validate);
    const text = readFileSync(file, "utf8");
    for (const kept of [
      "# my policy: keep this comment",
      "# stricter than the default",
      "# my own rule",
      "# Added by verdict approvals approve --always",
    ])
      expect(text).toContain(kept);
    const rules = parse(text).rules;
    expect(rules.map((r: { id: string }) => r.id)).toEqual(["mine", rule.id]);
  });

  test("refuses to touch a file that is not valid YAML or would not be a valid layer", () => {
    box = sandbox();
    const file = join(box.root, "policy.yaml");
    writeFileSync(file, "rules: [oops\n");
    expect(() => writeAlwaysRule(file, "user", { id: "x" }, "c", validate)).toThrow(AlwaysError);
    writeFileSync(file, "rules: []\n");
    expect(() => writeAlwaysRule(file, "user", { id: "x", match: {}, nonsense: 1 }, "c", validate)).toThrow(/invalid policy/);
    expect(readFileSync(file, "utf8")).toBe("rules: []\n");
  });
});
