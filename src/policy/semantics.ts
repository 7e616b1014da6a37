/**
 * Checks that JSON Schema cannot express: references between sections
 * (a rule's act must be one of the acts), ranges that depend on other
 * values (an undo level must exist).
 */
import type { PolicyProblem } from "./errors.ts";
import type { Policy } from "./schema.ts";
import { nearest } from "./suggest.ts";
import { megabytes } from "../core/units.ts";

type SemanticProblem = Omit<PolicyProblem, "file"> & { segments: (string | number)[] };

/** The references and ranges of a merged policy; patterns are checked per layer (answerers/rules/check.ts). */
export function checkSemantics(policy: Policy): SemanticProblem[] {
  const problems: SemanticProblem[] = [];
  const add = (segments: (string | number)[], problem: Omit<SemanticProblem, "segments" | "path">) =>
    problems.push({ segments, path: segments.join("."), ...problem });
  const acts = Object.keys(policy.acts);
  const endings = Object.keys(policy.endings);
  const undoTop = policy.undo_levels.length - 1;
  const loadTop = policy.load_levels.length - 1;

  const actValues = Object.values(policy.acts);
  if (!actValues.some((act) => act.consequential))
    add(["acts"], {
      message: "no act is consequential, so no command could ever be asked about",
      hint: "mark at least one act consequential: true",
    });
  if (!actValues.some((act) => !act.consequential))
    add(["acts"], {
      message: "every act is consequential, so no command could ever be allowed",
      hint: "mark the ordinary acts consequential: false",
    });
  if (!Object.values(policy.endings).some((ending) => ending.stopped_early)) {
    add(["endings"], {
      message: "no ending is marked stopped_early, so no turn's end could ever be refused",
      hint: "mark one ending stopped_early: true",
    });
  }
  let previous = -1;
  policy.load_levels.forEach((level, index) => {
    const need = megabytes(level.needs);
    if (need < previous)
      add(["load_levels", index, "needs"], {
        message: "a heavier level needs less memory than a lighter one",
        found: level.needs,
        expected: "needs that rise with the level",
      });
    previous = need;
  });

  policy.rules.forEach((rule, index) => {
    if (!policy.acts[rule.act]) {
      const suggestion = nearest(rule.act, acts);
      add(["rules", index, "act"], {
        message: `unknown act ${JSON.stringify(rule.act)}`,
        expected: `one of ${acts.join(", ")}`,
        hint: suggestion ? `did you mean ${JSON.stringify(suggestion)}?` : undefined,
      });
    }
    if (rule.undo > undoTop)
      add(["rules", index, "undo"], { message: "no such undo level", expected: `0 to ${undoTop}`, found: String(rule.undo) });
    if ((rule.load ?? 0) > loadTop)
      add(["rules", index, "load"], { message: "no such load level", expected: `0 to ${loadTop}`, found: String(rule.load) });
  });
  const ruleIds = new Map<string, number>();
  policy.rules.forEach((rule, index) => {
    const first = ruleIds.get(rule.id);
    if (first !== undefined)
      add(["rules", index, "id"], {
        message: `the rule id ${JSON.stringify(rule.id)} is used twice in one layer`,
        hint: "give each rule its own id",
      });
    else ruleIds.set(rule.id, index);
  });

  policy.turn_rules.forEach((rule, index) => {
    if (!policy.endings[rule.ending]) {
      const suggestion = nearest(rule.ending, endings);
      add(["turn_rules", index, "ending"], {
        message: `unknown ending ${JSON.stringify(rule.ending)}`,
        expected: `one of ${endings.join(", ")}`,
        hint: suggestion ? `did you mean ${JSON.stringify(suggestion)}?` : undefined,
      });
    }
  });
  return problems;
}
