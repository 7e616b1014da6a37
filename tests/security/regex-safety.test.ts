import { describe, expect, test } from "bun:test";
import { nestedRepetition } from "../../src/answerers/rules/regex-safety.ts";

describe("regular expressions that backtrack catastrophically", () => {
  test.each([
    "^(a+)+$",
    "(\\w+\\s?)*x",
    "(.*a){20}",
    "(?:x+x+)+y",
    "([a-z]+)*\\d",
    "(-\\w+\\s*)*",
    "(:[a-z:]+)*",
    "^(a|aa)*$",
    "(x|x)*y",
    "(?:ab|a)+c",
  ])("%p is refused", (p) => {
    expect(nestedRepetition(p)).toBeDefined();
  });
  test.each([
    "a+$",
    "(foo|bar)+",
    "(a+)?",
    "^[^/$`]+$",
    "(ab){2}",
    "[(a+)]+",
    "\\(a+\\)+",
    "(:\\w+)*$",
    "(\\.[a-z]+)+x",
    "(foo|bar)*",
    "(yes|no)+",
    "\\b(tests?)\\b[^.\\n]{0,40}\\b(pass(es|ed|ing)?|green)\\b",
  ])("%p is kept", (p) => {
    expect(nestedRepetition(p)).toBeUndefined();
  });
});
