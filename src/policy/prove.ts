/**
 * The proving steps of the load pipeline (load.ts): each file's rules, turn rules and tool rules checked
 * (step 3), and a merged policy checked whole with the rules' examples judged by the engine (step 5).
 * Apart from load.ts so that the rule engine's checks are initialised only when a layer is loaded.
 */
import defaultText from "../../policy/default.yaml" with { type: "text" };
import { checkRule, checkTurnRule, slowProblem, compiledOf, compileRule, proveRuleExamples, ruleIndex } from "../answerers/rules.ts";
import { checkToolRuleExamples } from "../tools/examples.ts";
import { toolRuleProblems } from "../tools/rules.ts";
import type { PolicyProblem } from "./errors.ts";
import { DEFAULT_POLICY } from "./generated/default-policy.ts";
import type { LayerFile } from "./layers.ts";
import { DEFAULT_FILE } from "./load.ts";
import { originOf, type Origin } from "./merge.ts";
import type { Policy, Rule } from "./schema.ts";
import { checkSemantics } from "./semantics.ts";
import { checkComplete, checkLayer } from "./validate.ts";

export { compileEagerly, markTightening } from "../answerers/rules.ts";

/** A problem before its line and column are known (load.ts adds them). */
export type Pending = PolicyProblem & { segments?: (string | number)[]; atKey?: boolean };

/** Where a rule, turn rule or tool rule of a layer was written: its file and its place in that file's list. */
export type Written = Map<object, { file: string; index: number }>;

/** Steps 2 and 3 for one file: the schema, then each rule's and turn rule's own checks (recording where each was written). */
export function checkFile(part: LayerFile, written: Written): Pending[] {
  const schemaProblems = checkLayer(part.data);
  if (schemaProblems.length > 0) return schemaProblems.map((problem) => ({ ...problem, file: part.file }));
  const problems: Pending[] = [];
  const { rules, turn_rules } = part.data as { rules?: Rule[]; turn_rules?: Policy["turn_rules"] };
  (rules ?? []).forEach((rule, index) => {
    written.set(rule, { file: part.file, index });
    for (const problem of checkRule(rule)) problems.push(ruleProblem(part.file, ["rules", index], rule.id, problem));
  });
  (turn_rules ?? []).forEach((rule, index) => {
    written.set(rule, { file: part.file, index });
    for (const problem of checkTurnRule(rule)) problems.push(ruleProblem(part.file, ["turn_rules", index], rule.id, problem, "turn rule"));
  });
  ((part.data as { tool_rules?: Policy["tool_rules"] }).tool_rules ?? []).forEach((rule, index) => {
    written.set(rule, { file: part.file, index });
    // Its act is checked once merged (checkMerged): here, what compiles.
    const slow = slowPatterns(rule.match, ["match"]);
    for (const problem of slow)
      problems.push({
        ...toolProblem(part.file, index, `tool rule ${rule.id}: ${problem.message}`),
        segments: ["tool_rules", index, ...problem.segments],
        path: ["tool_rules", index, ...problem.segments].join("."),
        found: problem.found,
        hint: problem.hint,
      });
    // Compiling would refuse the same pattern again, in other words.
    if (slow.length > 0) return;
    for (const problem of toolRuleProblems([rule], [rule.act])) {
      problems.push(
        toolProblem(
          part.file,
          index,
          problem.message.startsWith("tool rule") ? problem.message : `tool rule ${rule.id}: ${problem.message}`,
        ),
      );
    }
  });
  return problems;
}

/** The regular expressions (`/.../`) anywhere under `value` that could backtrack catastrophically. */
function slowPatterns(
  value: unknown,
  at: (string | number)[],
): { segments: (string | number)[]; message: string; found: string; hint: string }[] {
  if (typeof value === "string") {
    const regex = /^\/(.+)\/(i?)$/s.exec(value);
    const slow = regex ? slowProblem(regex[1] as string, regex[2] === "i") : undefined;
    return slow ? [{ segments: at, ...slow, found: JSON.stringify(value) }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => slowPatterns(item, [...at, index]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => slowPatterns(item, [...at, key]));
  return [];
}

function toolProblem(file: string, index: number, message: string): Pending {
  return { file, segments: ["tool_rules", index], path: `tool_rules.${index}`, message };
}

function ruleProblem(
  file: string,
  at: (string | number)[],
  id: string,
  problem: { segments: (string | number)[]; message: string; found?: string; hint?: string },
  kind = "rule",
): Pending {
  const segments = [...at, ...problem.segments];
  return {
    file,
    segments,
    path: segments.join("."),
    message: `${kind} ${id}: ${problem.message}`,
    found: problem.found,
    hint: problem.hint,
  };
}

/**
 * Step 5 on a merged policy: entries a layer added are complete, references across sections hold, and
 * the examples of the rules in `written` hold when the engine judges them under this policy.
 */
export function checkMerged(
  value: Record<string, unknown>,
  origins: Map<string, Origin> | undefined,
  written: Written,
  fallbackFile: string | undefined,
): Pending[] {
  const locate = (problem: Omit<Pending, "file"> & { segments: (string | number)[] }) =>
    located(problem, origins, value, written, fallbackFile);
  const complete = checkComplete(value, DEFAULT_POLICY as unknown as Record<string, unknown>);
  if (complete.length > 0) return complete.map(locate);
  const policy = value as Policy;
  const problems: Pending[] = checkSemantics(policy).map(locate);
  if (problems.length > 0) return problems;
  const acts = Object.keys(policy.acts);
  for (const rule of policy.tool_rules ?? []) {
    const where = written.get(rule);
    if (!where) continue;
    const own = [
      ...toolRuleProblems([rule], acts).filter((problem) => problem.message.startsWith("unknown act")),
      ...checkToolRuleExamples({ tool_rules: [rule] }),
    ];
    for (const problem of own)
      problems.push(
        toolProblem(
          where.file,
          where.index,
          problem.message.startsWith("tool rule") ? problem.message : `tool rule ${rule.id}: ${problem.message}`,
        ),
      );
  }
  // Compiled through the policy's own index: the engine later finds these rules compiled already.
  const { entries } = ruleIndex(policy.rules);
  for (const entry of entries) {
    const { rule } = entry;
    const where = written.get(rule);
    if (!where || !rule.examples) continue;
    for (const problem of proveRuleExamples(rule, policy, compiledOf(entry))) {
      problems.push({
        file: where.file,
        segments: ["rules", where.index, ...problem.segments],
        path: ["rules", where.index, ...problem.segments].join("."),
        message: problem.message,
      });
    }
  }
  return problems;
}

let defaultProven: Pending[] | undefined;

/** The embedded default's rules compiled and proven, as the tests and `policy check` do (never a hook). */
export function defaultProblems(): Pending[] {
  if (defaultProven) return defaultProven;
  const written: Written = new Map();
  const problems = checkFile(
    { file: DEFAULT_FILE, text: defaultText, data: DEFAULT_POLICY as unknown as Record<string, unknown> },
    written,
  );
  problems.push(...checkSemantics(DEFAULT_POLICY).map((problem) => ({ ...problem, file: DEFAULT_FILE })));
  for (const rule of DEFAULT_POLICY.rules) {
    const index = written.get(rule)?.index ?? 0;
    for (const problem of proveRuleExamples(rule, DEFAULT_POLICY, compileRule(rule, index))) {
      const segments = ["rules", index, ...problem.segments];
      problems.push({ file: DEFAULT_FILE, segments, path: segments.join("."), message: problem.message });
    }
  }
  const acts = Object.keys(DEFAULT_POLICY.acts);
  problems.push(...checkToolRuleExamples(DEFAULT_POLICY).map((problem) => toolProblem(DEFAULT_FILE, problem.index, problem.message)));
  for (const problem of toolRuleProblems(DEFAULT_POLICY.tool_rules ?? [], acts).filter((one) => one.message.startsWith("unknown act"))) {
    problems.push(toolProblem(DEFAULT_FILE, problem.index, `tool rule ${problem.id}: ${problem.message}`));
  }
  defaultProven = problems;
  return problems;
}

/** A problem in a merged policy, pointed at the layer file that set the value. */
function located(
  problem: Omit<Pending, "file"> & { segments: (string | number)[] },
  origins: Map<string, Origin> | undefined,
  value: Record<string, unknown>,
  written: Written,
  fallbackFile: string | undefined,
): Pending {
  const origin = origins && originOf(origins, problem.segments);
  if (origin) return { ...problem, file: origin.file, segments: origin.path };
  // Without origins (a hook's load): a rule or turn rule is found by the object itself.
  const [section, index] = problem.segments;
  if ((section === "rules" || section === "turn_rules") && typeof index === "number") {
    const entry = (value[section] as unknown[] | undefined)?.[index];
    const where = entry && typeof entry === "object" ? written.get(entry) : undefined;
    if (where) return { ...problem, file: where.file, segments: [section, where.index, ...problem.segments.slice(2)] };
  }
  return { ...problem, file: fallbackFile ?? DEFAULT_FILE };
}
