/**
 * The rules section: how the rule engine recognises a command and which
 * typed answers it gives for it. Rules live in the policy, not in code.
 */
import { z } from "zod";
import { Label, Probability } from "./schema-common.ts";

/** Where a path argument points, as the rule engine classifies it. */
export const PathClass = z.enum(["repo", "build", "temp", "home", "system", "root", "outside", "device"]);

const OneOrMany = z.union([z.string(), z.array(z.string()).min(1)]);

export const RuleMatch = z
  .strictObject({
    program: OneOrMany.describe("Program names (a path's basename counts: /usr/bin/rm is rm)."),
    subcommand: OneOrMany.optional().describe("The first argument that is not an option, e.g. push for git push."),
    flags_any: z.array(z.string()).optional().describe("At least one of these options is given (-rf counts as -r and -f)."),
    flags_all: z.array(z.string()).optional().describe("All of these options are given."),
    flags_none: z.array(z.string()).optional().describe("None of these options is given."),
    args_any: z.array(z.string()).optional().describe("Some argument matches one of these glob patterns."),
    paths_any: z.array(PathClass).optional().describe("Some path argument falls in one of these places."),
    redirect_any: z.array(PathClass).optional().describe("Some output redirect targets one of these places."),
    env_any: z.array(z.string()).optional().describe("One of these environment variables is set on the command."),
  })
  .describe("What a command must look like for the rule to apply; every given field must hold.");

export const Rule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, { message: "a kebab-case rule id such as rm-recursive-home" }),
    match: RuleMatch,
    act: Label.describe("The act the command does: one of the labels under acts."),
    undo: z.number().min(0).describe("How hard it is to undo, on the undo_levels scale (0 = nothing to undo)."),
    load: z.number().min(0).default(0).describe("How heavy it is, on the load_levels scale."),
    confidence: Probability.default(1).describe("How sure the rule is of its act (the rest of the probability is spread)."),
    decision: z.enum(["allow", "ask", "deny"]).optional().describe("An outright verdict regardless of thresholds."),
    reason: z.string().min(1).describe("Why, in a sentence the user reads."),
    examples: z
      .strictObject({
        match: z.array(z.string()).default([]),
        not_match: z.array(z.string()).default([]),
      })
      .optional()
      .describe("Command lines this rule must and must not match; checked when the policy loads."),
  })
  .describe("A rule of the rule engine.");

export const RulesSection = z.array(Rule).describe("Rule engine rules. Stronger layers' rules are tried first; within a file, top to bottom; the first match decides a command.");
