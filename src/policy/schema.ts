/**
 * The policy, written once in zod: the source of the TypeScript types, of
 * `policy/schema.json` for editors, and of the precompiled validator the
 * loader uses on the hot path. Each section that another part of verdict
 * owns lives in its own file and is assembled here.
 */
import { z } from "zod";
import { ApprovalsSection } from "./schema-approvals.ts";
import { Duration, HttpUrl, Label, Memory, Probability } from "./schema-common.ts";
import { HostsSection } from "./schema-hosts.ts";
import { RulesSection } from "./schema-rules.ts";
import { TaskSection } from "./schema-task.ts";
import { ToolCallExample, ToolRulesSection } from "./schema-tool-rules.ts";
import { TurnRulesSection } from "./schema-turn-rules.ts";

const Text = z.string().min(1);

export const Thresholds = z
  .strictObject({
    ask_at_consequential: Probability.describe("Ask when the probability of one consequential act reaches this (one act, not their sum)."),
    ask_at_undo: z.number().min(0).describe("Ask when the expected undo level reaches this."),
    allow_at_ordinary: Probability.describe("Allow when the ordinary acts together reach this probability ..."),
    allow_undo_at_most: z.number().min(0).describe("... and the expected undo level is at most this."),
    block_stop_at: Probability.describe("Refuse a turn's end when it is at least this likely to have stopped early."),
  })
  .describe("The verdict math's thresholds.");

export const Shown = z
  .strictObject({
    command: z.number().int().min(1).describe("Characters of a command a model is shown (from its start)."),
    message: z.number().int().min(1).describe("Characters of a final message a model is shown (from its end)."),
    request: z.number().int().min(1).describe("Characters of each developer request a model is shown."),
    path: z.number().int().min(1).describe("Characters of the working directory and project root a model is shown."),
  })
  .describe("How much text a model is shown; clipped by whole characters.");

const Instructions = z
  .strictObject({
    what_runs: Text.describe("Said with every command question: only what the shell would execute counts."),
    act: Text.describe("The question over acts."),
    undo: Text.describe("The question over undo levels."),
    load: Text.describe("The question over load levels."),
    ending: Text.describe("The question over turn endings."),
  })
  .describe("The words of the questions a model is asked.");

const JudgeSection = z
  .strictObject({
    answerer: z
      .enum(["auto", "model", "rules"])
      .describe("auto: the model when its key is set, the rules otherwise; model: always try the model; rules: never ask a model."),
    answer_within: Duration.describe("How long a judgment waits for a model, from the moment verdict starts."),
    thresholds: Thresholds,
    shown: Shown,
    instructions: Instructions,
  })
  .describe("How a judgment is made.");

const Endpoint = z.strictObject({
  base_url: HttpUrl,
  model: z.string().min(1).describe("The pinned model."),
  key_env: z.string().describe("Environment variable holding the API key; empty for none."),
});

const ModelSection = z
  .strictObject({
    provider: z.enum(["jev", "openai"]).describe("jev: TypeSafe's typed-decision API; openai: any OpenAI-compatible chat endpoint."),
    jev: Endpoint,
    openai: Endpoint.extend({
      logprobs: z.boolean().describe("Ask for token log-probabilities (turn off for endpoints that reject the field)."),
    }),
    cache: z.strictObject({
      max_entries: z.number().int().min(0).describe("Judgments kept on disk; 0 turns the cache off."),
      max_age: Duration,
    }),
  })
  .describe("The typed-decision model.");

const Act = z.strictObject({
  definition: Text.describe("What the act is, in concrete acts: the text a model chooses by."),
  phrase: Text.describe("How the user reads it: 'deletes or overwrites data nothing regenerates'."),
  consequential: z.boolean().describe("Worth stopping for; the rest are a developer's ordinary work."),
});

const Level = z.strictObject({
  definition: Text.describe("What this level means, with examples: the text a model scores by."),
  phrase: Text.describe("How the user reads it."),
});

const LoadLevel = Level.extend({
  needs: Memory.describe("The memory a command at this level should find available before it starts."),
});

const Ending = z.strictObject({
  definition: Text,
  phrase: Text,
  stopped_early: z.boolean().describe("This ending means work asked for was left undone with no obstacle named."),
});

const CommandExample = z.strictObject({
  command: Text,
  cwd: z.string().optional(),
  verdict: z.enum(["allow", "pass", "ask", "deny"]),
});

const TurnExample = z.strictObject({
  requests: z.array(z.string()).min(1),
  final: z.string(),
  verdict: z.enum(["pass", "deny"]).describe("deny: the turn may not end yet (the host is asked to continue)."),
});

const LogSection = z
  .strictObject({
    max_size: Memory.describe("The decision log rotates when it reaches this size."),
    keep: z.number().int().min(0).describe("Rotated logs kept."),
    text_chars: z.number().int().min(0).describe("Characters of a command or message kept in the log."),
  })
  .describe("The decision log.");

export const Policy = z
  .strictObject({
    version: z.literal(1).describe("The policy language's version."),
    judge: JudgeSection,
    model: ModelSection,
    acts: z.record(Label, Act).describe("What a command can do, most ordinary first. The keys are the labels a model answers with."),
    undo_levels: z.array(Level).min(2).max(10).describe("How hard a command is to undo, lowest first."),
    load_levels: z.array(LoadLevel).min(2).max(10).describe("How heavy a command is, lowest first."),
    endings: z.record(Label, Ending).describe("How a turn can end. The keys are the labels a model answers with."),
    rules: RulesSection,
    turn_rules: TurnRulesSection,
    tool_rules: ToolRulesSection,
    examples: z
      .strictObject({ commands: z.array(CommandExample), turns: z.array(TurnExample), tools: z.array(ToolCallExample).default([]) })
      .describe("Verdicts this policy must give; `verdict policy test` checks them."),
    hosts: HostsSection,
    task: TaskSection,
    approvals: ApprovalsSection,
    log: LogSection,
  })
  .describe("A verdict policy.");

export type Policy = z.output<typeof Policy>;
export type Rule = Policy["rules"][number];
export type TurnRule = Policy["turn_rules"][number];
export type ToolRule = Policy["tool_rules"][number];

/**
 * A layer is a policy with every map key optional, at any depth; lists and
 * the entries of lists stay whole. `extends` names a file this layer builds on.
 */
export const PolicyLayer = (deepPartial(Policy) as z.ZodObject).extend({
  extends: z.string().min(1).optional().describe("A policy file this one builds on, relative to this file."),
});
export type PolicyLayer = z.input<typeof PolicyLayer>;

/** Every object field optional, recursing into objects and records but not lists. */
function deepPartial<T extends z.ZodTypeAny>(schema: T): z.ZodTypeAny {
  if (schema instanceof z.ZodObject) {
    const shape: Record<string, z.ZodTypeAny> = {};
    for (const [key, value] of Object.entries(schema.shape as Record<string, z.ZodTypeAny>)) {
      shape[key] = deepPartial(unwrapOptional(value)).optional();
    }
    const partial = z.strictObject(shape);
    return schema.description ? partial.describe(schema.description) : partial;
  }
  if (schema instanceof z.ZodRecord) {
    const record = z.record(schema.keyType as typeof Label, deepPartial(schema.valueType as z.ZodTypeAny));
    return schema.description ? record.describe(schema.description) : record;
  }
  return schema;
}

function unwrapOptional(schema: z.ZodTypeAny): z.ZodTypeAny {
  return schema instanceof z.ZodOptional || schema instanceof z.ZodDefault ? unwrapOptional(schema.unwrap() as z.ZodTypeAny) : schema;
}
