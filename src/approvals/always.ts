/**
 * "Always": an approval that also writes a rule into a policy layer the
 * person chooses, so the permission is visible, reviewable and revocable
 * like any other rule. The rule allows exactly the approved command line and
 * nothing wider: it matches the program and the whole command, so adding an
 * argument (`rm -rf build ~` after `rm -rf build`) is not covered. It is bound
 * to the project where the call was approved (match.where: its repository
 * root, or the working directory outside a repository): approving `rm b.txt`
 * in one project does not allow it in every folder on the machine.
 *
 * The file is edited with the yaml Document API, so its comments and layout
 * stay; the result is validated as a policy layer before it replaces the
 * file, atomically.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Document, isSeq, parseDocument, type YAMLSeq } from "yaml";
import { repoPolicyPath, repositoryRoot, userPolicyPath } from "../policy/layers.ts";
import type { Policy } from "../policy/schema.ts";
import { checkLayer } from "../policy/validate.ts";
import type { AlwaysRule, Who } from "./decision.ts";
import { short } from "./digest.ts";
import type { ApprovalFacts, Task } from "./task.ts";
import { callKey } from "./task.ts";

export type Layer = "user" | "repo";

/**
 * The rule field that matches a whole command line exactly. The rule
 * language owns it; "always" is offered only while the schema has it.
 */
export const EXACT_FIELD = "command_exact";

/** Whether the rule language can say "exactly this command" (without it, "always" would allow more than was approved). */
export function alwaysSupported(): boolean {
  const probe = {
    id: "probe",
    match: { program: "true", [EXACT_FIELD]: "true" },
    act: "read",
    undo: 0,
    decision: "allow",
    reason: "probe",
  };
  return checkLayer({ rules: [probe] }).length === 0;
}

/** The file of `layer` as seen from `cwd`: the one that exists, or where it would be created. */
export function layerFile(layer: Layer, cwd: string, env: Record<string, string | undefined>): string {
  if (layer === "user") return userPolicyPath(env);
  return repoPolicyPath(cwd) ?? join(repositoryRoot(cwd) ?? cwd, ".verdict", "policy.yaml");
}

export function alwaysRuleId(facts: ApprovalFacts): string {
  const program =
    facts.action.program
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "command";
  return `always-${program}-${short(callKey(facts.action), 10)}`;
}

/** The folder an "always" rule for a call in `cwd` applies in: the repository root, or `cwd` outside a repository. */
export function alwaysWhere(cwd: string): string {
  return repositoryRoot(cwd) ?? cwd;
}

/** The rule "always" writes for an approved task. */
export function alwaysRule(task: Task & ApprovalFacts, by: Who, policy: Policy, now: Date): Record<string, unknown> {
  const answers = task.verdict.answers as { act?: { choice?: string }; undo?: { score?: number }; load?: { score?: number } } | undefined;
  const act = answers?.act?.choice && answers.act.choice in policy.acts ? answers.act.choice : Object.keys(policy.acts)[0]!;
  const level = (score: number | undefined) =>
    typeof score === "number" && Number.isFinite(score) && score >= 0 ? Math.round(score * 100) / 100 : 0;
  return {
    id: alwaysRuleId(task),
    match: { program: task.action.program, [EXACT_FIELD]: task.action.command, where: alwaysWhere(task.action.cwd) },
    act,
    undo: level(answers?.undo?.score),
    load: level(answers?.load?.score),
    decision: "allow",
    reason: `Always allowed by ${by.name} on ${now.toISOString().slice(0, 10)} (approval task ${short(task.id)}).`,
  };
}

/** The first schema problem of a policy layer, as "path: message". */
export function layerProblem(data: unknown): string | undefined {
  const first = checkLayer(data)[0];
  return first ? `${first.path || "(top)"}: ${first.message}` : undefined;
}

export class AlwaysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AlwaysError";
  }
}

/**
 * Adds `rule` at the end of the layer file's rules (creating the file when
 * there is none), unless a rule with its id is already there. Returns where
 * it went. Throws AlwaysError when the file cannot be read as a policy or
 * the result would not be a valid layer.
 */
export function writeAlwaysRule(
  file: string,
  layer: Layer,
  rule: Record<string, unknown>,
  comment: string,
  validate: (layer: unknown) => string | undefined = layerProblem,
): AlwaysRule {
  const exists = existsSync(file);
  let doc: Document;
  if (exists) {
    const text = readFileSync(file, "utf8");
    doc = parseDocument(text);
    if (doc.errors.length > 0)
      throw new AlwaysError(`cannot add the rule to ${file}: it is not valid YAML (${doc.errors[0]!.message.split("\n")[0]})`);
    if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  } else {
    doc = new Document({});
    doc.commentBefore = " verdict policy layer. Rules added by `verdict approvals approve --always` are at the end of rules:.";
  }
  const ruleId = String(rule.id);
  let rules = doc.get("rules");
  if (rules === undefined || rules === null) {
    doc.set("rules", doc.createNode([]));
    rules = doc.get("rules");
  }
  if (!isSeq(rules)) throw new AlwaysError(`cannot add the rule to ${file}: its rules: is not a list`);
  const seq = rules as YAMLSeq;
  const present = seq.items.some((item) => (item as { get?: (key: string) => unknown }).get?.("id") === ruleId);
  if (!present) {
    const node = doc.createNode(rule);
    (node as { commentBefore?: string }).commentBefore = ` ${comment}`;
    seq.items.push(node);
  }
  const problem = validate(doc.toJS());
  if (problem) throw new AlwaysError(`the rule would make ${file} an invalid policy (${problem}); nothing was written`);
  if (!present) {
    // The user's layer is verdict's own file: owner-only, like everything verdict creates (its folder
    // 0700). A repository's layer is the repository's file and keeps its mode.
    const mode = layer === "user" ? 0o600 : exists ? statSync(file).mode & 0o777 : 0o644;
    mkdirSync(dirname(file), { recursive: true, mode: layer === "user" ? 0o700 : 0o777 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, doc.toString({ lineWidth: 0 }), { mode });
    renameSync(temporary, file);
  }
  const match = rule.match as { where?: unknown } | undefined;
  return { layer, file, rule_id: ruleId, ...(typeof match?.where === "string" ? { where: match.where } : {}) };
}
