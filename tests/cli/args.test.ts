import { expect, test } from "bun:test";
import { parseOptions } from "../../src/cli/args.ts";
import { run } from "../support/binary.ts";

const spec = { json: { type: "boolean" as const }, cwd: { type: "string" as const }, help: { type: "boolean" as const, short: "h" } };

test("booleans, values in both spellings, short aliases and positionals", () => {
  expect(parseOptions(["--json", "--cwd", "/x", "a", "-h", "b"], spec)).toEqual({
    values: { json: true, cwd: "/x", help: true },
    positionals: ["a", "b"],
  });
  expect(parseOptions(["--cwd=/y"], spec)).toEqual({ values: { cwd: "/y" }, positionals: [] });
});

test("-- ends the options", () => {
  expect(parseOptions(["--json", "--", "--cwd", "-h"], spec)).toEqual({ values: { json: true }, positionals: ["--cwd", "-h"] });
});

test("unknown options, a value missing, or a value on a boolean are errors", () => {
  expect(parseOptions(["--bogus"], spec)).toEqual({ error: 'unknown option "--bogus"' });
  expect(parseOptions(["-x"], spec)).toEqual({ error: 'unknown option "-x"' });
  expect(parseOptions(["--cwd"], spec)).toEqual({ error: "option --cwd needs a value" });
  expect(parseOptions(["--json=1"], spec)).toEqual({ error: "option --json takes no value" });
});

test("a mistyped option names the nearest known one", () => {
  expect(parseOptions(["--jsno"], spec)).toEqual({ error: 'unknown option "--jsno"; did you mean --json?' });
  expect(parseOptions(["--cwdd=/x"], spec)).toEqual({ error: 'unknown option "--cwdd"; did you mean --cwd?' });
});

test("through the binary: a mistyped command, subcommand or option names the nearest", () => {
  expect(run(["polcy", "check"]).stderr).toContain('unknown command "polcy". Did you mean verdict policy?');
  expect(run(["policy", "chek"]).stderr).toContain("did you mean verdict policy check?");
  const option = run(["check", "--rules-onyl", "--", "ls"]);
  expect(option.code).toBe(2);
  expect(option.stderr).toContain("did you mean --rules-only?");
});

test("repeatable and variadic options keep their values in order", () => {
  const repeat = {
    request: { type: "string" as const, multiple: true, variadic: true },
    ran: { type: "string" as const, multiple: true },
    final: { type: "string" as const },
  };
  const parsed = parseOptions(["--request", "one", "two", "--ran", "a", "--request=three", "--final", "-"], repeat);
  expect(parsed).toEqual({
    values: { request: ["one", "two", "three"], ran: ["a"], final: "-" },
    positionals: [],
    ordered: [
      { name: "request", value: "one" },
      { name: "request", value: "two" },
      { name: "ran", value: "a" },
      { name: "request", value: "three" },
    ],
  });
  expect(parseOptions(["--request", "--final", "x"], repeat)).toEqual({ error: "option --request needs a value" });
});

// Every command parses its options with the one parser: a mistyped option names the nearest and exits 2.
const MISTYPED: Array<[string[], string]> = [
  [["check", "--jsn", "--", "ls"], "--json"],
  [["explain", "--jsn", "--", "ls"], "--json"],
  [["check-stop", "--fnal", "done", "--request", "fix it"], "--final"],
  [["hook", "claude", "--hlp"], "--help"],
  [["install", "claude", "--dry-rn"], "--dry-run"],
  [["uninstall", "claude", "--dry-rn"], "--dry-run"],
  [["doctor", "--jsn"], "--json"],
  [["run", "--modle", "m", "list the files"], "--model"],
  [["approvals", "list", "--al"], "--all"],
  [["policy", "check", "--jsn"], "--json"],
  [["log", "--tial", "3"], "--tail"],
];

for (const [argv, meant] of MISTYPED) {
  test(`through the binary: verdict ${argv[0]} with a mistyped option says "did you mean ${meant}?" and exits 2`, () => {
    const ran = run(argv);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`did you mean ${meant}?`);
    expect(ran.stdout).toBe("");
  });
}

test("through the binary: check-stop keeps --ran and --ran-failed in the order given (the transcript's order)", () => {
  const base = ["check-stop", "--rules-only", "--request", "Fix the parser", "--final", "Fixed it; all tests pass."];
  const failedLast = run([...base, "--ran", "npm test", "--ran-failed", "npm test"]);
  expect(failedLast.code).toBe(12);
  expect(failedLast.stdout + failedLast.stderr).toContain("last test command of the turn failed");
  expect(run([...base, "--ran-failed", "npm test", "--ran", "npm test"]).code).toBe(10);
});
