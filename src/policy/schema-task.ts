/** The task loop's settings: where `verdict run` sends a request and its bounds. */
import { z } from "zod";
import { Duration, HttpUrl, Memory } from "./schema-common.ts";

export const TaskSection = z
  .strictObject({
    endpoint: HttpUrl.describe("OpenAI-compatible chat endpoint (base URL ending in /v1)."),
    model: z.string().min(1),
    key_env: z.string().describe("Environment variable holding the endpoint's API key; empty for none."),
    max_tool_calls: z.number().int().min(1).max(10000),
    run_within: Duration.describe("Time for the whole run."),
    call_within: Duration.describe("Time for one tool call."),
    max_output: Memory.describe("Output kept per stream of a tool call (head and tail)."),
    max_fingerprint_entries: z.number().int().min(1),
    effects: z.enum(["read-only", "workspace", "any"]).describe("What tool calls may change."),
  })
  .describe("verdict run: the task loop.");
