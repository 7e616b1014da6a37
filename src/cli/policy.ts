/**
 * verdict policy: check, show, schema, test, trust.
 *
 *   verdict policy check [FILE]                  load and validate (FILE alone on the default, or the effective layers),
 *                                                compile every rule and try each rule's own examples
 *   verdict policy show [--effective] [--json]   the layers, or the effective policy with the layer that set each value
 *   verdict policy schema                        the JSON Schema of a policy file, for editors
 *   verdict policy test [--model]                check each rule's examples, then the policy's (rule engine unless --model)
 *   verdict policy trust [FILE] [--revoke]       trust a repository policy by its content digest
 *
 * Exit status: 0 fine, 1 an example does not hold, 2 a usage or policy error.
 */
import { jsonDocument } from "./json.ts";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import schemaText from "../../policy/schema.json" with { type: "text" };
import { checkRuleExamples, ruleProblems } from "../answerers/rules.ts";
import { checkToolRuleExamples } from "../tools/examples.ts";
import { toolRuleProblems } from "../tools/rules.ts";
import { toolCall } from "../tools/payload.ts";
import { judgeTool } from "../judge/tool.ts";
import { judgeCommand, judgeTurnEnd } from "../judge/index.ts";
import { loadPolicy, type LoadedPolicy } from "../policy/index.ts";
import { DEFAULT_FILE, DEFAULT_POLICY_TEXT } from "../policy/load.ts";
import { originOf } from "../policy/merge.ts";
import { positionOf } from "../policy/positions.ts";
import { readLayerChain, repoPolicyPath } from "../policy/layers.ts";
import { chainDigest, trust, readTrustStore } from "../policy/trust.ts";
import { USAGE_EXIT, usageError } from "./common.ts";

const HELP = `Usage:
  verdict policy check [FILE] [--policy FILE] [--cwd DIR]
  verdict policy show [--effective] [--json] [--policy FILE] [--cwd DIR]
  verdict policy schema
  verdict policy test [--model] [--policy FILE] [--cwd DIR]
  verdict policy trust [FILE] [--revoke]

Layers, weakest first: the embedded default; $XDG_CONFIG_HOME/verdict/policy.yaml;
.verdict/policy.yaml from the working directory up to the repository root; --policy FILE or VERDICT_POLICY.
A repository policy is not trusted until 'verdict policy trust': until then it may only make verdicts stricter.
check also compiles every rule and tries its own match/not_match examples; test
tries the rules' examples, then the policy's examples.
Exit status: 0 fine, 1 an example does not hold (test), 2 a usage or policy error
(check: also a rule that cannot be used or whose examples do not hold).`;

type Flags = { json?: boolean; effective?: boolean; model?: boolean; revoke?: boolean; policy?: string; cwd?: string; help?: boolean };

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        effective: { type: "boolean" },
        model: { type: "boolean" },
        revoke: { type: "boolean" },
        policy: { type: "string" },
        cwd: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    return usageError((error as Error).message, HELP);
  }
  const flags = parsed.values as Flags;
  const [sub, ...rest] = parsed.positionals;
  if (flags.help || sub === undefined) {
    console.log(HELP);
    return sub === undefined && !flags.help ? USAGE_EXIT : 0;
  }
  const cwd = resolve(flags.cwd ?? process.cwd());
  switch (sub) {
    case "check":
      return check(rest[0] ?? flags.policy, cwd, rest[0] !== undefined);
    case "show":
      return show(flags, cwd);
    case "schema":
      process.stdout.write(schemaText as unknown as string);
      return 0;
    case "test":
      return test(flags, cwd);
    case "trust":
      return trustCommand(rest[0], cwd, flags.revoke === true);
    default:
      return usageError(`unknown policy command ${JSON.stringify(sub)}`, HELP);
  }
}

function load(file: string | undefined, cwd: string, alone = false): LoadedPolicy | undefined {
  const result = loadPolicy({ cwd, file, only: alone ? ["command-line"] : undefined, origins: true });
  if (!result.ok) {
    console.error(`verdict: the policy cannot be used:\n${result.error.message}`);
    return undefined;
  }
  for (const warning of result.loaded.warnings) console.error(`verdict: warning: ${warning}`);
  return result.loaded;
}

/** A problem with one rule of the effective policy, found by the rule engine's own checks. */
type RuleProblem = { index: number; id: string; message: string };

/** Where the effective policy's rule `index` was written: "file:line:column", or the file alone. */
function ruleWhere(loaded: LoadedPolicy, index: number, id: string): string | undefined {
  const origin = loaded.origins && originOf(loaded.origins, ["rules", index]);
  if (!origin) return undefined;
  let text: string;
  try {
    text = origin.file === DEFAULT_FILE ? DEFAULT_POLICY_TEXT : readFileSync(origin.file, "utf8");
  } catch {
    return origin.file;
  }
  // Found by id in its file: an untrusted layer's ignored rules shift the merged positions.
  let path = origin.path;
  try {
    const rules = (Bun.YAML.parse(text) as { rules?: { id?: unknown }[] } | null)?.rules;
    const at = Array.isArray(rules) ? rules.findIndex((rule) => rule?.id === id) : -1;
    if (at !== -1) path = ["rules", at];
  } catch {
    // the loader read it, so it parses; keep the merged path otherwise
  }
  const position = positionOf(text, path);
  return position ? `${origin.file}:${position.line}:${position.column}` : origin.file;
}

/** Reports rule problems one a line, each with where its rule is; true when there were some. */
function reportRuleProblems(loaded: LoadedPolicy, problems: RuleProblem[], heading: (count: number) => string): boolean {
  if (problems.length === 0) return false;
  console.error(`verdict: ${heading(problems.length)}:`);
  for (const problem of problems) {
    const where = ruleWhere(loaded, problem.index, problem.id);
    const message = problem.message.startsWith(`rule ${problem.id}`) ? problem.message : `rule ${problem.id}: ${problem.message}`;
    console.error(`  ${where ? `${where}: ` : ""}${message}`);
  }
  return true;
}

/** The rules' problems the schema cannot see: patterns that do not compile, rules that can match nothing. */
function ruleCheck(loaded: LoadedPolicy): boolean {
  const broken = reportRuleProblems(loaded, ruleProblems(loaded.policy.rules), (n) => (n === 1 ? "a rule cannot be used" : `${n} problems with rules`));
  return reportToolProblems(toolRuleProblems(loaded.policy.tool_rules, Object.keys(loaded.policy.acts)), "cannot be used") || broken;
}

/** Tool rules' problems, one a line with the rule's id (tool_rules are found by id in their file). */
function reportToolProblems(problems: { id: string; message: string }[], what: string): boolean {
  if (problems.length === 0) return false;
  console.error(`verdict: ${problems.length === 1 ? `a tool rule ${what}` : `${problems.length} tool rule problems`}:`);
  for (const problem of problems) console.error(`  ${problem.message.startsWith("tool rule") ? problem.message : `tool rule ${problem.id}: ${problem.message}`}`);
  return true;
}

/** Each rule's own match / not_match examples. */
function exampleCheck(loaded: LoadedPolicy): boolean {
  const failed = reportRuleProblems(loaded, checkRuleExamples(loaded.policy), (n) => (n === 1 ? "a rule's example does not hold" : `${n} rule examples do not hold`));
  return reportToolProblems(checkToolRuleExamples(loaded.policy), "example does not hold") || failed;
}

function check(file: string | undefined, cwd: string, alone: boolean): number {
  const loaded = load(file, cwd, alone);
  if (!loaded) return USAGE_EXIT;
  const broken = ruleCheck(loaded);
  if (exampleCheck(loaded) || broken) return USAGE_EXIT;
  const files = loaded.layers.flatMap((layer) => layer.files.map((path) => `${layer.name}${layer.trusted ? "" : " (untrusted)"}: ${path}`));
  console.log(`policy ok (digest ${loaded.digest})\n${files.map((line) => `  ${line}`).join("\n")}`);
  return 0;
}

function show(flags: Flags, cwd: string): number {
  const loaded = load(flags.policy, cwd);
  if (!loaded) return USAGE_EXIT;
  if (flags.json) {
    const origins = Object.fromEntries([...(loaded.origins ?? [])].map(([path, origin]) => [path, `${origin.layer}: ${origin.file}`]));
    console.log(jsonDocument({ digest: loaded.digest, layers: loaded.layers, warnings: loaded.warnings, policy: loaded.policy, ...(flags.effective ? { origins } : {}) }, 2));
    return 0;
  }
  console.log(`effective policy ${loaded.digest}`);
  for (const layer of loaded.layers) console.log(`  ${layer.name.padEnd(12)} ${layer.trusted ? "trusted  " : "untrusted"} ${layer.files.join(" <- ")}`);
  if (!flags.effective) return 0;
  console.log("");
  const width = Math.min(60, Math.max(...[...(loaded.origins ?? new Map()).keys()].map((key) => key.length)));
  for (const [path, origin] of [...(loaded.origins ?? [])].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))) {
    console.log(`${path.padEnd(width)}  ${JSON.stringify(valueAt(loaded.policy, path)).slice(0, 80)}  [${origin.layer}]`);
  }
  return 0;
}

function valueAt(root: unknown, dotted: string): unknown {
  let node: unknown = root;
  for (const key of dotted.split(".")) node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

async function test(flags: Flags, cwd: string): Promise<number> {
  const loaded = load(flags.policy, cwd);
  if (!loaded) return USAGE_EXIT;
  const rulesOnly = flags.model !== true;
  if (ruleCheck(loaded)) return USAGE_EXIT;
  if (exampleCheck(loaded)) return 1;
  const { commands, turns } = loaded.policy.examples;
  let checked = 0;
  for (const example of commands) {
    const judged = await judgeCommand({ command: example.command, cwd: example.cwd ?? cwd, rulesOnly, event: "policy-test", log: false }, loaded);
    checked++;
    if (judged.verdict !== example.verdict) {
      console.error(`verdict: example ${checked} does not hold: ${JSON.stringify(example.command)} should be ${example.verdict}, got ${judged.verdict}\n  ${judged.line}`);
      return 1;
    }
  }
  for (const example of turns) {
    const judged = await judgeTurnEnd({ requests: example.requests, final: example.final, rulesOnly, log: false }, loaded);
    checked++;
    if (judged.verdict !== example.verdict) {
      console.error(`verdict: turn example ${checked - commands.length} does not hold: should be ${example.verdict}, got ${judged.verdict}\n  final: ${JSON.stringify(example.final.slice(0, 120))}\n  ${judged.line}`);
      return 1;
    }
  }
  const tools = loaded.policy.examples.tools ?? [];
  for (const example of tools) {
    checked++;
    const call = toolCall(example.tool, example.input);
    if (!call) {
      console.error(`verdict: tool example ${checked - commands.length - turns.length}: verdict does not judge the tool ${JSON.stringify(example.tool)}`);
      return USAGE_EXIT;
    }
    const judged = await judgeTool({ call, cwd: example.cwd ?? cwd, rulesOnly, event: "policy-test", log: false }, loaded);
    if (judged.verdict !== example.verdict) {
      console.error(`verdict: tool example ${checked - commands.length - turns.length} does not hold: ${example.tool} ${JSON.stringify(example.input).slice(0, 120)} should be ${example.verdict}, got ${judged.verdict}\n  ${judged.line}`);
      return 1;
    }
  }
  console.log(`${checked} examples hold (${commands.length} commands, ${turns.length} turns, ${tools.length} tool calls; ${rulesOnly ? "rule engine" : "configured answerer"})`);
  return 0;
}

function trustCommand(file: string | undefined, cwd: string, revoke: boolean): number {
  const target = file ? resolve(file) : repoPolicyPath(cwd);
  if (!target || !existsSync(target)) {
    return usageError(file ? `no such policy file: ${file}` : "no repository policy (.verdict/policy.yaml) found from here up to the repository root; name the file to trust");
  }
  const chain = readLayerChain(target);
  if (chain.problems.length > 0) {
    console.error(`verdict: not trusting ${target}: it cannot be read:\n${chain.problems.map((problem) => `  ${problem.message}`).join("\n")}`);
    return USAGE_EXIT;
  }
  const own = chain.files[chain.files.length - 1]!.file;
  if (revoke) {
    const store = readTrustStore(process.env);
    if (!store.files[own]) {
      console.log(`${own} was not trusted`);
      return 0;
    }
    trust(process.env, own, "revoked");
    console.log(`no longer trusting ${own}`);
    return 0;
  }
  const digest = chainDigest(chain.files.map((part) => part.text));
  const store = trust(process.env, own, digest);
  const extra = chain.files.length > 1 ? ` and the files it extends (${chain.files.slice(0, -1).map((part) => part.file).join(", ")})` : "";
  console.log(`trusting ${own}${extra} at digest ${digest.slice(0, 16)}; recorded in ${store}.\nIf the file changes, it is untrusted again until you run this command once more.`);
  return 0;
}
