/**
 * verdict check: judges command lines the way a hook would, and says why.
 *
 *   verdict check [--json] [--rules-only] [--cwd DIR] [--policy FILE] -- COMMAND
 *   verdict check --stdin [--json] [--rules-only] [--cwd DIR] [--policy FILE]
 *
 * The exit status is the verdict (see HELP); with --stdin, the strictest
 * verdict among the lines. A single command is written to the decision log
 * (as the hooks' judgments are); a --stdin batch is not, unless --log.
 */
import { jsonDocument } from "./json.ts";
import { resolve } from "node:path";
import { judgeCommand, type CommandJudgment } from "../judge/index.ts";
import { stricter, type Verdict } from "../core/answers.ts";
import type { LoadedPolicy } from "../policy/index.ts";
import { loadPolicyCached } from "../policy/layer-cache.ts";
import { unseenWarnings } from "../policy/warnings.ts";
import { parseOptions } from "./args.ts";
import { usageError } from "./common.ts";
import { fullJit } from "./jit.ts";

/** The exit status of each verdict: distinct, and 0 only for allow. */
export const CHECK_EXIT: Record<Verdict, number> = { allow: 0, pass: 10, ask: 11, deny: 12 };

const HELP = `Usage:
  verdict check [--json] [--rules-only] [--cwd DIR] [--policy FILE] -- COMMAND
  verdict check --stdin [--json] [--rules-only] [--cwd DIR] [--policy FILE]

Judges a command line the way the hooks do: what it would execute, which act
each executed command does, how hard it is to undo and how heavy it is; then
the verdict. COMMAND is one argument (several are joined with spaces).

  --stdin        judge one command per line of standard input; a line that is a
                 JSON object {"command": "...", "cwd": "..."} may hold a
                 multi-line command and its own working directory
  --json         print a JSON object per command (verdict, line, answerer, act,
                 undo, load, rule, executed, unknown, policy digest)
  --rules-only   never ask a model (also VERDICT_MODE=rules); the rule engine
                 answers anyway until a model is configured
  --cwd DIR      the working directory the command runs in (default: here)
  --policy FILE  a policy layer on top of the others (also VERDICT_POLICY)
  --no-log       do not write the judgment to the decision log (a single
                 command is logged by default; see verdict log)
  --log          write each --stdin line's judgment to the decision log

Exit status: 0 allow, 10 pass (no opinion: the host's own check applies),
11 ask, 12 deny; with --stdin, the strictest verdict among the lines.
2 means a usage or policy error.`;

type Flags = {
  json?: boolean;
  "rules-only"?: boolean;
  stdin?: boolean;
  cwd?: string;
  policy?: string;
  help?: boolean;
  log?: boolean;
  "no-log"?: boolean;
};

export async function main(argv: string[]): Promise<number> {
  const startedAt = performance.now();
  const dash = argv.indexOf("--");
  const options = dash === -1 ? argv : argv.slice(0, dash);
  const command = dash === -1 ? undefined : argv.slice(dash + 1);
  const parsed = parseOptions(options, {
    json: { type: "boolean" },
    "rules-only": { type: "boolean" },
    stdin: { type: "boolean" },
    cwd: { type: "string" },
    policy: { type: "string" },
    help: { type: "boolean", short: "h" },
    log: { type: "boolean" },
    "no-log": { type: "boolean" },
  });
  if ("error" in parsed) return usageError(parsed.error, HELP);
  const flags = parsed.values as Flags;
  const positionals = parsed.positionals;
  if (flags.help) {
    console.log(HELP);
    return 0;
  }
  // `verdict check ls -la` without `--`: the words are the command.
  const words = command ?? positionals;
  if (command !== undefined && positionals.length > 0) return usageError(`unexpected ${JSON.stringify(positionals[0])} before --`, HELP);
  if (flags.stdin && words.length > 0) return usageError("give a command after -- or --stdin, not both", HELP);
  if (!flags.stdin && words.length === 0) return usageError("no command to judge: verdict check -- COMMAND, or --stdin", HELP);

  // A batch is unbounded work: let hot loops be compiled (jit.ts).
  if (flags.stdin) fullJit();
  const cwd = resolve(flags.cwd ?? process.cwd());
  const result = loadPolicyCached({ cwd, file: flags.policy });
  if (!result.ok) {
    return usageError(`the policy cannot be used:\n${result.error.message}`);
  }
  const loaded = result.loaded;
  for (const warning of unseenWarnings(loaded)) console.error(`verdict: warning: ${warning}`);
  const rulesOnly = flags["rules-only"] === true;

  if (!flags.stdin) {
    const judged = await judgeOne(words.join(" "), cwd, loaded, rulesOnly, startedAt, flags["no-log"] !== true);
    write(judged, words.join(" "), cwd, flags.json === true);
    return CHECK_EXIT[judged.verdict];
  }

  // The whole input is read before the first line is judged, so output is written in chunks, not a write a line.
  let strictest: Verdict = "allow";
  let out: string[] = [];
  let size = 0;
  const flush = () => {
    if (out.length > 0) console.log(out.join("\n"));
    out = [];
    size = 0;
  };
  for (const item of readItems(await Bun.stdin.text(), cwd)) {
    if ("error" in item) {
      flush();
      return usageError(`line ${item.at}: ${item.error}`);
    }
    const judged = await judgeOne(item.command, item.cwd, loaded, rulesOnly, performance.now(), flags.log === true);
    const text = render(judged, item.command, item.cwd, flags.json === true, true);
    out.push(text);
    size += text.length;
    if (size > 1 << 16) flush();
    strictest = stricter(strictest, judged.verdict);
  }
  flush();
  return CHECK_EXIT[strictest];
}

async function judgeOne(
  command: string,
  cwd: string,
  loaded: LoadedPolicy,
  rulesOnly: boolean,
  startedAt: number,
  log: boolean,
): Promise<CommandJudgment> {
  // Each --stdin line may have its own cwd: judgeCommand finds its project from there, not from where the policy was loaded.
  return judgeCommand({ command, cwd, rulesOnly, startedAt, host: "cli", event: "check", log }, loaded);
}

type Item = { command: string; cwd: string } | { error: string; at: number };

/** The commands of --stdin: a line each, or a JSON object {command, cwd} a line; blank lines skipped. */
function* readItems(text: string, cwd: string): Generator<Item> {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, "");
    if (raw.trim() === "") continue;
    if (!raw.trimStart().startsWith("{")) {
      yield { command: raw, cwd };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON after all: a command that starts with a brace group.
      yield { command: raw, cwd };
      continue;
    }
    const object = value as { command?: unknown; cwd?: unknown };
    if (typeof object !== "object" || object === null || typeof object.command !== "string") {
      yield { error: 'a JSON line needs a "command" string', at: i + 1 };
      return;
    }
    if (object.cwd !== undefined && typeof object.cwd !== "string") {
      yield { error: '"cwd" must be a string', at: i + 1 };
      return;
    }
    yield { command: object.command, cwd: object.cwd === undefined ? cwd : resolve(cwd, object.cwd) };
  }
}

/** Shown of a command in text output: its first line, clipped. */
function shown(command: string): string {
  const first = command.split("\n", 1)[0] as string;
  const clipped = first.length > 200 ? `${first.slice(0, 200)}...` : first;
  return command.includes("\n") || first.length > 200 ? `${clipped} (${command.length} characters)` : clipped;
}

function write(judged: CommandJudgment, command: string, cwd: string, json: boolean): void {
  console.log(render(judged, command, cwd, json));
}

function render(judged: CommandJudgment, command: string, cwd: string, json: boolean, batch = false): string {
  if (json) return jsonDocument(toJson(judged, command, cwd) as unknown as Record<string, unknown>);
  const lines = [`${judged.verdict}: ${judged.line}`];
  if (batch) lines.unshift(`$ ${shown(command)}`);
  if (judged.rule) lines.push(`  rule ${judged.rule.id}, on: ${shown(judged.rule.command.argv.join(" "))}`);
  return lines.join("\n");
}

/** The JSON form of a judgment: what a script needs to act on it and to see why. */
function toJson(judged: CommandJudgment, command: string, cwd: string): Record<string, unknown> {
  const { answers } = judged;
  return {
    verdict: judged.verdict,
    line: judged.line,
    answerer: judged.answerer,
    act: answers
      ? {
          choice: answers.act.choice,
          confidence: answers.act.confidence,
          probabilities: answers.act.probabilities,
          source: answers.act.source,
        }
      : null,
    undo: answers ? answers.undo.score : null,
    load: answers ? answers.load.score : null,
    rule: judged.rule
      ? {
          id: judged.rule.id,
          reason: judged.rule.reason,
          decision: judged.rule.decision ?? null,
          command: judged.rule.command,
          redirect: judged.rule.redirect ?? null,
        }
      : null,
    executed: judged.executed,
    model_not_used: judged.modelNotUsed ?? null,
    rules_verdict: judged.rulesVerdict ?? null,
    policy: judged.policyDigest,
    command,
    cwd,
  };
}
