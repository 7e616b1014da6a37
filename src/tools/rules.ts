/**
 * Tool rules compiled into named checks: each field of a rule's match becomes one check over a part and
 * its facts, so the engine can say both that a rule matches and, for `verdict explain`, which fields of a
 * rule that does not match fail.
 */
import { compileAny, type Matcher } from "../answerers/rules/pattern.ts";
import type { ToolRule } from "../policy/schema.ts";
import type { PartFacts } from "./facts.ts";
import type { ToolPart } from "./types.ts";

export type Check = { field: string; test: (part: ToolPart, facts: PartFacts) => boolean };
export type CompiledToolRule = { rule: ToolRule; index: number; checks: Check[] };

function any(field: string, patterns: readonly string[]): Matcher {
  try {
    return compileAny(patterns);
  } catch (error) {
    throw new Error(`match.${field}: ${(error as Error).message}`);
  }
}

/**
 * A tool's name in words: split at camelCase, digits, `-`, `.`, spaces, lower-cased and joined with `_`
 * (deleteRepo, delete-repo, chat.postMessage, DROP_TABLE: delete_repo, chat_post_message, drop_table),
 * so a rule's pattern is written once, for snake_case words.
 */
export function toolWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join("_");
}

function argText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/** Compiles one tool rule; throws with the field whose pattern does not compile. */
export function compileToolRule(rule: ToolRule, index: number): CompiledToolRule {
  const m = rule.match;
  const checks: Check[] = [];
  const add = (field: string, test: Check["test"]) => checks.push({ field, test });
  if (m.kind) {
    const kinds = new Set<string>(m.kind);
    add("kind", (part) => kinds.has(part.kind));
  }
  if (m.tool) {
    const tool = any("tool", m.tool);
    // Tried on the name as given and in words (deleteRepo as delete_repo).
    add("tool", (part) => part.tool !== undefined && (tool(part.tool) || tool(toolWords(part.tool))));
  }
  if (m.server) {
    const server = any("server", m.server);
    add("server", (part) => part.server !== undefined && server(part.server));
  }
  if (m.args_any) {
    const entries = Object.entries(m.args_any).map(([name, patterns]) => [name, any(`args_any.${name}`, patterns)] as const);
    add("args_any", (part) => {
      const args = Object.entries(part.args ?? {});
      return entries.some(([name, match]) => args.some(([key, value]) => (name === "*" || key === name) && match(argText(value))));
    });
  }
  if (m.url) {
    const url = any("url", m.url);
    add("url", (part, facts) => part.url !== undefined && (facts.urlForms ?? [part.url]).some(url));
  }
  if (m.carries_secret !== undefined) {
    const want = m.carries_secret;
    add("carries_secret", (part, facts) => part.url !== undefined && (facts.carriesSecret ?? false) === want);
  }
  if (m.path_class) {
    const classes = new Set<string>(m.path_class);
    add("path_class", (_, facts) => facts.cls !== undefined && classes.has(facts.cls));
  }
  if (m.path_class_none) {
    const classes = new Set<string>(m.path_class_none);
    add("path_class_none", (_, facts) => facts.cls !== undefined && !classes.has(facts.cls));
  }
  if (m.path) {
    const path = any("path", m.path);
    add("path", (_, facts) => facts.forms.some(path));
  }
  if (m.path_none) {
    const path = any("path_none", m.path_none);
    add("path_none", (_, facts) => facts.forms.length > 0 && !facts.forms.some(path));
  }
  if (m.name) {
    const name = any("name", m.name);
    // The name as given, in lower case (case-insensitive file systems), and the secret names a read's glob covers.
    add("name", (_, facts) => facts.name !== undefined && [facts.name, facts.name.toLowerCase(), ...(facts.globNames ?? [])].some(name));
  }
  if (m.change) {
    const changes = new Set<string>(m.change);
    add("change", (_, facts) => facts.change !== undefined && changes.has(facts.change));
  }
  if (m.exists !== undefined) {
    const want = m.exists;
    add("exists", (_, facts) => facts.exists === want);
  }
  if (m.tracked !== undefined) {
    const want = m.tracked;
    add("tracked", (_, facts) => facts.tracked === want);
  }
  if (m.content_any) {
    const content = any("content_any", m.content_any);
    // What the part adds, not what it keeps: rewriting a package.json that already has a prepare script
    // does not add one.
    add("content_any", (part, facts) => {
      const text = facts.added ?? part.content;
      return text !== undefined && text !== "" && content(text);
    });
  }
  return { rule, index, checks };
}

/** The fields of a rule that fail for a part; empty when the rule matches. */
export function failing(compiled: CompiledToolRule, part: ToolPart, facts: PartFacts): string[] {
  return compiled.checks.filter((check) => !check.test(part, facts)).map((check) => check.field);
}

export function matches(compiled: CompiledToolRule, part: ToolPart, facts: PartFacts): boolean {
  return compiled.checks.every((check) => check.test(part, facts));
}

const compiledByRules = new WeakMap<readonly ToolRule[], CompiledToolRule[]>();

/** The policy's tool rules compiled once; a rule that does not compile is left out (policy check reports it). */
export function compiledToolRules(rules: readonly ToolRule[]): CompiledToolRule[] {
  let compiled = compiledByRules.get(rules);
  if (!compiled) {
    compiled = [];
    rules.forEach((rule, index) => {
      try {
        compiled!.push(compileToolRule(rule, index));
      } catch {
        // reported by toolRuleProblems
      }
    });
    compiledByRules.set(rules, compiled);
  }
  return compiled;
}

type ToolRuleProblem = { index: number; id: string; message: string };

/** Patterns that do not compile, and rules that match every part of every call. */
export function toolRuleProblems(rules: readonly ToolRule[], acts: readonly string[]): ToolRuleProblem[] {
  const problems: ToolRuleProblem[] = [];
  rules.forEach((rule, index) => {
    try {
      const compiled = compileToolRule(rule, index);
      if (compiled.checks.length === 0)
        problems.push({ index, id: rule.id, message: "a tool rule needs at least one field under match (kind, path, server, ...)" });
    } catch (error) {
      problems.push({ index, id: rule.id, message: (error as Error).message });
    }
    if (!acts.includes(rule.act))
      problems.push({ index, id: rule.id, message: `unknown act ${JSON.stringify(rule.act)}: one of ${acts.join(", ")}` });
  });
  return problems;
}
