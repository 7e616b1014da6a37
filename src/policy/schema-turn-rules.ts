/**
 * Rules the rule engine uses to answer "how did this turn end?" offline,
 * from evidence it can check in the final message and the transcript.
 */
import { z } from "zod";
import { Label, Probability } from "./schema-common.ts";

export const TurnRule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, { message: "a kebab-case rule id" }),
    final_matches: z.array(z.string()).optional().describe("Regular expressions (case-insensitive); one must match the final message."),
    final_not_matches: z.array(z.string()).optional().describe("Regular expressions; none may match the final message."),
    last_test_failed: z.boolean().optional().describe("The transcript's last test command failed."),
    ending: Label.describe("The ending this evidence points to: one of the labels under endings."),
    confidence: Probability.describe("The probability given to that ending; the rest is spread over the others."),
    reason: z.string().min(1),
  })
  .describe("An offline rule for judging a turn's end.");

export const TurnRulesSection = z.array(TurnRule);
