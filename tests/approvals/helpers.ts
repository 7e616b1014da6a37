// Shared by the approvals tests: temp XDG directories, a policy, a judgment and a call.
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { loadPolicy } from "../../src/policy/index.ts";
import type { Policy } from "../../src/policy/schema.ts";
import type { JudgmentLike } from "../../src/approvals/call.ts";

export type Sandbox = { root: string; project: string; env: Record<string, string>; cleanup: () => void };

/** A temp home with XDG dirs and a git project whose user.name is Dana Tester. */
export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "verdict-approvals-"));
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    XDG_STATE_HOME: join(root, "state"),
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_CACHE_HOME: join(root, "cache"),
    GIT_CONFIG_GLOBAL: join(root, "gitconfig"),
    GIT_CONFIG_NOSYSTEM: "1",
    USER: "account-user",
    // A resident judge started by the sandbox's hooks ends soon after the test.
    VERDICT_RESIDENT_IDLE: "5s",
  };
  spawnSync("git", ["init", "-q", project], { env });
  spawnSync("git", ["config", "user.name", "Dana Tester"], { cwd: project, env });
  return { root, project, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

let cached: Policy | undefined;
export function defaultPolicy(): Policy {
  if (!cached) {
    const loaded = loadPolicy({ cwd: tmpdir(), env: {}, only: ["default"] });
    if (!loaded.ok) throw loaded.error;
    cached = loaded.loaded.policy;
  }
  return cached;
}

export function policyWith(approvals: Partial<Policy["approvals"]>): Policy {
  const base = defaultPolicy();
  return { ...base, approvals: { ...base.approvals, ...approvals } };
}

export function judgment(line = "rules: deletes or overwrites data nothing regenerates (rule rm-recursive)"): JudgmentLike {
  return {
    verdict: "ask",
    line,
    answerer: "rules",
    answers: {
      act: { choice: "delete", confidence: 0.9, probabilities: { delete: 0.9, read: 0.1 }, source: "rules" },
      undo: { score: 2.2, source: "rules" },
      load: { score: 0.3, source: "rules" },
    },
    rule: { id: "rm-recursive", reason: "deletes", command: { name: "rm" } },
    executed: [{ name: "rm" }],
    policyDigest: "0123456789abcdef",
  };
}
