/**
 * verdict check-stop: judges a turn's end from the developer's latest
 * requests (oldest first) and the assistant's final message, with the same
 * function the hook adapters use.
 */
import { jsonDocument } from "./json.ts";
import { resolve } from "node:path";
import type { TranscriptFacts } from "../answerers/turn-rules.ts";
import { judgeTurnEnd } from "../judge/judge.ts";
import { loadPolicy } from "../policy/load.ts";
import { parseOptions, type OptionSpec } from "./args.ts";
import { usageError } from "./common.ts";

const HELP = `Usage: verdict check-stop --request TEXT... --final TEXT [options]

Judges whether a turn may end: from the developer's latest requests (oldest
first) and the assistant's final message, how did the turn end? The turn is
refused (deny: the assistant is asked to go on) only when it is at least
judge.thresholds.block_stop_at likely to have stopped early.

  --request TEXT...    a developer request; repeat the flag or give several texts after it
  --final TEXT         the assistant's final message ("-" reads it from stdin)
  --ran COMMAND        a command the turn ran that succeeded (transcript evidence, in order)
  --ran-failed COMMAND a command the turn ran that failed
  --json               print the whole judgment as JSON
  --rules-only         never ask a model (as VERDICT_MODE=rules)
  --policy FILE        a policy layer on top of the others (as VERDICT_POLICY)
  --cwd DIR            where to look for the repository's policy (default: here)

Exit status is the verdict, as for verdict check: 10 pass (the turn may end),
12 deny (the turn should go on); 2 a usage or policy error.`;

/** The exit status of each turn-end verdict: verdict check's codes for the same verdicts. */
const CHECK_STOP_EXIT = { pass: 10, deny: 12 } as const;

type Parsed = {
  requests: string[];
  final?: string;
  commands: TranscriptFacts["commands"];
  json: boolean;
  rulesOnly: boolean;
  policy?: string;
  cwd?: string;
  help: boolean;
};

const OPTIONS: OptionSpec = {
  request: { type: "string", multiple: true, variadic: true },
  final: { type: "string" },
  ran: { type: "string", multiple: true },
  "ran-failed": { type: "string", multiple: true },
  json: { type: "boolean" },
  "rules-only": { type: "boolean" },
  policy: { type: "string" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
};

function parse(argv: string[]): Parsed | string {
  const parsed = parseOptions(argv, OPTIONS);
  if ("error" in parsed) return parsed.error;
  if (parsed.positionals.length > 0) return `unexpected ${JSON.stringify(parsed.positionals[0])}: give each request after --request`;
  const { values } = parsed;
  const ordered = parsed.ordered ?? [];
  return {
    requests: ordered.filter((entry) => entry.name === "request").map((entry) => entry.value),
    final: values.final as string | undefined,
    // --ran and --ran-failed in the order given: the transcript's order.
    commands: ordered
      .filter((entry) => entry.name !== "request")
      .map((entry) => ({ command: entry.value, failed: entry.name === "ran-failed" })),
    json: values.json === true,
    rulesOnly: values["rules-only"] === true,
    policy: values.policy as string | undefined,
    cwd: values.cwd as string | undefined,
    help: values.help === true,
  };
}

export async function main(argv: string[]): Promise<number> {
  // performance.now() counts from the process's start: the deadline does too.
  const startedAt = 0;
  const parsed = parse(argv);
  if (typeof parsed === "string") return usageError(parsed, HELP);
  if (parsed.help) {
    console.log(HELP);
    return 0;
  }
  if (parsed.final === undefined) return usageError("--final is required", HELP);
  if (parsed.requests.length === 0) return usageError("at least one --request is required", HELP);
  const final = parsed.final === "-" ? await Bun.stdin.text() : parsed.final;

  const cwd = resolve(parsed.cwd ?? process.cwd());
  const result = loadPolicy({ cwd, file: parsed.policy });
  if (!result.ok) {
    return usageError(`the policy cannot be used:\n${result.error.message}`);
  }
  const judgment = await judgeTurnEnd(
    {
      requests: parsed.requests,
      final,
      transcript: parsed.commands.length > 0 ? { commands: parsed.commands } : undefined,
      cwd,
      host: "cli",
      event: "check-stop",
      startedAt,
      rulesOnly: parsed.rulesOnly,
    },
    result.loaded,
  );
  if (parsed.json) {
    console.log(jsonDocument(judgment as unknown as Record<string, unknown>, 2));
  } else {
    console.log(`${judgment.verdict}: ${judgment.line}`);
    if (judgment.modelNotUsed && judgment.modelNotUsedKind !== "off" && !judgment.line.includes(judgment.modelNotUsed)) {
      console.log(`  (${judgment.modelNotUsed})`);
    }
  }
  return CHECK_STOP_EXIT[judgment.verdict];
}
