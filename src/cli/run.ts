/**
 * verdict run: carries out a natural-language request with a model that can
 * call one shell tool, checking every call (docs/task.md).
 */
import { redact, redactDeep } from "../core/redact.ts";
import { toolEnvironment } from "../task/environment.ts";
import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { loadPolicy } from "../policy/load.ts";
import { evidencePath, runsDir, writeEvidence, type Evidence } from "../task/evidence.ts";
import { runTask } from "../task/loop.ts";
import { OUTCOME_TABLE, type CancelSignal, type Outcome } from "../task/outcome.ts";
import { resolveSettings, SETTING_FLAGS } from "../task/settings.ts";
import { parseOptions, type OptionSpec } from "./args.ts";
import { jsonDocument } from "./json.ts";
import { usageError } from "./common.ts";

const HELP = `Usage: verdict run [options] "request"

Sends the request, verbatim, to an OpenAI-compatible chat endpoint (Formal AI
by default) that can call one tool, a shell command. Every call is checked by
the effect policy and the judge, runs without a shell, is fingerprinted and,
when it writes, read back. The evidence is written as JSON to
$XDG_STATE_HOME/verdict/runs/ and its path printed.

Options (each overrides the policy's task: key and its VERDICT_TASK_* variable):
  --endpoint URL                   task.endpoint            VERDICT_TASK_ENDPOINT
  --model NAME                     task.model               VERDICT_TASK_MODEL
  --key-env NAME                   task.key_env             VERDICT_TASK_KEY_ENV
  --effects MODE                   task.effects             VERDICT_TASK_EFFECTS (read-only, workspace, any)
  --max-tool-calls N               task.max_tool_calls      VERDICT_TASK_MAX_TOOL_CALLS
  --run-within DURATION            task.run_within          VERDICT_TASK_RUN_WITHIN
  --call-within DURATION           task.call_within         VERDICT_TASK_CALL_WITHIN
  --request-within DURATION        task.request_within      VERDICT_TASK_REQUEST_WITHIN
  --grace DURATION                 task.grace               VERDICT_TASK_GRACE
  --max-output SIZE                task.max_output          VERDICT_TASK_MAX_OUTPUT
  --max-fingerprint-entries N      task.max_fingerprint_entries  VERDICT_TASK_MAX_FINGERPRINT_ENTRIES
  --mirror auto|on|off             task.mirror              VERDICT_TASK_MIRROR
  --no-mirror                      the same as --mirror off
  --policy FILE                    a policy layer on top of the others
  --json                           print the evidence on stdout instead of progress lines
                                   (snake_case keys and schema_version, as every --json)

Exit status:
${OUTCOME_TABLE.map(([status, code, meaning]) => `  ${code.padEnd(19)} ${status}: ${meaning}`).join("\n")}
  2                   a usage or policy error`;

type Parsed = { request: string; json: boolean; policy?: string; flags: Map<string, string> };

const OPTIONS: OptionSpec = {
  ...Object.fromEntries([...SETTING_FLAGS].map((flag) => [flag.slice(2), { type: "string" as const }])),
  "no-mirror": { type: "boolean" },
  policy: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

function parseArgs(argv: string[]): Parsed | { help: true } | { error: string } {
  const parsed = parseOptions(argv, OPTIONS);
  if ("error" in parsed) return parsed;
  const { values } = parsed;
  if (values.help) return { help: true };
  const flags = new Map<string, string>();
  for (const flag of SETTING_FLAGS) {
    const value = values[flag.slice(2)];
    if (typeof value === "string") flags.set(flag, value);
  }
  if (values["no-mirror"]) {
    if (flags.has("--mirror")) return { error: "give --mirror or --no-mirror, not both" };
    flags.set("--mirror", "off");
  }
  const request = parsed.positionals.join(" ").trim();
  if (!request) return { error: "no request given" };
  return { request, json: values.json === true, policy: values.policy as string | undefined, flags };
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if ("help" in parsed) {
    console.log(HELP);
    return 0;
  }
  if ("error" in parsed) return usageError(`run: ${parsed.error}`, 'Usage: verdict run [options] "request" (verdict run --help for more)');
  const env = process.env;
  let cwd: string;
  try {
    cwd = realpathSync(process.cwd());
  } catch (error) {
    return usageError(`run: the working directory cannot be resolved: ${(error as Error).message}`);
  }
  const loaded = loadPolicy({ cwd, file: parsed.policy, env });
  if (!loaded.ok) {
    return usageError(`the policy cannot be used:\n${loaded.error.message}`);
  }
  const resolved = resolveSettings(loaded.loaded.policy.task, env, parsed.flags);
  if (!resolved.ok) return usageError(`run: ${resolved.error}`);
  const { settings } = resolved;

  const runId = randomUUID();
  const startedAt = new Date();
  const started = performance.now();
  const apiKey = settings.keyEnv ? env[settings.keyEnv] || undefined : undefined;
  // Tool calls see an allowlist of verdict's environment, never its keys or anything credential-like.
  const model = loaded.loaded.policy.model;
  const scrubbed = toolEnvironment(env, {
    keyEnvs: [settings.keyEnv, model.jev.key_env, model.openai.key_env],
    pass: loaded.loaded.policy.task.pass_env ?? [],
    set: { ...loaded.loaded.policy.task.env, VERDICT_RUN_ID: runId },
  });
  const toolEnv = scrubbed.env;
  for (const name of scrubbed.withheld)
    console.error(`verdict: run: ${name} is not passed to tool calls: it names or holds a credential (or one of verdict's own keys)`);

  const evidence: Evidence = {
    version: 1,
    kind: "verdict-run",
    runId,
    request: redact(parsed.request),
    cwd,
    startedAt: startedAt.toISOString(),
    endedAt: null,
    durationMs: null,
    endpoint: settings.endpoint,
    model: settings.model,
    keyEnv: settings.keyEnv,
    keySent: apiKey !== undefined,
    policyDigest: loaded.loaded.digest,
    effectsMode: settings.bounds.effects,
    bounds: { ...settings.bounds, from: settings.from },
    fingerprint: { initial: null, final: null },
    steps: [],
    effects: { added: [], removed: [], changed: [], complete: true },
    finalAnswer: null,
    outcome: null,
    evidencePath: evidencePath(runsDir(env), runId, startedAt),
  };

  const abort = new AbortController();
  let caught: CancelSignal | undefined;
  const onSignal = (signal: CancelSignal) => () => {
    if (caught) return;
    caught = signal;
    abort.abort();
  };
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((signal) => [signal, onSignal(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);

  const note = parsed.json ? () => {} : (line: string) => console.log(redact(line));
  note(`verdict run ${runId}: ${settings.endpoint} (model ${settings.model}), effects ${settings.bounds.effects}, in ${cwd}`);
  // The handlers stay until the evidence is written: a late signal must not kill the process before that.
  const outcome: Outcome = await runTask({
    runId,
    request: parsed.request,
    cwd,
    toolEnv,
    bounds: settings.bounds,
    client: { endpoint: settings.endpoint, model: settings.model, apiKey, keyEnv: settings.keyEnv },
    loaded: loaded.loaded,
    mirror: settings.mirror === "on" || (settings.mirror === "auto" && process.stderr.isTTY === true),
    interactive: !parsed.json && process.stdin.isTTY === true && process.stderr.isTTY === true,
    note,
    signal: abort.signal,
    cancelSignal: () => caught,
    deadline: started + settings.bounds.runWithinMs,
    evidence,
  });
  evidence.endedAt = new Date().toISOString();
  evidence.durationMs = Math.round(performance.now() - started);
  let saved = true;
  try {
    writeEvidence(evidence);
  } catch (error) {
    saved = false;
    console.error(`verdict: run: cannot write the evidence to ${evidence.evidencePath}: ${(error as Error).message}`);
  }
  if (parsed.json) {
    // The --json convention of every command (snake_case, schema_version); the file on disk keeps its camelCase (docs/task.md).
    console.log(jsonDocument(redactDeep(evidence) as Record<string, unknown>, 2));
  } else {
    console.log(redact(`${outcome.status} (exit ${outcome.exitCode}): ${outcome.message}`));
    for (const obligation of outcome.remainingObligations) console.log(redact(`  remaining: ${obligation}`));
    if (saved) console.log(`evidence: ${evidence.evidencePath}`);
  }
  for (const [signal, handler] of handlers) process.off(signal, handler);
  return outcome.exitCode;
}
