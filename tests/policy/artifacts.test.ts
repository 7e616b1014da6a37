import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultPolicySource, schemaJsonText, validatorsSource } from "../../src/policy/generate.ts";
import { Policy } from "../../src/policy/schema.ts";
import { DEFAULT_POLICY_TEXT } from "../../src/policy/load.ts";

const root = join(import.meta.dir, "../..");

test("policy/schema.json is generated from the zod schema (run `bun build.ts` when this fails)", () => {
  expect(readFileSync(join(root, "policy/schema.json"), "utf8")).toBe(schemaJsonText());
});

test("the precompiled validators are generated from the zod schema (run `bun build.ts` when this fails)", () => {
  expect(readFileSync(join(root, "src/policy/generated/validators.js"), "utf8")).toBe(validatorsSource());
});

test("the parsed default is generated from policy/default.yaml (run `bun build.ts` when this fails)", () => {
  expect(readFileSync(join(root, "src/policy/generated/default-policy.ts"), "utf8")).toBe(defaultPolicySource(root));
});

test("the embedded default is a complete policy by zod too, and names its schema for editors", () => {
  const parsed = Policy.safeParse(Bun.YAML.parse(DEFAULT_POLICY_TEXT));
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(DEFAULT_POLICY_TEXT.split("\n")[0]).toBe("# yaml-language-server: $schema=./schema.json");
});

test("every key of the default policy is commented", () => {
  // A key line either carries a trailing comment or follows a comment line,
  // except inside lists of data (rules, examples) and the texts of definitions.
  const lines = DEFAULT_POLICY_TEXT.split("\n");
  const topLevel = lines.filter((line) => /^[a-z_]+:/.test(line));
  for (const line of topLevel) {
    const index = lines.indexOf(line);
    const before = lines[index - 1] ?? "";
    expect(`${line} <- ${before}`).toMatch(/#/);
  }
});
