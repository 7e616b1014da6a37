/** Which layer patterns are proven linear, so that a cached layer's hook needs no watchdog (src/policy/bounded.ts). */
import { expect, test } from "bun:test";
import { allLinear, boundedPolicy, linearPattern, MAX_RULES } from "../../src/policy/bounded.ts";

test("plain words, one-star globs, *x* and regular expressions without unbounded repetition are linear", () => {
  for (const p of ["git", "deploy-*", "*.log", "*prod*", "a?b[cd]*", "**", "/^git$/", "/x{2,3}/", "/ab?c/i", "*"])
    expect([p, linearPattern(p)]).toEqual([p, true]);
});

test("repetition in a regular expression, or stars that split twice, are not", () => {
  for (const p of ["/a.*b/", "/(a|a?)+$/", "/x{2,}/", "/a+/i", "*a*b", "a*b*", "*a*b*", "a*b*c"])
    expect([p, linearPattern(p)]).toEqual([p, false]);
});

test("a policy's own rules, reasons and examples aside, and the sections it changed", () => {
  const defaults = { hosts: { on_error: "/a+/" }, judge: { answerer: "rules" } };
  const rule = (args: string[]) => ({
    id: "x*y*z",
    match: { program: "tool", args_any: args },
    reason: "Uses *a*b*.",
    examples: { match: ["t *a*b*"] },
  });
  expect(boundedPolicy([rule(["*prod*"])], { rules: null, ...defaults }, defaults)).toBe(true);
  expect(boundedPolicy([rule(["*a*b"])], { rules: null, ...defaults }, defaults)).toBe(false);
  expect(boundedPolicy([], { ...defaults, judge: { answerer: "/(x|y)+/" } }, defaults)).toBe(false);
  // A section the layer did not change is the default's, fuzzed as built: its strings are not judged here.
  expect(boundedPolicy([], { ...defaults }, defaults)).toBe(true);
  expect(
    boundedPolicy(
      Array.from({ length: MAX_RULES + 1 }, () => rule(["x"])),
      { ...defaults },
      defaults,
    ),
  ).toBe(false);
  expect(allLinear({ a: ["x", { b: "*y*" }] })).toBe(true);
});

test("a list the layers add to counts only what they added; examples are never matched in a hook", () => {
  const defaults = {
    turn_rules: [{ id: "default-turn", final_matches: ["/(will|shall)\\s+\\w+/"], reason: "The default's, fuzzed." }],
    examples: { commands: [{ command: "rm -rf *.tmp", verdict: "ask" }] },
  };
  const added = (final: string) => ({ id: "team-turn", final_matches: [final], reason: "Says *what* it will do." });
  const head = (final: string) => ({ rules: null, turn_rules: [added(final), ...defaults.turn_rules], examples: defaults.examples });
  expect(boundedPolicy([], head("^I will now"), defaults)).toBe(true);
  expect(boundedPolicy([], head("/I (will)+ now/"), defaults)).toBe(false);
  // A layer's own examples, with stars in their commands, do not make it unbounded.
  const withExamples = {
    ...head("^I will now"),
    examples: { commands: [{ command: "rm -rf a*b*c*", verdict: "deny" }, ...defaults.examples.commands] },
  };
  expect(boundedPolicy([], withExamples, defaults)).toBe(true);
});
