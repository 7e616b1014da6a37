/**
 * The packed rules (src/answerers/rules/packed.ts) that the hook uses must give the engine exactly what
 * the rules unpacked give it: the same candidates for every program name in the same order, the same
 * redirect and whole-line rules, and so the same answers.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { candidatesFor, compiledOf, outrightOf, ruleIndex, ruleIndexFor, type RuleIndex } from "../../src/answerers/rules/compile.ts";
import { answerLine } from "../../src/answerers/rules/engine.ts";
import { matchesCommand, mayMatch } from "../../src/answerers/rules/match.ts";
import { compilePattern, requiredText } from "../../src/answerers/rules/pattern.ts";
import { packedRuleIndex, packRules, unpackRules } from "../../src/answerers/rules/packed.ts";
import { DEFAULT_POLICY, DEFAULT_RULES } from "../../src/policy/generated/default-policy.ts";
import type { Policy, Rule } from "../../src/policy/schema.ts";
import "../../src/policy/layer-cache.ts"; // attaches the default's packed index, as the hook has it
import { judge, readCorpus } from "../../bench/corpus/run.ts";
import { CONTEXT, DEFAULT, judge as judgeLine } from "./helpers.ts";

const ids = (index: RuleIndex, name: string) => candidatesFor(index, name).map((entry) => `${entry.rule.id}@${entry.index}`);
const order = (index: RuleIndex, name: string) => candidatesFor(index, name).map((entry) => entry.index);

/** Every program string the rules name, and names no rule names as written but a pattern may match. */
function namesOf(rules: readonly Rule[]): string[] {
  const named = rules.flatMap((rule) => (rule.match.program === undefined ? [] : [rule.match.program].flat()));
  return [
    ...new Set([
      ...named,
      "python3.12",
      "pip3.11",
      "mkfs.ext4",
      "newfs_msdos",
      "fsck.vfat",
      "/usr/local/bin/verdict",
      "./verdict",
      "frobnicate",
      "git",
      "a\tb",
      "a\nb",
      "",
      "[",
      "*",
    ]),
  ];
}

describe("the embedded default, packed", () => {
  const plain = ruleIndex(DEFAULT_POLICY.rules);
  const packed = ruleIndexFor(DEFAULT_POLICY);

  test("is the index the engine gets for the embedded default", () => {
    expect(packed.lookup).toBeDefined();
  });

  test("unpacks to the rules of policy/default.yaml, in order", () => {
    expect(unpackRules(DEFAULT_RULES)).toEqual(DEFAULT.rules);
    expect(DEFAULT_POLICY.rules).toEqual(DEFAULT.rules);
  });

  test("gives every program name the same candidates, in the same order", () => {
    for (const name of namesOf(DEFAULT_POLICY.rules)) expect([name, ids(packed, name)]).toEqual([name, ids(plain, name)]);
  });

  test("gives the same redirect and whole-line rules", () => {
    expect(packed.redirects.map((entry) => entry.rule.id)).toEqual(plain.redirects.map((entry) => entry.rule.id));
    expect([...packed.exact.keys()]).toEqual([...plain.exact.keys()]);
  });

  test("knows every rule's outright decision without parsing it, and it is the rule's", () => {
    const entries = namesOf(DEFAULT_POLICY.rules).flatMap((name) => candidatesFor(packed, name));
    expect(entries.length).toBeGreaterThan(250);
    for (const entry of entries) {
      expect(entry.outright).not.toBeUndefined();
      const decision = entry.rule.decision;
      expect([entry.rule.id, outrightOf(entry)]).toEqual([entry.rule.id, decision === "ask" || decision === "deny" ? decision : undefined]);
    }
  });

  test("a pack whose decisions do not line up with its rules is not trusted for them", () => {
    const pack = { ...packRules(DEFAULT.rules.slice(0, 12)), outright: "d".repeat(11) };
    const index = packedRuleIndex([{ pack }], () => DEFAULT.rules.slice(0, 12));
    const entries = candidatesFor(index, "env");
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.outright).toBeUndefined();
  });

  test("proves at build every regular expression the default's rules compile, the split ones included", () => {
    const safe = new Set(DEFAULT_RULES.safe);
    for (const rule of DEFAULT.rules) {
      const words = [rule.match.subcommand ?? []].flat().flatMap((s) => s.trim().split(/\s+/));
      const env = (rule.match.env_any ?? []).flatMap((entry) =>
        entry.includes("=") ? [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)] : [entry],
      );
      for (const word of [...words, ...env]) {
        const regex = /^\/(.+)\/(i?)$/s.exec(word);
        if (regex) expect([rule.id, safe.has(regex[1] as string)]).toEqual([rule.id, true]);
      }
    }
  });
});

describe("a layer's rules packed over the default's", () => {
  const own: Rule[] = [
    {
      id: "house-deploy",
      match: { program: "kubectl", subcommand: "apply", args_any: ["*prod*"] },
      act: "remote",
      undo: 3,
      load: 0,
      confidence: 1,
      decision: "deny",
      reason: "r",
    },
    { id: "house-python", match: { program: ["python3.*", "mytool"] }, act: "read", undo: 0, load: 0, confidence: 1, reason: "r" },
    { id: "house-exact", match: { command_exact: "  make release " }, act: "remote", undo: 3, load: 0, confidence: 1, reason: "r" },
    { id: "house-redirect", match: { redirect: { to: ["temp"] } }, act: "build", undo: 0, load: 0, confidence: 1, reason: "r" },
    // Replaces the default's rule of the same id.
    { ...(DEFAULT_POLICY.rules.find((rule) => rule.id === "git-read-only") as Rule), reason: "replaced" },
  ] as Rule[];
  const replaced = new Set(own.map((rule) => rule.id).filter((id) => DEFAULT_POLICY.rules.some((rule) => rule.id === id)));
  const effective = [...own, ...DEFAULT_POLICY.rules.filter((rule) => !replaced.has(rule.id))];
  const plain = ruleIndex(effective);
  const packed = packedRuleIndex([{ pack: packRules(own) }, { pack: DEFAULT_RULES, replaced }], () => effective);

  test("finds the same rules in the same order as the merged list", () => {
    expect(replaced.size).toBe(1);
    for (const name of namesOf(effective)) {
      const byId = (index: RuleIndex) => candidatesFor(index, name).map((entry) => entry.rule.id);
      expect([name, byId(packed)]).toEqual([name, byId(plain)]);
      // Positions may leave gaps where a rule was replaced, but keep the order.
      const positions = order(packed, name);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
    expect(packed.redirects.map((entry) => entry.rule.id)).toEqual(plain.redirects.map((entry) => entry.rule.id));
    expect([...packed.exact].map(([line, entries]) => [line, entries.map((entry) => entry.rule.id)])).toEqual(
      [...plain.exact].map(([line, entries]) => [line, entries.map((entry) => entry.rule.id)]),
    );
  });
});

describe("the engine's answers", () => {
  const lines = [
    ...DEFAULT_POLICY.examples.commands.map((example) => example.command),
    ...DEFAULT_POLICY.rules.flatMap((rule) => [...(rule.examples?.match ?? []), ...(rule.examples?.not_match ?? [])]),
  ];

  test("are the same through the packed default as through the rules unpacked, for every example", () => {
    for (const line of lines) {
      const packed = judgeLine(line, CONTEXT, DEFAULT_POLICY as Policy);
      const plain = judgeLine(line, CONTEXT, DEFAULT);
      expect([line, packed.verdict, packed.rule]).toEqual([line, plain.verdict, plain.rule]);
    }
  });

  const corpus = resolve(import.meta.dir, "../../../shared/corpus");
  test.skipIf(!existsSync(corpus))("are the same on the labelled corpus", () => {
    let compared = 0;
    for (const row of readCorpus(corpus)) {
      const packed = judge(row, DEFAULT_POLICY as Policy);
      const plain = judge(row, DEFAULT);
      if (packed.verdict !== plain.verdict) expect([row, packed.verdict]).toEqual([row, plain.verdict]);
      compared++;
    }
    expect(compared).toBeGreaterThan(10000);
  });
});

describe("the rules a command is not tried against", () => {
  const packed = ruleIndexFor(DEFAULT_POLICY);
  const lines = [
    ...DEFAULT_POLICY.rules.flatMap((rule) => [...(rule.examples?.match ?? []), ...(rule.examples?.not_match ?? [])]),
    "git -C repo status",
    "git \u2013c core.pager=x log",
    "npm \u2013\u2013 \u2013l",
    "LD_PRELOAD=/tmp/x.so git status",
    "env | sort",
    "echo 'DROP TABLE x' | psql",
  ];

  test("are rules that would not have matched it (mayMatch only passes over what matchesCommand refuses)", () => {
    let passedOver = 0;
    for (const line of lines) {
      answerLine(line, CONTEXT, DEFAULT_POLICY, (view) => {
        for (const entry of candidatesFor(packed, view.name)) {
          if (mayMatch(entry.needs, view)) continue;
          passedOver++;
          expect([line, entry.rule.id, matchesCommand(compiledOf(entry), view, true)]).toEqual([line, entry.rule.id, false]);
        }
      });
    }
    expect(passedOver).toBeGreaterThan(1000);
  });

  test("are known for every rule of the default, a line each", () => {
    expect(DEFAULT_RULES.needs?.split("\n").length).toBe(DEFAULT_RULES.at.length - 1);
    expect(candidatesFor(packed, "git").filter((entry) => entry.needs).length).toBeGreaterThan(40);
  });
});

describe("the text a pattern requires", () => {
  const corpus = resolve(import.meta.dir, "../../../shared/corpus");
  test.skipIf(!existsSync(corpus))("is in every word of the labelled corpus that the pattern matches", () => {
    const patterns = [...new Set(DEFAULT_POLICY.rules.flatMap((rule) => [...(rule.match.args_any ?? []), ...(rule.match.args_none ?? [])]))]
      .map((pattern) => ({ pattern, text: requiredText(pattern), matches: compilePattern(pattern) }))
      .filter(({ text }) => text !== "");
    const words = new Set(readCorpus(corpus).flatMap((row) => row.command.split(/\s+/).map((word) => word.replace(/^['"]|['"]$/g, ""))));
    let matched = 0;
    for (const word of words)
      for (const { pattern, text, matches } of patterns) {
        if (!matches(word)) continue;
        matched++;
        if (!word.includes(text)) expect([pattern, word, text]).toEqual([pattern, word, "(in the word)"]);
      }
    expect(patterns.length).toBeGreaterThan(100);
    expect(matched).toBeGreaterThan(1000);
  });
});
