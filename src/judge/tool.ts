/**
 * A tool call's judgment (a file written, read or deleted by the assistant's own tools, a URL fetched,
 * an MCP tool called), the same way as a command's: the tool rules' outright decisions first; then the
 * model the policy names, shown the call as its state, or the rule engine's answers; then the one verdict
 * function (commandVerdict) over whichever answers stand. Logged as subject "tool".
 */
import { logDecision } from "../log/decisions.ts";
import type { LoadedPolicy } from "../policy/load.ts";
import type { Policy } from "../policy/schema.ts";
import { answerToolCall, type JudgedPart, type ToolRuleHit, type ToolRulesAnswer } from "../tools/engine.ts";
import { callText, type ToolCall } from "../tools/types.ts";
import type { CommandAnswers, Verdict, Verdicted } from "../core/answers.ts";
import { cwdKind } from "./cache.ts";
import { digestOf, modelOrRules, projectRootOf, verdictFields, type AnswererName, type Common, type ModelUse } from "./judge.ts";
import type { NotUsedKind } from "../log/decisions.ts";
import { commandQuestions, head, tail, type QuestionSet } from "../core/questions.ts";
import { redact } from "../core/redact.ts";
import { commandVerdict } from "../core/verdict.ts";

export type ToolInput = Common & { call: ToolCall; cwd: string; projectRoot?: string };

export type ToolJudgment = {
  verdict: Verdict;
  line: string;
  answerer: AnswererName;
  answers?: CommandAnswers;
  rule?: ToolRuleHit;
  parts: JudgedPart[];
  /** A safer way the deciding rule knows, for an ask or a deny. */
  suggest?: string;
  modelNotUsed?: string;
  modelNotUsedKind?: NotUsedKind;
  model?: ModelUse;
  rulesVerdict?: Verdict;
  policyDigest: string;
};

/** The exact call, content included: what the cache and approvals bind to. */
function callDigest(call: ToolCall): string {
  return digestOf(JSON.stringify(call));
}

/** What a model reads of a tool call: each part with the facts the rules use, redacted and clipped. */
function toolQuestions(policy: Policy, call: ToolCall, rules: ToolRulesAnswer, cwd: string, projectRoot: string | undefined): QuestionSet {
  const set = commandQuestions(policy, { command: callText(call), cwd, projectRoot });
  const shown = policy.judge.shown;
  const parts = rules.parts.map(({ part, facts }) => {
    const out: Record<string, unknown> = { does: part.kind };
    if (facts.path !== undefined) out.path = tail(redact(facts.path), shown.path);
    if (facts.written !== undefined) out.written_as = tail(redact(facts.written), shown.path);
    if (facts.cls !== undefined) out.path_class = facts.cls;
    if (facts.change !== undefined) out.change = facts.change;
    if (facts.exists !== undefined && part.kind !== "read") out.file_exists = facts.exists;
    if (facts.tracked !== undefined && part.kind !== "read") out.tracked_by_git = facts.tracked;
    if (part.movedFrom !== undefined) out.moved_from = part.movedFrom;
    if (part.added !== undefined) out.lines_added = part.added;
    if (part.removed !== undefined) out.lines_removed = part.removed;
    if (part.content !== undefined) out.new_text = head(redact(part.content), shown.command);
    if (part.url !== undefined) out.url = head(redact(part.url), shown.command);
    if (part.server !== undefined) out.mcp_server = part.server;
    if (part.kind === "mcp" && part.tool !== undefined) out.mcp_tool = part.tool;
    if (part.args !== undefined) out.arguments = head(redact(JSON.stringify(part.args)), shown.command);
    return out;
  });
  const state: Record<string, unknown> = { tool_call: { tool: call.tool, parts }, working_directory: set.state.working_directory };
  if (set.state.project_root !== undefined) state.project_root = set.state.project_root;
  return { ...set, state };
}

function rulesVerdictOf(policy: Policy, rules: ToolRulesAnswer): Verdicted {
  if (!rules.answers) {
    const unknown = rules.unknown.map((index) => rules.parts[index]!.part.kind);
    return {
      verdict: "pass",
      line: `rules: no tool rule knows this call (${[...new Set(unknown)].join(", ")}); left to the usual permission check`,
    };
  }
  return commandVerdict(policy, rules.answers, undefined, "rules");
}

function withSuggestion(judgment: ToolJudgment): ToolJudgment {
  if ((judgment.verdict === "ask" || judgment.verdict === "deny") && judgment.rule?.suggest)
    return { ...judgment, suggest: judgment.rule.suggest };
  return judgment;
}

export async function judgeTool(input: ToolInput, loaded: LoadedPolicy): Promise<ToolJudgment> {
  const { policy, digest } = loaded;
  const env = input.env ?? process.env;
  const startedAt = input.startedAt ?? performance.now();
  const projectRoot = projectRootOf({ command: "", cwd: input.cwd, projectRoot: input.projectRoot }, loaded);
  const text = redact(callText(input.call));
  let rules: ToolRulesAnswer;
  try {
    rules = answerToolCall(input.call, { cwd: input.cwd, projectRoot, ...(env.HOME ? { home: env.HOME } : {}) }, policy);
  } catch (error) {
    // A bug here must not let a call through.
    return finish({
      verdict: "ask",
      line: `rules: the tool rules failed (${(error as Error).message}), so the call is not allowed`,
      answerer: "rules",
      parts: [],
      policyDigest: digest,
      modelNotUsed: "the tool rules failed",
      modelNotUsedKind: "unparsed",
    });
  }

  function finish(judgment: ToolJudgment, status?: number): ToolJudgment {
    const done = withSuggestion(judgment);
    if (input.log !== false) {
      logDecision(
        {
          time: new Date().toISOString(),
          host: input.host,
          event: input.event,
          subject: "tool",
          digest: callDigest(input.call),
          text: head(text, policy.log.text_chars),
          cwd: head(redact(input.cwd), policy.log.text_chars),
          ...verdictFields({ ...done, executed: [] } as never, status, startedAt, digest),
        },
        policy,
        env,
      );
    }
    return done;
  }

  if (rules.decision && rules.rule) {
    return finish({
      verdict: rules.decision,
      line: `rules: ${rules.rule.reason} (rule ${rules.rule.id})`,
      answerer: "rules",
      answers: rules.answers,
      rule: rules.rule,
      parts: rules.parts,
      modelNotUsed: `decided outright by the tool rule ${rules.rule.id}`,
      modelNotUsedKind: "decided",
      policyDigest: digest,
    });
  }
  const byRules = rulesVerdictOf(policy, rules);
  const rulesJudgment: ToolJudgment = {
    ...byRules,
    answerer: "rules",
    answers: rules.answers,
    rule: rules.rule,
    parts: rules.parts,
    policyDigest: digest,
  };
  return modelOrRules(
    rulesJudgment,
    () => {
      const set = toolQuestions(policy, input.call, rules, input.cwd, projectRoot);
      // The cache binds the exact call, content included.
      return { set, keyText: `tool ${callDigest(input.call)} ${JSON.stringify(set.state)}`, kind: cwdKind(input.cwd, projectRoot, env) };
    },
    { loaded, env, startedAt, rulesOnly: input.rulesOnly },
    (answers, provider) => commandVerdict(policy, answers as CommandAnswers, undefined, provider),
    finish,
  );
}
