/**
 * A judgment from start to end. For a command: the rule engine's outright
 * decisions first (a line the policy decides outright never reaches a
 * model); then the model the policy names, within `answer_within` of the
 * moment verdict started, or the rule engine when there is none or it fails;
 * then the verdict math over whichever answers stand. A turn's end goes the
 * same way with the endings question and the turn rules. Every judgment is
 * appended to the decision log, with why a model was not used when it was
 * not.
 */
import { answerCommandByRules, type RuleHit } from "../answerers/rules.ts";
import { forgetProbes } from "../answerers/rules/probe.ts";
import type { TranscriptFacts, TurnRuleHit } from "../answerers/turn-rules.ts";
import { logDecision, type DecisionRecord, type ModelFacts, type NotUsedKind } from "../log/decisions.ts";
import type { LoadedPolicy } from "../policy/load.ts";
import { repositoryRoot } from "../policy/layers.ts";
import type { Policy } from "../policy/schema.ts";
import { durationMs } from "../core/units.ts";
import { resolve } from "node:path";
import type { ExecutedCommand } from "../shell/index.ts";
import {
  stricter,
  type ChoiceAnswer,
  type CommandAnswers,
  type EndingAnswers,
  type ScoreAnswer,
  type Verdict,
  type Verdicted,
} from "../core/answers.ts";
import type { CacheLimits } from "./cache.ts";
import { availableMemoryMb } from "./memory.ts";
import { commandQuestions, head, tail, turnQuestions, type ModelReply, type QuestionSet } from "../core/questions.ts";
import { redact } from "../core/redact.ts";
import { commandVerdict, neededMb, turnEndVerdict } from "../core/verdict.ts";

// Initialised only on the paths that use them (about 1 M instructions that a rule-path hook need not
// pay): the model clients and the answer cache when a model is asked, the turn rules for a turn's end.
const jevClient = () => require("../answerers/jev.ts") as typeof import("../answerers/jev.ts");
const openaiClient = () => require("../answerers/openai.ts") as typeof import("../answerers/openai.ts");
const answerCache = () => require("./cache.ts") as typeof import("./cache.ts");
const turnRules = () => require("../answerers/turn-rules.ts") as typeof import("../answerers/turn-rules.ts");

export type AnswererName = "rules" | "jev" | "openai";
export type Env = Record<string, string | undefined>;
export type { TranscriptFacts } from "../answerers/turn-rules.ts";

/** What every judgment may be told besides its subject. */
export type Common = {
  /** The host that asked (claude, codex, gemini, cursor, cli, run) and its event, for the log. */
  host?: string;
  event?: string;
  /** `performance.now()` when verdict started: the model's deadline counts from here. Default: now. */
  startedAt?: number;
  /** Force the rule engine (--rules-only, VERDICT_MODE=rules). */
  rulesOnly?: boolean;
  /** The environment to read keys and directories from; process.env by default. */
  env?: Env;
  /** false: do not append to the decision log (policy tests, benchmarks). */
  log?: boolean;
};

type CommandInput = Common & {
  command: string;
  cwd: string;
  projectRoot?: string;
};

/** What the model call was and cost, when a model was asked or its cached answer used. */
export type ModelUse = {
  provider: "jev" | "openai";
  model: string;
  cached: boolean;
  latencyMs: number;
  attempts: number;
  usage?: { input_tokens?: number; output_tokens?: number };
  requestIds: string[];
  /** Said of the answers, e.g. one-hot because the endpoint gave no log-probabilities. */
  note?: string;
};

export type CommandJudgment = {
  verdict: Verdict;
  line: string;
  answerer: AnswererName;
  answers?: CommandAnswers;
  rule?: RuleHit;
  executed: ExecutedCommand[];
  /** Why no model answered, when none did. */
  modelNotUsed?: string;
  modelNotUsedKind?: NotUsedKind;
  model?: ModelUse;
  /** The rule engine's verdict, when a model's answers decided instead. */
  rulesVerdict?: Verdict;
  policyDigest: string;
};

type TurnInput = Common & {
  /** The developer's latest requests, oldest first. */
  requests: string[];
  /** The assistant's final message. */
  final: string;
  /** What the transcript shows of the turn; absent when it could not be read. */
  transcript?: TranscriptFacts;
  cwd?: string;
};

export type TurnJudgment = {
  verdict: Extract<Verdict, "pass" | "deny">;
  line: string;
  answerer: AnswererName;
  answers?: EndingAnswers;
  rule?: TurnRuleHit;
  modelNotUsed?: string;
  modelNotUsedKind?: NotUsedKind;
  model?: ModelUse;
  rulesVerdict?: Verdict;
  policyDigest: string;
};

/** Which answerer runs, or why none but the rules. */
type Selection = { provider: "jev" | "openai" } | { off: string };

export function selectAnswerer(policy: Policy, env: Env, rulesOnly?: boolean): Selection {
  if (rulesOnly) return { off: "rules only (--rules-only)" };
  if (env.VERDICT_MODE === "rules") return { off: "rules only (VERDICT_MODE=rules)" };
  if (policy.judge.answerer === "rules") return { off: "rules only (judge.answerer is rules)" };
  const provider = policy.model.provider;
  const endpoint = policy.model[provider];
  // An OpenAI-compatible endpoint on loopback needs no key (openaiKey).
  const keyless = provider === "openai" && openaiClient().isLoopbackUrl(endpoint.base_url);
  if (policy.judge.answerer === "auto" && endpoint.key_env && !env[endpoint.key_env] && !keyless) {
    return { off: `no model configured: ${endpoint.key_env} is not set` };
  }
  return { provider };
}

export function digestOf(text: string): string {
  // The one-shot form: the same SHA-256, without a hasher object (cheaper on a hook's single call).
  return (Bun.SHA256.hash(text, "hex") as string).slice(0, 16);
}

/** The deadline as `performance.now()`: answer_within after verdict started. */
function deadlineOf(policy: Policy, startedAt: number): number {
  return startedAt + durationMs(policy.judge.answer_within);
}

type Asked = { reply: ModelReply; cached: boolean };

/** Asks the provider, or reads an identical judgment's answers from the cache. */
async function ask(
  provider: "jev" | "openai",
  set: QuestionSet,
  keyText: string,
  kind: string | undefined,
  loaded: LoadedPolicy,
  env: Env,
  deadline: number,
): Promise<Asked> {
  const { policy } = loaded;
  const { cacheDir, cacheKey, readCached, writeCached } = answerCache();
  const endpoint = policy.model[provider];
  const limits: CacheLimits = { maxEntries: policy.model.cache.max_entries, maxAgeMs: durationMs(policy.model.cache.max_age) };
  const dir = cacheDir(env);
  const base = provider === "jev" && env.TYPESAFE_BASE_URL ? env.TYPESAFE_BASE_URL : endpoint.base_url;
  const key = cacheKey({
    subject: set.subject,
    text: keyText,
    cwdKind: kind,
    policyDigest: loaded.digest,
    provider,
    model: endpoint.model,
    endpoint: base,
  });
  const hit = readCached(dir, key, limits);
  if (hit) {
    return {
      cached: true,
      reply: {
        ok: true,
        answers: hit.answers,
        model: hit.model,
        usage: undefined,
        requestIds: hit.requestIds,
        attempts: 0,
        ms: 0,
        note: hit.note,
      },
    };
  }
  // The model clients only now: a cached answer costs what the rule path costs (issue 14).
  const options = { policy, env, deadline };
  const reply = provider === "jev" ? await jevClient().askJev(set, options) : await openaiClient().askOpenAI(set, options);
  if (reply.ok) {
    writeCached(
      dir,
      {
        key,
        storedAt: Date.now(),
        provider,
        model: reply.model,
        answers: reply.answers,
        usage: reply.usage,
        requestIds: reply.requestIds,
        note: reply.note,
      },
      limits,
    );
  }
  return { reply, cached: false };
}

function modelUse(provider: "jev" | "openai", asked: Asked): ModelUse {
  const { reply } = asked;
  return {
    provider,
    model: reply.ok ? reply.model : "",
    cached: asked.cached,
    latencyMs: Math.round(reply.ms * 10) / 10,
    attempts: reply.attempts,
    usage: reply.ok ? reply.usage : undefined,
    requestIds: reply.requestIds,
    note: reply.ok ? reply.note : undefined,
  };
}

/** A failed reply as the sentence the user and the log read. */
function whyNot(provider: string, reply: Extract<ModelReply, { ok: false }>, policy: Policy): string {
  const said = reply.kind === "timeout" ? `no answer within ${policy.judge.answer_within}` : reply.reason;
  return `${provider} not used: ${said}`;
}

function modelFacts(use: ModelUse | undefined, status?: number): ModelFacts | undefined {
  if (!use) return undefined;
  return {
    provider: use.provider,
    model: use.model,
    cached: use.cached,
    latency_ms: use.latencyMs,
    attempts: use.attempts,
    usage: use.usage,
    request_ids: use.requestIds.length > 0 ? use.requestIds : undefined,
    status,
    note: use.note,
  };
}

function loggedAnswers(answers: CommandAnswers | EndingAnswers | undefined): Record<string, ChoiceAnswer | ScoreAnswer> | undefined {
  if (!answers) return undefined;
  const round = (p: number) => Math.round(p * 10000) / 10000;
  return Object.fromEntries(
    Object.entries(answers).map(([id, answer]) => {
      if ("choice" in answer) {
        return [
          id,
          {
            ...answer,
            confidence: round(answer.confidence),
            probabilities: Object.fromEntries(Object.entries(answer.probabilities).map(([label, p]) => [label, round(p)])),
          },
        ];
      }
      return [
        id,
        { ...answer, score: round(answer.score), ...(answer.probabilities ? { probabilities: answer.probabilities.map(round) } : {}) },
      ];
    }),
  );
}

/** How the line the user reads ends, by verdict. */
const ENDINGS: Record<Verdict, string> = { allow: "allowed", pass: "left to the usual permission check", ask: "asked", deny: "denied" };

/**
 * The rule engine's verdict on a command: the strictest of its parts' (the engine's), made
 * stricter still when the machine has too little memory for the heaviest part.
 */
function rulesCommandVerdict(
  policy: Policy,
  rules: Extract<ReturnType<typeof answerCommandByRules>, { parsed: true }>,
  memory: (answers: CommandAnswers) => number | undefined,
): Verdicted {
  const verdicted: Verdicted = { verdict: rules.verdict, line: `rules: ${rules.line}; ${ENDINGS[rules.verdict]}` };
  if (!rules.answers) return verdicted;
  const mb = memory(rules.answers);
  if (mb === undefined || mb >= neededMb(policy, rules.answers.load.score)) return verdicted;
  const short = commandVerdict(policy, rules.answers, mb, "rules");
  return stricter(short.verdict, verdicted.verdict) === verdicted.verdict ? verdicted : short;
}

/** Repository roots by working directory, for the judgments of one process (a --stdin batch, policy test). */
const roots = new Map<string, string | undefined>();

/**
 * Forget what judgments so far found on disk (repository roots, the git index, where links lead): a
 * resident judge's next hook looks again, as a hook's own process would.
 */
export function forgetDiskFacts(): void {
  roots.clear();
  forgetProbes();
}

/** The project a command runs in: the caller's, else the repository of its own working directory. */
export function projectRootOf(input: CommandInput, loaded: LoadedPolicy): string | undefined {
  if (input.projectRoot !== undefined) return input.projectRoot;
  // The policy was loaded from this directory, so its repository is known already (the hook's case).
  if (loaded.cwd !== undefined && resolve(loaded.cwd) === resolve(input.cwd)) return loaded.repositoryRoot;
  if (!roots.has(input.cwd)) roots.set(input.cwd, repositoryRoot(input.cwd));
  return roots.get(input.cwd);
}

/** What a decision record says of any judgment, a command's or a turn's: the verdict, who answered, and how. */
export function verdictFields(judgment: CommandJudgment | TurnJudgment, status: number | undefined, startedAt: number, digest: string) {
  return {
    verdict: judgment.verdict,
    line: redact(judgment.line),
    answerer: judgment.answerer,
    rule: judgment.rule?.id,
    answers: loggedAnswers(judgment.answers),
    rules_verdict: judgment.rulesVerdict,
    model_not_used: judgment.modelNotUsed === undefined ? undefined : redact(judgment.modelNotUsed),
    model_not_used_kind: judgment.modelNotUsedKind,
    model: modelFacts(judgment.model, status),
    latency_ms: Math.round((performance.now() - startedAt) * 10) / 10,
    policy_digest: digest,
  };
}

/** What a command's and a tool call's judgments share: the fields modelOrRules fills. */
type Judged = {
  verdict: Verdict;
  line: string;
  answerer: AnswererName;
  answers?: CommandAnswers | EndingAnswers;
  modelNotUsed?: string;
  modelNotUsedKind?: NotUsedKind;
  model?: ModelUse;
  rulesVerdict?: Verdict;
};

/** What the model is asked: built only when a model is used. */
type ModelQuestion = { set: QuestionSet; keyText: string; kind: string | undefined };

/**
 * The end of a judgment (a command's, a tool call's, a turn's end), once the rules have given theirs: the
 * rules' judgment stands when no model is used or its answer fails (saying why); otherwise `verdictOf`,
 * the verdict function over the model's answers, decides, with the rules' verdict kept beside it.
 */
export async function modelOrRules<J extends Judged>(
  rulesJudgment: J,
  question: () => ModelQuestion,
  context: { loaded: LoadedPolicy; env: Env; startedAt: number; rulesOnly?: boolean },
  verdictOf: (answers: NonNullable<J["answers"]>, provider: "jev" | "openai") => Pick<J, "verdict" | "line"> & Partial<J>,
  finish: (judgment: J, status?: number) => J,
): Promise<J> {
  const { policy } = context.loaded;
  const selection = selectAnswerer(policy, context.env, context.rulesOnly);
  if ("off" in selection) return finish({ ...rulesJudgment, modelNotUsed: selection.off, modelNotUsedKind: "off" });

  const provider = selection.provider;
  const { set, keyText, kind } = question();
  const asked = await ask(provider, set, keyText, kind, context.loaded, context.env, deadlineOf(policy, context.startedAt));
  const use = modelUse(provider, asked);
  if (!asked.reply.ok) {
    const why = whyNot(provider, asked.reply, policy);
    return finish(
      { ...rulesJudgment, line: `${rulesJudgment.line} (${why})`, modelNotUsed: why, modelNotUsedKind: asked.reply.kind, model: use },
      asked.reply.status,
    );
  }
  const answers = asked.reply.answers as unknown as NonNullable<J["answers"]>;
  const verdicted = verdictOf(answers, provider);
  return finish({
    ...rulesJudgment,
    ...verdicted,
    line: use.note ? `${verdicted.line} (${use.note})` : verdicted.line,
    answerer: provider,
    answers,
    model: use,
    rulesVerdict: rulesJudgment.verdict,
  });
}

export async function judgeCommand(input: CommandInput, loaded: LoadedPolicy): Promise<CommandJudgment> {
  const { policy, digest } = loaded;
  const env = input.env ?? process.env;
  const startedAt = input.startedAt ?? performance.now();
  const projectRoot = projectRootOf(input, loaded);
  // Memory is read only when it can change the verdict (answers whose load needs some): reading it
  // costs more than judging a simple line.
  let measured: number | undefined | null = null;
  const availableMb = () => (measured === null ? (measured = availableMemoryMb()) : measured);
  const memory = (answers: CommandAnswers) => (neededMb(policy, answers.load.score) > 0 ? availableMb() : undefined);
  const rules = answerCommandByRules(input.command, { cwd: input.cwd, projectRoot }, policy);
  const redacted = redact(input.command);

  const finish = (judgment: CommandJudgment, status?: number): CommandJudgment => {
    if (input.log !== false) {
      // Logged when the verdict consulted it (a load level that needs memory): /proc/meminfo is not read for the log alone.
      const mb = measured === null ? undefined : measured;
      const record: DecisionRecord = {
        time: new Date().toISOString(),
        host: input.host,
        event: input.event,
        subject: "command",
        digest: digestOf(redacted),
        text: head(redacted, policy.log.text_chars),
        cwd: head(redact(input.cwd), policy.log.text_chars),
        ...verdictFields(judgment, status, startedAt, digest),
        available_mb: mb === undefined ? undefined : Math.round(mb),
      };
      logDecision(record, policy, env);
    }
    return judgment;
  };

  if (!rules.parsed) {
    return finish({
      verdict: "ask",
      line: `rules: the line cannot be parsed, so it is not allowed: ${rules.error}`,
      answerer: "rules",
      executed: [],
      modelNotUsed: "the line cannot be parsed, so no answer could allow it",
      modelNotUsedKind: "unparsed",
      policyDigest: digest,
    });
  }
  if (rules.decision && rules.rule) {
    return finish({
      verdict: rules.decision,
      line: `rules: ${rules.line}`,
      answerer: "rules",
      answers: rules.answers,
      rule: rules.rule,
      executed: rules.executed,
      modelNotUsed: `decided outright by the rule ${rules.rule.id}`,
      modelNotUsedKind: "decided",
      policyDigest: digest,
    });
  }

  const byRules = rulesCommandVerdict(policy, rules, memory);
  const rulesJudgment: CommandJudgment = {
    ...byRules,
    answerer: "rules",
    answers: rules.answers,
    rule: rules.rule,
    executed: rules.executed,
    policyDigest: digest,
  };
  return modelOrRules(
    rulesJudgment,
    () => ({
      set: commandQuestions(policy, { command: redacted, redacted: true, cwd: input.cwd, projectRoot }),
      keyText: redacted,
      kind: answerCache().cwdKind(input.cwd, projectRoot, env),
    }),
    { loaded, env, startedAt, rulesOnly: input.rulesOnly },
    (answers, provider) => commandVerdict(policy, answers as CommandAnswers, memory(answers as CommandAnswers), provider),
    finish,
  );
}

export async function judgeTurnEnd(input: TurnInput, loaded: LoadedPolicy): Promise<TurnJudgment> {
  const { policy, digest } = loaded;
  const env = input.env ?? process.env;
  const startedAt = input.startedAt ?? performance.now();
  const redactedFinal = redact(input.final);
  const redactedRequests = input.requests.map(redact);

  const finish = (judgment: TurnJudgment, status?: number): TurnJudgment => {
    if (input.log !== false) {
      const latest = redactedRequests.at(-1);
      logDecision(
        {
          time: new Date().toISOString(),
          host: input.host,
          event: input.event,
          subject: "turn",
          digest: digestOf(JSON.stringify([redactedRequests, redactedFinal])),
          text: tail(redactedFinal, policy.log.text_chars),
          request: latest === undefined ? undefined : head(latest, policy.log.text_chars),
          cwd: input.cwd === undefined ? undefined : redact(input.cwd),
          ...verdictFields(judgment, status, startedAt, digest),
        },
        policy,
        env,
      );
    }
    return judgment;
  };

  const byRules = turnRules().answerTurnByRules({ final: input.final, requests: input.requests, transcript: input.transcript }, policy);
  let rulesVerdicted: Verdicted;
  if (byRules.rule) {
    const verdicted = turnEndVerdict(policy, byRules.answers, "rules");
    rulesVerdicted = { verdict: verdicted.verdict, line: `${verdicted.line} (${byRules.rule.reason})` };
  } else {
    rulesVerdicted = { verdict: "pass", line: "rules: no turn rule is confident; the turn may end" };
  }
  const rulesJudgment: TurnJudgment = {
    verdict: rulesVerdicted.verdict as TurnJudgment["verdict"],
    line: rulesVerdicted.line,
    answerer: "rules",
    answers: byRules.answers,
    rule: byRules.rule,
    policyDigest: digest,
  };
  if (byRules.rule?.outright) {
    return finish({ ...rulesJudgment, modelNotUsed: `decided outright by the turn rule ${byRules.rule.id}`, modelNotUsedKind: "decided" });
  }
  return modelOrRules(
    rulesJudgment,
    () => {
      const set = turnQuestions(policy, { requests: input.requests, final: input.final });
      return { set, keyText: JSON.stringify(set.state), kind: undefined };
    },
    { loaded, env, startedAt, rulesOnly: input.rulesOnly },
    // The model's ending stands alone: the turn rule that matched is the rules' judgment, not this one.
    (answers, provider) => {
      const verdicted = turnEndVerdict(policy, answers as EndingAnswers, provider);
      return { verdict: verdicted.verdict as TurnJudgment["verdict"], line: verdicted.line, rule: undefined };
    },
    finish,
  );
}
