/** The task loop's settings: where `verdict run` sends a request, its bounds, and how its tool calls run. */
import { z } from "zod";
import { Duration, HttpUrl, Memory } from "./schema-common.ts";

/** A variable name a POSIX shell accepts. */
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "a variable name such as CI or NODE_ENV" });

export const TaskSection = z
  .strictObject({
    endpoint: HttpUrl.describe("OpenAI-compatible chat endpoint (base URL ending in /v1)."),
    model: z.string().min(1),
    key_env: z.string().describe("Environment variable holding the endpoint's API key; empty for none."),
    max_tool_calls: z.number().int().min(1).max(10000).describe("Tool calls in one run; one more is budget-exhausted."),
    run_within: Duration.describe("Time for the whole run."),
    call_within: Duration.describe("Time for one tool call (the run's time left caps it too)."),
    request_within: Duration.describe("Time for one request to the endpoint (the run's time left caps it too)."),
    grace: Duration.describe("After a tool call's process group is sent SIGTERM, how long before SIGKILL."),
    max_output: Memory.describe("Output kept per stream of a tool call (head and tail)."),
    max_fingerprint_entries: z.number().int().min(1).describe("Entries of the working directory fingerprinted before and after each call."),
    effects: z.enum(["read-only", "workspace", "any"]).describe("What tool calls may change."),
    mirror: z
      .enum(["auto", "on", "off"])
      .describe("Copy each tool call's output live to verdict's stderr: auto does it when stderr is a terminal."),
    env: z.record(EnvName, z.string()).describe("Variables added to every tool call's environment."),
    pass_env: z
      .array(EnvName)
      .describe(
        "Names of verdict's own environment variables passed on to tool calls besides the allowlist (PATH, HOME, LANG, LC_*, TERM, toolchain variables); credential-like names and verdict's keys are never passed.",
      ),
  })
  .describe("verdict run: the task loop.");

export type TaskSettings = z.infer<typeof TaskSection>;
