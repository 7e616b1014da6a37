/** Tool calls: the patch parser, host payloads into calls, the tool rules' verdicts, and `verdict explain`. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_POLICY } from "../../src/policy/generated/default-policy.ts";
import { parsePatch } from "../../src/tools/patch.ts";
import { toolCall } from "../../src/tools/payload.ts";
import { answerToolCall } from "../../src/tools/engine.ts";
import { checkToolRuleExamples } from "../../src/tools/examples.ts";
import { toolRuleProblems } from "../../src/tools/rules.ts";
import { commandVerdict } from "../../src/core/verdict.ts";
import type { Policy } from "../../src/policy/schema.ts";
import { isolatedEnv, run, tempDir } from "../support/binary.ts";

const policy = DEFAULT_POLICY as unknown as Policy;
const HOME = "/home/user";
const ROOT = "/home/user/project";
const probe = (tracked: string[] = [], exists: string[] = []) => ({
  exists: (p: string) => exists.includes(p) || tracked.includes(p),
  tracked: (p: string) => tracked.includes(p),
});
function verdictOf(tool: string, input: Record<string, unknown>, disk = probe()) {
  const call = toolCall(tool, input)!;
  const rules = answerToolCall(
    call,
    { cwd: ROOT, projectRoot: ROOT, home: HOME, tmpdir: "/tmp", probe: disk, realpath: (p) => p, read: () => undefined },
    policy,
  );
  if (rules.decision) return { verdict: rules.decision, rule: rules.rule?.id };
  if (!rules.answers) return { verdict: "pass", rule: undefined };
  return { verdict: commandVerdict(policy, rules.answers, undefined, "rules").verdict, rule: rules.rule?.id };
}

describe("apply_patch", () => {
  test("add, update with a move, delete: one op each, with line counts", () => {
    const parsed = parsePatch(
      "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Update File: b.ts\n*** Move to: c.ts\n@@ fn\n ctx\n-old\n+new\n*** Delete File: d.md\n*** End Patch\n",
    );
    expect(parsed).toEqual({
      ok: true,
      ops: [
        { op: "add", path: "a.txt", content: "one\ntwo\n", added: 2 },
        { op: "update", path: "b.ts", moveTo: "c.ts", added: 1, removed: 1, newText: "ctx\nnew", oldText: "ctx\nold" },
        { op: "delete", path: "d.md" },
      ],
    });
  });
  test("a here-document wrapper is taken off; a patch without its end or with a stray line is an error", () => {
    expect(parsePatch("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF").ok).toBe(true);
    expect(parsePatch("*** Begin Patch\n*** Delete File: x\n")).toMatchObject({ ok: false, error: expect.stringContaining("End Patch") });
    expect(parsePatch("*** Begin Patch\n*** Update File: x\n?bad\n*** End Patch")).toMatchObject({ ok: false });
  });
  test("the strictest part decides: a patch that edits a project file and writes a git hook is asked", () => {
    const patch =
      "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: .git/hooks/pre-commit\n+curl x | sh\n*** End Patch\n";
    expect(verdictOf("apply_patch", { command: patch }, probe([`${ROOT}/src/a.ts`]))).toEqual({
      verdict: "ask",
      rule: "tool-write-git-internals",
    });
    const ordinary = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+export {}\n*** End Patch\n";
    expect(verdictOf("apply_patch", { command: ordinary }, probe([`${ROOT}/src/a.ts`])).verdict).toBe("allow");
  });
});

describe("the default tool rules", () => {
  test("hold their examples and compile", () => {
    expect(checkToolRuleExamples(policy)).toEqual([]);
    expect(toolRuleProblems(policy.tool_rules, Object.keys(policy.acts))).toEqual([]);
  });
  test.each([
    ["Write", { file_path: `${HOME}/.bashrc`, content: "x" }, "ask"],
    ["Write", { file_path: `${HOME}/.ssh/authorized_keys`, content: "x" }, "ask"],
    ["Edit", { file_path: `${ROOT}/.github/workflows/ci.yml`, old_string: "a", new_string: "b" }, "ask"],
    ["Write", { file_path: `${ROOT}/.husky/pre-commit`, content: "x" }, "ask"],
    ["Edit", { file_path: `${ROOT}/package.json`, old_string: "a", new_string: '"postinstall": "node x.js",' }, "ask"],
    ["Write", { file_path: "/etc/hosts", content: "x" }, "ask"],
    ["Read", { file_path: `${HOME}/.aws/credentials` }, "ask"],
    ["read_file", { absolute_path: `${ROOT}/.env` }, "ask"],
    ["mcp__github__delete_repository", { repo: "x" }, "ask"],
    ["mcp__slack__send_message", { text: "x" }, "ask"],
    ["Write", { file_path: `${ROOT}/notes.txt`, content: "x" }, "ask"], // an untracked file overwritten
    ["Edit", { file_path: `${ROOT}/src/a.ts`, old_string: "a", new_string: "b" }, "allow"],
    ["Write", { file_path: `${ROOT}/src/new.ts`, content: "x" }, "allow"],
    ["Read", { file_path: `${ROOT}/src/a.ts` }, "allow"],
    ["Read", { file_path: `${ROOT}/.env.example` }, "allow"],
    ["WebFetch", { url: "https://docs.python.org/3/", prompt: "x" }, "allow"],
    ["mcp__github__list_issues", { repo: "x" }, "allow"],
    ["mcp__acme__frobnicate", { x: 1 }, "pass"],
  ] as const)("%s %j: %s", (tool, input, verdict) => {
    expect(
      verdictOf(
        tool,
        input as Record<string, unknown>,
        probe([`${ROOT}/src/a.ts`, `${ROOT}/package.json`, `${ROOT}/.github/workflows/ci.yml`], [`${ROOT}/notes.txt`, `${HOME}/.bashrc`]),
      ).verdict,
    ).toBe(verdict);
  });
});

describe("symlinks are followed", () => {
  test("a project file that links to a start-up file is judged as the start-up file", () => {
    const home = tempDir("verdict-tools-home-");
    const project = join(home, "project");
    mkdirSync(project);
    writeFileSync(join(home, ".bashrc"), "# rc\n");
    symlinkSync(join(home, ".bashrc"), join(project, "rc"));
    const call = toolCall("Write", { file_path: join(project, "rc"), content: "x" })!;
    const rules = answerToolCall(call, { cwd: project, projectRoot: project, home }, policy);
    expect(rules).toMatchObject({ decision: "ask", rule: { id: "tool-write-shell-startup" } });
  });
});

describe("verdict explain through the binary", () => {
  test("a command: what executes, paths, matching and nearest rules, thresholds, verdict; exit status is the verdict's", () => {
    const dir = tempDir();
    const ran = run(["explain", "--rules-only", "--cwd", dir, "--", "sudo bash -c 'git push --force origin main'"], { env: isolatedEnv() });
    expect(ran.code).toBe(11);
    expect(ran.stdout).toContain("1. git push --force origin main   [via sudo > bash -c]");
    expect(ran.stdout).toContain("rules matching: git-push-force");
    expect(ran.stdout).toContain("nearest not matching:");
    expect(ran.stdout).toContain("ask when a consequential act >= 0.6: 1 (history) MET");
    expect(ran.stdout).toContain("verdict: ask");
    expect(ran.stdout).toContain("suggest: git push --force-with-lease");
    const json = JSON.parse(
      run(["explain", "--json", "--rules-only", "--cwd", dir, "--", "rm -rf build > /tmp/x.log"], { env: isolatedEnv() }).stdout,
    );
    expect(json).toMatchObject({
      subject: "command",
      parsed: true,
      verdict: expect.any(String),
      thresholds: { ask_at_undo: { threshold: 1.6 } },
    });
    expect(json.executed[0]).toMatchObject({
      program: "rm",
      paths: [{ word: "build", class: "build" }],
      redirects: [{ op: ">", class: "temp" }],
    });
  });

  test("a tool payload: parts, classes, rules, verdict and suggest; --json; a bad payload is a usage error", () => {
    const home = tempDir("verdict-home-");
    const payload = join(home, "payload.json");
    writeFileSync(
      payload,
      JSON.stringify({
        hook_event_name: "PreToolUse",
        cwd: home,
        tool_name: "Write",
        tool_input: { file_path: join(home, ".zshrc"), content: "x\n" },
      }),
    );
    const ran = run(["explain", "--rules-only", "--tool", payload], { env: isolatedEnv(home) });
    expect(ran.code).toBe(11);
    expect(ran.stdout).toContain(`1. write ${join(home, ".zshrc")} (+1 -0)`);
    expect(ran.stdout).toContain("home-files, does not exist; create");
    expect(ran.stdout).toContain("answered by tool-write-shell-startup");
    expect(ran.stdout).toContain("suggest: Show the developer the line to add");
    const json = JSON.parse(run(["explain", "--json", "--rules-only", "--tool", payload], { env: isolatedEnv(home) }).stdout);
    expect(json).toMatchObject({
      subject: "tool",
      tool: "Write",
      verdict: "ask",
      rule: "tool-write-shell-startup",
      parts: [{ kind: "write", class: "home-files", change: "create" }],
    });
    writeFileSync(payload, JSON.stringify({ tool_name: "Glob", tool_input: {} }));
    const bad = run(["explain", "--tool", payload], { env: isolatedEnv(home) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('does not judge the tool "Glob"');
  });
});

describe("verdict hook judges tool calls through the binary", () => {
  const env = (home: string) => isolatedEnv(home, { VERDICT_MODE: "rules" });
  test("Claude Code: a Write to a start-up file is asked with the rule's suggestion; an ordinary edit allowed", () => {
    const home = tempDir("verdict-home-");
    const project = join(home, "project");
    mkdirSync(project);
    const base = { session_id: "s", hook_event_name: "PreToolUse", cwd: project };
    const asked = run(["hook", "claude"], {
      env: env(home),
      stdin: JSON.stringify({ ...base, tool_name: "Write", tool_input: { file_path: join(home, ".bashrc"), content: "x\n" } }),
    });
    const reply = JSON.parse(asked.stdout).hookSpecificOutput;
    expect(reply).toMatchObject({ permissionDecision: "ask" });
    expect(reply.permissionDecisionReason).toContain("tool-write-shell-startup");
    expect(reply.permissionDecisionReason).toContain("Instead: Show the developer the line to add");
    const allowed = run(["hook", "claude"], {
      env: env(home),
      stdin: JSON.stringify({
        ...base,
        tool_name: "Edit",
        tool_input: { file_path: join(project, "a.ts"), old_string: "a", new_string: "b" },
      }),
    });
    expect(JSON.parse(allowed.stdout).hookSpecificOutput.permissionDecision).toBe("allow");
  });

  test("Codex: the captured apply_patch shape writing a git hook is denied with an approval task naming the path and lines", () => {
    const home = tempDir("verdict-home-");
    const project = join(home, "project");
    mkdirSync(project);
    const command = `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${project}/.git/hooks/pre-commit\n+curl x | sh\n*** End Patch\nEOF`;
    const ran = run(["hook", "codex"], {
      env: env(home),
      stdin: JSON.stringify({ session_id: "s", hook_event_name: "PreToolUse", cwd: project, tool_name: "Bash", tool_input: { command } }),
    });
    const reason = JSON.parse(ran.stdout).hookSpecificOutput.permissionDecisionReason as string;
    expect(JSON.parse(ran.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(reason).toContain("tool-write-git-internals");
    const list = run(["approvals", "list"], { env: env(home) });
    expect(list.stdout).toContain(`[apply_patch] write ${project}/.git/hooks/pre-commit (+1 -0) [content `);
  });

  test("Cursor: beforeReadFile cannot ask, so reading .env is denied; beforeMCPExecution merge is asked", () => {
    const home = tempDir("verdict-home-");
    const base = { conversation_id: "c", workspace_roots: [home] };
    const read = JSON.parse(
      run(["hook", "cursor"], {
        env: env(home),
        stdin: JSON.stringify({ ...base, hook_event_name: "beforeReadFile", file_path: join(home, ".env"), content: "K=v" }),
      }).stdout,
    );
    expect(read.permission).toBe("deny");
    const mcp = JSON.parse(
      run(["hook", "cursor"], {
        env: env(home),
        stdin: JSON.stringify({
          ...base,
          hook_event_name: "beforeMCPExecution",
          tool_name: "merge_pull_request",
          tool_input: '{"n":1}',
          url: "https://mcp.example",
        }),
      }).stdout,
    );
    expect(mcp.permission).toBe("ask");
  });

  test("the decision log records tool calls as subject tool, and log --stats counts them", () => {
    const home = tempDir("verdict-home-");
    const e = isolatedEnv(home, { VERDICT_MODE: "rules" });
    run(["hook", "gemini"], {
      env: e,
      stdin: JSON.stringify({
        session_id: "s",
        hook_event_name: "BeforeTool",
        cwd: home,
        tool_name: "read_file",
        tool_input: { absolute_path: join(home, ".aws", "credentials") },
      }),
    });
    const stats = run(["log", "--stats"], { env: e });
    expect(stats.stdout).toContain("1 of them tool calls");
  });
});

describe("tool rules in layers", () => {
  test("an untrusted repository layer may add tool rules that deny, never ones that allow or replace", async () => {
    const { stricterOnly } = await import("../../src/policy/trust.ts");
    const layer = {
      tool_rules: [
        {
          id: "repo-deny-prod-config",
          match: { kind: ["write"], path: ["config/prod/*"] },
          act: "system",
          undo: 3,
          decision: "deny",
          reason: "r",
        },
        { id: "repo-allow-everything", match: { kind: ["write"] }, act: "edit", undo: 0, decision: "allow", reason: "r" },
        { id: "tool-read-credentials", match: { kind: ["read"] }, act: "read", undo: 0, decision: "deny", reason: "r" },
      ],
    };
    const { kept, ignored } = stricterOnly(layer, DEFAULT_POLICY as unknown as Record<string, unknown>);
    expect((kept.tool_rules as { id: string }[]).map((rule) => rule.id)).toEqual(["repo-deny-prod-config"]);
    expect(ignored.map((entry) => entry.why).join("\n")).toContain("only tool rules with decision: deny");
    expect(ignored.map((entry) => entry.why).join("\n")).toContain('replace the tool rule "tool-read-credentials"');
  });
});

describe("content_any sees what a part adds", () => {
  test("rewriting a package.json that already has a prepare script is an edit; adding a postinstall is asked", () => {
    const root = tempDir("verdict-tools-pkg-");
    const before = '{\n  "scripts": {\n    "prepare": "husky",\n    "test": "bun test"\n  }\n}\n';
    writeFileSync(join(root, "package.json"), before);
    const judge = (tool: string, input: Record<string, unknown>) =>
      answerToolCall(
        toolCall(tool, input)!,
        { cwd: root, projectRoot: root, home: "/home/nobody", probe: { exists: () => true, tracked: () => true } },
        policy,
      );
    expect(
      judge("Write", { file_path: join(root, "package.json"), content: before.replace("bun test", "vitest") }).decision,
    ).toBeUndefined();
    expect(
      judge("Write", {
        file_path: join(root, "package.json"),
        content: before.replace('"test"', '"postinstall": "node x.js",\n    "test"'),
      }),
    ).toMatchObject({ decision: "ask", rule: { id: "tool-write-package-lifecycle-script" } });
    expect(
      judge("Edit", {
        file_path: join(root, "package.json"),
        old_string: '"prepare": "husky",',
        new_string: '"prepare": "husky",\n    "lint": "biome check",',
      }).decision,
    ).toBeUndefined();
  });
});
