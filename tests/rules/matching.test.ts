/** The pieces of matching: patterns, arguments, path classes, programs, the git index, and each field of the rule DSL. */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasOption, parseArgs } from "../../src/answerers/rules/args.ts";
import { classifyPath, usableProjectRoot, type PathContext } from "../../src/answerers/rules/paths.ts";
import { compileAny, compilePattern, requiredText } from "../../src/answerers/rules/pattern.ts";
import { isTracked } from "../../src/answerers/rules/probe.ts";
import { checkRule } from "../../src/answerers/rules.ts";
import { judge, policyWith } from "./helpers.ts";

describe("patterns", () => {
  test("globs", () => {
    expect(compilePattern("python3*")("python3.12")).toBe(true);
    expect(compilePattern("python3*")("python")).toBe(false);
    expect(compilePattern("*.log")("a/b.log")).toBe(true);
    expect(compilePattern("[ab]x")("bx")).toBe(true);
    expect(compilePattern("a.b")("axb")).toBe(false);
  });
  test("regular expressions, case-insensitive with /i", () => {
    expect(compilePattern("/^drop\\s+table/i")("DROP  TABLE x")).toBe(true);
    expect(compilePattern("/^drop/")("DROP")).toBe(false);
  });
  test("a path is not taken for a regular expression", () => {
    expect(compilePattern("/usr/bin/sum")("/usr/bin/sum")).toBe(true);
  });
  test("the text every match contains, where one is known (for passing over rules)", () => {
    const cases: [string, string][] = [
      ["/proc/*/environ", "/environ"],
      ["[ab]xyz", "xyz"],
      ["plain", "plain"],
      ["/(^|\\/)\\.ssh\\/id_[^/]*(?<!\\.pub)$/", ".ssh/id_"],
      ["/abc?d/", "ab"],
      ["/^[0-9]{4,}/", ""],
      ["/a|b/", ""],
      ["/x\\d+/", ""],
      ["/foo/i", ""],
      ["*", ""],
    ];
    for (const [pattern, text] of cases) expect([pattern, requiredText(pattern)]).toEqual([pattern, text]);
    // What it says holds: a text the pattern matches contains it.
    for (const [pattern, sample] of [
      ["/^[^-+].*=/", "a=1"],
      ["/(^|\\/)\\.ssh\\/id_[^/]*(?<!\\.pub)$/", "/h/.ssh/id_rsa"],
    ] as const) {
      expect(compilePattern(pattern)(sample)).toBe(true);
      expect(sample.includes(requiredText(pattern))).toBe(true);
    }
  });
  test("several at once", () => {
    const any = compileAny(["rm", "mkfs.*", "/^shred$/"]);
    expect(["rm", "mkfs.ext4", "shred"].every(any)).toBe(true);
    expect(any("rmdir")).toBe(false);
  });
});

describe("arguments", () => {
  test("combined short flags and long forms", () => {
    const parsed = parseArgs(["-rf", "--no-preserve-root", "--force=yes", "x"], new Set());
    expect(hasOption(parsed, "-r")).toBe(true);
    expect(hasOption(parsed, "-f")).toBe(true);
    expect(hasOption(parsed, "--force")).toBe(true);
    expect(hasOption(parsed, "--force-with-lease")).toBe(false);
    expect(parsed.operands).toEqual(["x"]);
  });
  test("options that take a value, attached or not", () => {
    const withValue = new Set(["-C", "-c", "--git-dir"]);
    expect(parseArgs(["-C", "repo", "push"], withValue).operands).toEqual(["push"]);
    expect(parseArgs(["-Crepo", "push"], withValue).operands).toEqual(["push"]);
    expect(parseArgs(["--git-dir", "x", "push"], withValue).operands).toEqual(["push"]);
    expect(parseArgs(["-c", "a=b", "push"], withValue).values).toEqual([["-c", "a=b"]]);
  });
  test("global options before a subcommand are not the subcommand's flags", () => {
    const parsed = parseArgs(["-C", ".", "branch", "--show-current"], new Set(["-C"]), true);
    expect(hasOption(parsed, "-C")).toBe(false);
    expect(parseArgs(["branch", "-C", "a", "b"], new Set(["-C"]), true).letters.has("C")).toBe(true);
  });
  test("-- ends the options; before a subcommand, only the global ones", () => {
    expect(parseArgs(["--", "-rf"], new Set()).operands).toEqual(["-rf"]);
    expect(hasOption(parseArgs(["--", "reset", "--hard"], new Set(), true), "--hard")).toBe(true);
    expect(hasOption(parseArgs(["checkout", "--", "f"], new Set(), true), "--")).toBe(true);
  });
});

describe("path classes", () => {
  const ctx: PathContext = { cwd: "/home/u/p/src", projectRoot: "/home/u/p", home: "/home/u", tmpdir: "/var/folders/x" };
  test.each([
    ["/", "root"],
    ["/*", "root"],
    ["~", "home"],
    ["$HOME", "home"],
    ["${HOME}/", "home"],
    ["/root", "home"],
    ["/home/other", "home"],
    ["~/*", "home"],
    ["~/.bashrc", "home-files"],
    ["/home/other/x", "home-files"],
    ["/etc/hosts", "system"],
    ["/usr/local/bin", "system"],
    ["/var/log", "system"],
    ["/var/tmp/x", "temp"],
    ["/tmp", "temp"],
    ["$TMPDIR/x", "temp"],
    ["/var/folders/x/y", "temp"],
    ["/dev/sda", "device"],
    ["/dev/shm/x", "temp"],
    ["/mnt/data", "outside"],
    ["..", "project"],
    ["../..", "home"],
    ["../../other", "home-files"],
    [".", "repo"],
    ["*", "repo"],
    ["../node_modules", "build"],
    ["x/__pycache__/y.pyc", "build"],
    ["../pkg.egg-info", "build"],
    ["../.git", "vcs"],
    ["../.git/hooks/pre-commit", "vcs"],
    ["$OUT", "unknown"],
    ["$(pwd)/x", "unknown"],
    ["{}", "unknown"],
    ["main.ts", "repo"],
  ])("%p is %p", (word, cls) => expect(classifyPath(word, ctx)).toBe(cls as never));

  test("an unknown working directory makes relative paths unknown", () => {
    expect(classifyPath("x", { ...ctx, cwd: undefined })).toBe("unknown");
    expect(classifyPath("/etc", { ...ctx, cwd: undefined })).toBe("system");
  });

  test("a variable the line sets is not resolved", () => {
    expect(classifyPath("$TMPDIR/x", { ...ctx, overridden: new Set(["TMPDIR"]) })).toBe("unknown");
  });

  test("a project root is never /, a home, or a top-level system or temp folder", () => {
    expect(usableProjectRoot("/", "/home/u")).toBeUndefined();
    expect(usableProjectRoot("/home/u", "/home/u")).toBeUndefined();
    expect(usableProjectRoot("/etc", "/home/u")).toBeUndefined();
    expect(usableProjectRoot("/tmp", "/home/u")).toBeUndefined();
    expect(usableProjectRoot("/home", "/home/u")).toBeUndefined();
    expect(usableProjectRoot("/tmp/work", "/home/u")).toBe("/tmp/work");
    expect(usableProjectRoot("/home/u/p/", "/home/u")).toBe("/home/u/p");
  });

  test("without a project, the home directory is not the repository", () => {
    expect(judge("rm -rf Documents", { cwd: "/home/user", projectRoot: undefined }).verdict).toBe("ask");
  });
});

describe("the git index", () => {
  test("tracked files are found in a real repository's index", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "verdict-rules-git-")));
    const git = (...args: string[]) =>
      spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: dir, encoding: "utf8" });
    git("init", "-q");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "app.ts"), "x\n");
    writeFileSync(join(dir, "README.md"), "x\n");
    writeFileSync(join(dir, "untracked.txt"), "x\n");
    git("add", "src/app.ts", "README.md");
    expect(isTracked(join(dir, "src/app.ts"), dir)).toBe(true);
    expect(isTracked(join(dir, "README.md"), dir)).toBe(true);
    expect(isTracked(join(dir, "untracked.txt"), dir)).toBe(false);
    expect(isTracked(join(dir, "src"), dir)).toBe(false);
    expect(isTracked("/etc/hosts", dir)).toBe(false);
    // Through the engine, on the real disk.
    expect(judge("echo x > README.md", { cwd: dir, projectRoot: dir, probe: undefined }).verdict).toBe("allow");
    expect(judge("echo x > untracked.txt", { cwd: dir, projectRoot: dir, probe: undefined }).verdict).toBe("ask");
    expect(judge("echo x > new.txt", { cwd: dir, projectRoot: dir, probe: undefined }).verdict).toBe("allow");
    expect(judge("rm src/app.ts", { cwd: dir, projectRoot: dir, probe: undefined }).verdict).toBe("allow");
    expect(judge("rm untracked.txt", { cwd: dir, projectRoot: dir, probe: undefined }).verdict).toBe("ask");
  });
});

describe("each field of the rule DSL", () => {
  const base = { act: "read", undo: 0, reason: "r" };
  const matches = (match: Record<string, unknown>, line: string, context = {}) => {
    const policy = policyWith([{ id: "x", match, ...base }]);
    const { answer } = judge(line, context, policy);
    return answer.parsed && answer.hits.some((hit) => hit.id === "x");
  };
  test("program by name or pattern", () => {
    expect(matches({ program: "rm" }, "/usr/bin/rm x")).toBe(true);
    expect(matches({ program: "mkfs.*" }, "mkfs.ext4 /dev/x")).toBe(true);
    expect(matches({ program: "rm" }, "rmdir x")).toBe(false);
  });
  test("subcommand with value options and ...", () => {
    expect(matches({ program: "git", subcommand: "push", options_with_value: ["-C"] }, "git -C x push")).toBe(true);
    expect(matches({ program: "git", subcommand: "push" }, "git -C x push")).toBe(false);
    expect(matches({ program: "gcloud", subcommand: "... delete" }, "gcloud compute instances delete vm")).toBe(true);
    expect(matches({ program: "aws", subcommand: "s3 rm" }, "aws s3 rm s3://b")).toBe(true);
    expect(matches({ program: "aws", subcommand: "s3 rm" }, "aws s3 ls")).toBe(false);
    // Among many, those that start with another plain word are passed over; a glob or ... first still counts.
    const many = ["install", "ci", "run*", "... publish", "config set", "test"];
    expect(matches({ program: "npm", subcommand: many }, "npm test")).toBe(true);
    expect(matches({ program: "npm", subcommand: many }, "npm run-script x")).toBe(true);
    expect(matches({ program: "npm", subcommand: many }, "npm x y publish")).toBe(true);
    expect(matches({ program: "npm", subcommand: many }, "npm config set a b")).toBe(true);
    expect(matches({ program: "npm", subcommand: many }, "npm config get a")).toBe(false);
    expect(matches({ program: "npm", subcommand: many }, "npm")).toBe(false);
  });
  test("flags any, all, none", () => {
    expect(matches({ program: "rm", flags_all: ["-r", "-f"] }, "rm -rf x")).toBe(true);
    expect(matches({ program: "rm", flags_all: ["-r", "-f"] }, "rm -r x")).toBe(false);
    expect(matches({ program: "rm", flags_none: ["-i"] }, "rm -ri x")).toBe(false);
    expect(matches({ program: "find", flags_any: ["-delete"] }, "find . -delete")).toBe(true);
  });
  test("args and option values", () => {
    expect(matches({ program: "psql", args_any: ["/drop table/i"] }, 'psql -c "DROP TABLE x"')).toBe(true);
    expect(matches({ program: "curl", option_values: { "-X": ["DELETE"] } }, "curl -X DELETE u")).toBe(true);
    expect(matches({ program: "curl", option_values: { "-X": ["DELETE"] } }, "curl -XDELETE u")).toBe(true);
    expect(matches({ program: "curl", option_values: { "--request": ["DELETE"] } }, "curl --request=DELETE u")).toBe(true);
    expect(matches({ program: "curl", option_values: { "-X": ["DELETE"] } }, "curl -X GET DELETE")).toBe(false);
  });
  test("operand counts and the last operand", () => {
    expect(matches({ program: "git", subcommand: "config", operands_max: 1 }, "git config user.name")).toBe(true);
    expect(matches({ program: "git", subcommand: "config", operands_max: 1 }, "git config user.name x")).toBe(false);
    expect(matches({ program: "cp", target_any: ["system"] }, "cp a /etc/x")).toBe(true);
    expect(matches({ program: "cp", target_any: ["system"] }, "cp /etc/x a")).toBe(false);
  });
  test("paths any, all, none, exist", () => {
    expect(matches({ program: "rm", paths_all: ["build"] }, "rm -rf dist node_modules")).toBe(true);
    expect(matches({ program: "rm", paths_all: ["build"] }, "rm -rf dist src")).toBe(false);
    expect(matches({ program: "rm", paths_none: ["repo"] }, "rm -rf dist")).toBe(true);
    expect(matches({ program: "ls", paths_exist: true }, "ls x", { probe: { exists: () => true, tracked: () => false } })).toBe(true);
    expect(matches({ program: "ls", paths_exist: true }, "ls x")).toBe(false);
  });
  test("environment, wrappers, stdin", () => {
    expect(matches({ program: "git", env_any: ["GIT_SSH_COMMAND"] }, "GIT_SSH_COMMAND=x git fetch")).toBe(true);
    expect(matches({ program: "git", env_any: ["GIT_EDITOR=/^(?!true$)/"] }, "GIT_EDITOR=true git commit")).toBe(false);
    expect(matches({ program: "git", env_any: ["GIT_EDITOR=/^(?!true$)/"] }, "GIT_EDITOR=vim git commit")).toBe(true);
    expect(matches({ program: "rm", via_any: ["sudo"] }, "sudo rm x")).toBe(true);
    expect(matches({ program: "rm", via_any: ["sudo"] }, "rm x")).toBe(false);
    expect(matches({ program: "sh", stdin_from: ["curl"] }, "curl -s u | sh")).toBe(true);
    expect(matches({ program: "psql", stdin_any: ["/drop/i"] }, "psql <<EOF\nDROP TABLE x;\nEOF")).toBe(true);
  });
  test("redirect rules judge each output redirection", () => {
    const policy = policyWith([
      { id: "ls", match: { program: "ls" }, act: "read", undo: 0, reason: "r" },
      { id: "to-temp", match: { redirect: { to: ["temp"], op: [">>"] } }, act: "system", undo: 3, reason: "r" },
    ]);
    expect(judge("ls >> /tmp/x", {}, policy).rule).toBe("to-temp");
    expect(judge("ls > /tmp/x", {}, policy).rule).toBe("ls");
    expect(judge("ls >> /dev/null", {}, policy).rule).toBe("ls");
  });
  test("runs: rest judges the command a runner runs", () => {
    const policy = policyWith([
      {
        id: "runner",
        match: { program: "uv", subcommand: "run", options_with_value: ["--with"] },
        runs: "rest",
        act: "build",
        undo: 0,
        reason: "r",
      },
      { id: "rm", match: { program: "rm" }, act: "delete", undo: 3, reason: "r" },
    ]);
    const judged = judge("uv run --with x rm -rf y", {}, policy);
    expect(judged.rule).toBe("rm");
    expect(judged.answer.parsed && judged.answer.rule?.command.via).toEqual(["uv run"]);
  });
  test("the line takes its strictest part: outright allows and ordinary parts allow, one unknown part makes it pass", () => {
    const policy = policyWith([
      { id: "ok", match: { program: "deploy" }, act: "remote", undo: 3, decision: "allow", reason: "r" },
      { id: "ls", match: { program: "ls" }, act: "read", undo: 0, reason: "r" },
    ]);
    expect(judge("deploy", {}, policy).verdict).toBe("allow");
    expect(judge("deploy && ls", {}, policy).verdict).toBe("allow");
    expect(judge("deploy && unknown-thing", {}, policy).verdict).toBe("pass");
  });
  test("a deny anywhere in the line stands", () => {
    const policy = policyWith([
      { id: "no", match: { program: "shutdown" }, act: "system", undo: 3, decision: "deny", reason: "r" },
      { id: "ok", match: { program: "ls" }, act: "read", undo: 0, decision: "allow", reason: "r" },
    ]);
    expect(judge("ls; shutdown now", {}, policy).verdict).toBe("deny");
  });
  test("a rule that cannot compile is reported, and never skipped: the engine allows nothing on it", () => {
    const rules = [{ id: "bad", match: { program: "x", args_any: ["/(/"] }, act: "read", undo: 0, decision: "allow", reason: "r" }];
    const [rule] = policyWith(rules).rules;
    expect(checkRule(rule!).map((p) => p.segments.join("."))).toEqual(["match.args_any.0"]);
    // The loader refuses such a policy; were one to reach the engine, the line is not allowed.
    expect(judge("x", {}, policyWith(rules)).verdict).not.toBe("allow");
    const [empty] = policyWith([{ id: "empty", match: {}, act: "read", undo: 0, reason: "r" }]).rules;
    expect(checkRule(empty!)[0]?.hint).toContain("match.program");
  });
});

describe("what the engine skips on the way", () => {
  test("a program whose name reads as a pattern is not matched by the text of that pattern", () => {
    // The index lists a rule under each program string as written; the glob python[23] does not match the text "python[23]".
    const policy = policyWith([{ id: "py", match: { program: ["python[23]"] }, act: "read", undo: 0, reason: "python 2 or 3" }]);
    expect(judge("'python[23]' x", {}, policy).rule).toBeUndefined();
    expect(judge("python2 x", {}, policy).rule).toBe("py");
  });
  test("a rule on variables does not match a command that sets none, and does one that sets them", () => {
    const policy = policyWith([
      { id: "env", match: { program: ["ls"], env_any: ["LD_PRELOAD"] }, act: "unread", undo: 2, reason: "preload" },
    ]);
    expect(judge("ls", {}, policy).rule).toBeUndefined();
    expect(judge("LD_PRELOAD=/tmp/x.so ls", {}, policy).rule).toBe("env");
  });
  test("the rule that answers carries its safer form, so that nobody looks it up in the whole list", () => {
    const policy = policyWith([
      { id: "tf", match: { program: ["terraform"] }, act: "system", undo: 2, reason: "r", decision: "ask", suggest: "plan first" },
    ]);
    const { answer } = judge("terraform apply", {}, policy);
    expect(answer.parsed && answer.rule?.suggest).toBe("plan first");
  });
  test("an option written with a dash that only looks like one is read as an option", () => {
    const parsed = parseArgs(["\u2013rf", "\u2212\u2212force", "x"], new Set());
    expect(hasOption(parsed, "-r")).toBe(true);
    expect(hasOption(parsed, "--force")).toBe(true);
    expect(parsed.operands).toEqual(["x"]);
  });
});
