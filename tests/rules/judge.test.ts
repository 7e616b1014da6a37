/** judgeCommand around the rule engine: the pass line says why, and the project comes from the command's own directory. */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { judgeCommand } from "../../src/judge/index.ts";
import { loadPolicy } from "../../src/policy/index.ts";
import { tempDir } from "../support/binary.ts";

const result = loadPolicy({ cwd: "/", only: [] });
if (!result.ok) throw new Error(result.error.message);
const loaded = result.loaded;
const judged = (command: string, cwd: string, extra: { projectRoot?: string } = {}) =>
  judgeCommand({ command, cwd, rulesOnly: true, log: false, ...extra }, loaded);

describe("the pass line", () => {
  test("says why a program is unknown: a temp folder is not a place programs are installed to", async () => {
    const out = await judged("/tmp/git status", "/");
    expect(out.verdict).toBe("pass");
    expect(out.line).toContain("/tmp/git runs from a temp folder, so it is not trusted to be git");
    expect(out.line).not.toContain("no rule knows /tmp/git");
    expect(out.line).toEndWith("; left to the usual permission check");
  });

  test("names a program no rule knows, once", async () => {
    const out = await judged("frobnicate --x && frobnicate --y", "/");
    expect(out.line).toBe("rules: no rule knows frobnicate; left to the usual permission check");
  });
});

describe("the project", () => {
  test("is the repository of the command's own working directory when the caller names none", async () => {
    const repo = tempDir("verdict-judge-repo-");
    Bun.spawnSync(["git", "init", "-q"], { cwd: repo });
    mkdirSync(join(repo, "sub"));
    // Loaded from /, where there is no repository: ../src from repo/sub is still inside the project.
    const out = await judged("rm -rf ../src", join(repo, "sub"));
    expect(out.rule?.id).toBe("rm-project-files");
    expect(out.verdict).toBe("ask");
    // A caller's project stands.
    const elsewhere = await judged("rm -rf ../src", join(repo, "sub"), { projectRoot: join(repo, "sub") });
    expect(elsewhere.rule?.id).not.toBe("rm-project-files");
  });
});
