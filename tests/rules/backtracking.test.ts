/** The static check for catastrophic backtracking (answerers/rules/backtracking.ts). */
import { describe, expect, test } from "bun:test";
import { catastrophicBacktracking, catastrophicShapes } from "../../src/answerers/rules/backtracking.ts";
import { DEFAULT } from "./helpers.ts";

const refused = [
  "(a+)+",
  "(a+)+$",
  "(a|a)*",
  "(\\w|_)+",
  "(.|\\s)*",
  "(?:x{2,})+",
  "(\\w*\\s?)*",
  "([a-z]+)*",
  "((ab)+)*",
  "(a|b*)*",
  "(foo|fo)+",
  "^(\\d|\\w)+$",
  "x(a+)+y",
  "([ab]|a)*",
  "(a[a-z]+)*",
  "(\\.[^a]+)+",
];
const accepted = [
  "^rm\\s+-rf",
  "(ab)+",
  "(a+)?",
  "(a|b)*",
  "(\\s|,)+",
  "(:\\w+)*",
  "(ab+c)*",
  "(abc|abd)+",
  "( now| next| then)*",
  "\\((a)\\)+",
  "(a{1,3})+",
  "[a-z]+\\d*",
  "(\\.[a-z0-9-]+)+",
  "([ab]|c)*",
  "(\\.[^.]+)+",
];

describe("catastrophic backtracking", () => {
  for (const pattern of refused) test(`refuses ${pattern}`, () => expect(catastrophicBacktracking(pattern)).toBeDefined());
  for (const pattern of accepted) test(`its own shapes accept ${pattern}`, () => expect(catastrophicShapes(pattern)).toBeUndefined());

  test("for rule patterns, regex-safety.ts's stricter shapes count too", () => {
    expect(catastrophicShapes("(.*a){20}")).toBeUndefined();
    expect(catastrophicBacktracking("(.*a){20}")).toBeDefined();
    expect(catastrophicBacktracking("(:\\w+)*")).toBeUndefined();
  });

  test("every regular expression of the default passes", () => {
    const patterns: string[] = [];
    const walk = (value: unknown) => {
      if (typeof value === "string") {
        const regex = /^\/(.+)\/(i?)$/s.exec(value);
        if (regex) patterns.push(regex[1] as string);
      } else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(DEFAULT.rules);
    walk(DEFAULT.tool_rules);
    expect(patterns.length).toBeGreaterThan(50);
    expect(patterns.filter((pattern) => catastrophicBacktracking(pattern) !== undefined)).toEqual([]);
  });
});
