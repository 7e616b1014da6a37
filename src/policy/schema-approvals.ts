/** How approval tasks wait for a person. */
import { z } from "zod";
import { Duration } from "./schema-common.ts";

export const ApprovalsSection = z
  .strictObject({
    wait_at_most: Duration.describe("How long an approval task waits for a decision."),
    on_expiry: z.enum(["deny"]).describe("What an expired task means: a refusal nobody made."),
    prompts_per_run: z.number().int().min(0).describe("Inline prompts in one run before calls wait in a batch."),
  })
  .describe("Approvals: a person's decisions as journaled tasks.");
