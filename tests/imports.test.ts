/**
 * The layout says what it is: the folders of src/ import one another without
 * a cycle, and the answerers speak the core's protocol without reaching into
 * the orchestration of a judgment (src/judge). Value imports only: a
 * type-only import is erased when verdict is built and orders nothing.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The top folder of src/ a file is in ("." for src/ itself). */
const folderOf = (file: string) => relative(SRC, dirname(file)).split("/")[0] || ".";

/** Each value import (static, dynamic or require) of a file, resolved, inside src/. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^;"']*?\s+from\s+)?"(\.[^"]+)"|\b(?:require|import)\("(\.[^"]+)"\)/g,
  )) {
    if (match[1]) continue;
    const spec = (match[2] ?? match[3]) as string;
    const target = resolve(dirname(file), spec);
    if (target.startsWith(`${SRC}/`)) found.push(target);
  }
  return found;
}

const files = sourceFiles(SRC);
/** folder -> folder -> an example import, for the message. */
const edges = new Map<string, Map<string, string>>();
for (const file of files) {
  for (const target of valueImports(file)) {
    const from = folderOf(file);
    const to = folderOf(target);
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${relative(SRC, file)} imports ${relative(SRC, target)}`);
  }
}

function cycles(): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string) => {
    const at = path.indexOf(node);
    if (at !== -1) {
      const cycle = [...path.slice(at), node];
      found.push(
        cycle.map((folder, i) => (i + 1 < cycle.length ? `${folder} (${edges.get(folder)!.get(cycle[i + 1]!)})` : folder)).join(" -> "),
      );
      return;
    }
    if (done.has(node)) return;
    path.push(node);
    for (const next of edges.get(node)?.keys() ?? []) visit(next);
    path.pop();
    done.add(node);
  };
  for (const node of edges.keys()) visit(node);
  return found;
}

describe("the import graph of src/", () => {
  test("has edges to check (the scan finds imports)", () => {
    expect(edges.get("judge")?.has("core")).toBe(true);
    expect(edges.get("answerers")?.has("core")).toBe(true);
  });

  test("no cycle between folders", () => {
    expect(cycles()).toEqual([]);
  });

  test("the answerers depend on the core, never on the orchestration of a judgment", () => {
    expect(edges.get("answerers")?.get("judge")).toBeUndefined();
  });

  test("the core imports no other folder of src/", () => {
    expect([...(edges.get("core")?.values() ?? [])]).toEqual([]);
  });
});
