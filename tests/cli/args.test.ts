import { expect, test } from "bun:test";
import { parseOptions } from "../../src/cli/args.ts";
import { run } from "../support/binary.ts";

const spec = { json: { type: "boolean" as const }, cwd: { type: "string" as const }, help: { type: "boolean" as const, short: "h" } };

test("booleans, values in both spellings, short aliases and positionals", () => {
  expect(parseOptions(["--json", "--cwd", "/x", "a", "-h", "b"], spec)).toEqual({ values: { json: true, cwd: "/x", help: true }, positionals: ["a", "b"] });
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
