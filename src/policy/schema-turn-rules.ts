/**
 * Rules the rule engine uses to answer "how did this turn end?" offline,
 * from evidence it can check in the final message and the transcript.
 * Rules are tried in order; the first whose every condition holds answers.
 * Where none does, the answer is spread evenly over the endings (pass).
 */
import { z } from "zod";
import { Label, Probability } from "./schema-common.ts";

/**
 * A list of patterns; an item may itself be a list (one level), so a rule can
 * reuse a shared list by YAML alias and add its own: `[*obstacles, 'x']`.
 */
const Patterns = z.array(z.union([z.string().min(1), z.array(z.string().min(1))]));

export const TurnRule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, { message: "a kebab-case rule id" }),
    final_matches: Patterns.optional().describe(
      "Regular expressions (case-insensitive); one must match the final message's own words: fenced code blocks, quoted lines (> ...), inline code and double-quoted text are replaced by placeholders first, so text the message only quotes is no evidence.",
    ),
    final_not_matches: Patterns.optional().describe(
      "Regular expressions (case-insensitive); none may match the final message as written (quotes and code included).",
    ),
    final_tail: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Characters from the end of the final message the patterns above see; the whole message when absent."),
    request_matches: Patterns.optional().describe(
      "Regular expressions (case-insensitive); one must match the developer's latest request. No request known: the rule does not apply.",
    ),
    request_not_matches: Patterns.optional().describe(
      "Regular expressions (case-insensitive); none may match the developer's latest request (holds when no request is known).",
    ),
    last_command: z
      .strictObject({
        matches: Patterns.min(1).describe("Regular expressions (case-insensitive) naming the commands this is about, e.g. test runners."),
        failed: z.boolean().describe("true: the last such command of the turn failed; false: it succeeded."),
      })
      .optional()
      .describe(
        "Evidence from the transcript: the last command of the turn that matches, and whether it failed. No such command: the rule does not apply.",
      ),
    ending: Label.describe("The ending this evidence points to: one of the labels under endings."),
    confidence: Probability.describe("The probability given to that ending; the rest is spread evenly over the others."),
    outright: z
      .boolean()
      .optional()
      .describe(
        "The rule's answer stands even when a model is configured, and no model is asked: for evidence a model is not shown, such as the transcript's commands.",
      ),
    reason: z.string().min(1).describe("Why, in a sentence the user and the assistant read."),
  })
  .describe("An offline rule for judging a turn's end. A rule with no condition never applies.");

export const TurnRulesSection = z.array(TurnRule).describe("Offline rules for turn ends, tried top to bottom.");
