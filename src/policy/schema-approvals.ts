/** How approval tasks wait for a person, where "always" writes its rule, and which hosts wait on tasks. */
import { z } from "zod";
import { Duration } from "./schema-common.ts";

const HostName = z.enum(["claude", "codex", "gemini", "cursor"]);

export const ApprovalsSection = z
  .strictObject({
    wait_at_most: Duration.describe("How long an approval task waits for a decision; past it the task expires."),
    on_expiry: z.enum(["deny"]).describe("What an expired task means: a refusal nobody made (deny is the only choice)."),
    prompts_per_run: z
      .number()
      .int()
      .min(0)
      .describe("Inline prompts in one run of verdict run; after that, calls wait on their task without interrupting (0: never prompt)."),
    hosts_that_cannot_ask: z
      .array(HostName)
      .describe(
        "Hosts whose asks become approval tasks: the hook denies with the command that approves the task, and once it is approved the same call is allowed. Codex CLI and Gemini CLI cannot ask a person; add claude for headless runs.",
      ),
    always_layer: z
      .enum(["user", "repo"])
      .describe(
        "Where approve --always writes its rule unless --layer says otherwise: user ($XDG_CONFIG_HOME/verdict/policy.yaml) or repo (.verdict/policy.yaml; a changed repo policy needs verdict policy trust again).",
      ),
  })
  .describe("Approvals: a person's decisions as journaled tasks.");
