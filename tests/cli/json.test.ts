/** One meaning of --json for every command, through the binary: schema_version, snake_case keys, only where honoured. */
import { describe, expect, test } from "bun:test";
import { isolatedEnv, run, tempDir } from "../support/binary.ts";

const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

/** Every camelCase key in a JSON value (environment maps, which hold data, aside). */
function camelKeys(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => camelKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => [
    ...(CAMEL.test(key) ? [`${path}.${key}`] : []),
    ...(key === "env" ? [] : camelKeys(item, `${path}.${key}`)),
  ]);
}

describe("--json", () => {
  const home = tempDir("verdict-json-");
  const env = isolatedEnv(home);
  const documents: Array<[string, string[]]> = [
    ["check", ["check", "--json", "--", "FOO=1 git status"]],
    ["check-stop", ["check-stop", "--json", "--request", "fix it", "--final", "Fixed; the tests pass."]],
    ["doctor", ["doctor", "--json"]],
    ["approvals list", ["approvals", "list", "--json"]],
    ["policy show", ["policy", "show", "--json"]],
    ["log --stats", ["log", "--stats", "--json"]],
  ];
  for (const [name, args] of documents) {
    test(`${name}: schema_version first, snake_case keys`, () => {
      const ran = run(args, { cwd: home, env });
      const doc = JSON.parse(ran.stdout);
      expect(Object.keys(doc)[0]).toBe("schema_version");
      expect(doc.schema_version).toBe(1);
      expect(camelKeys(doc)).toEqual([]);
      expect(ran.stdout + ran.stderr).not.toContain("\x1b[");
    });
  }

  test("log --json: one document per line", () => {
    run(["check", "--", "ls"], { cwd: home, env });
    const lines = run(["log", "--json"], { cwd: home, env }).stdout.trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line).schema_version).toBe(1);
  });

  test("commands that print no JSON refuse --json as a usage error", () => {
    for (const args of [
      ["install", "claude", "--json"],
      ["uninstall", "claude", "--json"],
    ]) {
      expect(run(args, { cwd: home, env }).code).toBe(2);
    }
  });
});
