/**
 * Every policy example in the documentation is a policy `verdict policy check`
 * accepts, and so is the embedded default: a YAML block (```yaml) in README.md
 * or docs/*.md is checked as a layer over the default, through the binary.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { run, tempDir } from "../support/binary.ts";

const ROOT = resolve(import.meta.dir, "../..");
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The ```yaml blocks of a Markdown file, with the line each starts on. */
function yamlBlocks(text: string): { line: number; yaml: string }[] {
  const blocks: { line: number; yaml: string }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ya?ml\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    blocks.push({ line: start + 1, yaml: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

const examples = DOCS.flatMap((doc) => yamlBlocks(readFileSync(join(ROOT, doc), "utf8")).map((block) => ({ doc, ...block })));

describe("policy examples in the documentation", () => {
  test("there are some", () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  for (const example of examples) {
    test(`${example.doc}:${example.line} passes policy check`, () => {
      const file = join(tempDir("verdict-docs-"), "policy.yaml");
      writeFileSync(file, `${example.yaml}\n`);
      const ran = run(["policy", "check", file]);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
    });
  }

  test("the embedded default passes policy check, every rule compiled and every example proven", () => {
    const ran = run(["policy", "check"]);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
  });
});
