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
 * Exit status: 0 fine, 1 a policy example does not hold, 2 a usage or policy error.
 */
import { jsonDocument } from "./json.ts";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import schemaText from "../../policy/schema.json" with { type: "text" };
import { toolCall } from "../tools/payload.ts";
import { judgeTool } from "../judge/tool.ts";
import { judgeCommand, judgeTurnEnd } from "../judge/index.ts";
import { formatProblem, loadPolicy, type LoadedPolicy } from "../policy/index.ts";
import { readLayerChain, repoPolicyPath } from "../policy/layers.ts";
import { chainDigest, trust, readTrustStore } from "../policy/trust.ts";
import { nearest } from "../policy/suggest.ts";
import { parseOptions } from "./args.ts";
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
check loads every layer as a hook would, compiles every rule (the embedded default's
too) and proves each rule's match/not_match examples with the rule engine; an untrusted
repository policy with problems is reported (a hook ignores it). test does the same,
then tries the policy's examples. trust refuses a file with any problem.
Exit status: 0 fine, 1 a policy example does not hold (test), 2 a usage or policy error
(a rule that cannot be used or whose examples do not hold, an ignored repository policy).`;

type Flags = { json?: boolean; effective?: boolean; model?: boolean; revoke?: boolean; policy?: string; cwd?: string; help?: boolean };

export async function main(argv: string[]): Promise<number> {
  const parsed = parseOptions(argv, {
    json: { type: "boolean" },
    effective: { type: "boolean" },
    model: { type: "boolean" },
    revoke: { type: "boolean" },
    policy: { type: "string" },
    cwd: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if ("error" in parsed) return usageError(parsed.error, HELP);
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
      return usageError(`unknown policy command ${JSON.stringify(sub)}${suggestSub(sub)}`, HELP);
  }
}

/** `proving`: also prove the default, and list ignored layers' problems (reportIgnored) instead of their one-line warnings. */
function suggestSub(sub: string): string {
  const suggestion = nearest(sub, ["check", "show", "schema", "test", "trust"]);
  return suggestion ? `; did you mean verdict policy ${suggestion}?` : "";
}

function load(file: string | undefined, cwd: string, alone = false, proving = false): LoadedPolicy | undefined {
  const proveDefault = proving;
  const result = loadPolicy({ cwd, file, only: alone ? ["command-line"] : undefined, origins: true, proveDefault });
  if (!result.ok) {
    console.error(`verdict: the policy cannot be used:\n${result.error.message}`);
    return undefined;
  }
  // An ignored layer's problems are listed whole by reportIgnored: its one-line warning would repeat them.
  const ignored = proving ? result.loaded.ignored.map((layer) => `the repository policy ${layer.file} is ignored`) : [];
  for (const warning of result.loaded.warnings)
    if (!ignored.some((start) => warning.startsWith(start))) console.error(`verdict: warning: ${warning}`);
  return result.loaded;
}

/** The problems of untrusted layers that were ignored whole, each with its position; true when there were some. */
function reportIgnored(loaded: LoadedPolicy): boolean {
  for (const layer of loaded.ignored) {
    console.error(
      `verdict: the untrusted repository policy ${layer.file} is ignored for ${layer.problems.length === 1 ? "this problem" : `these ${layer.problems.length} problems`}:`,
    );
    for (const problem of layer.problems) console.error(formatProblem(problem).replace(/^/gm, "  "));
  }
  return loaded.ignored.length > 0;
}

function check(file: string | undefined, cwd: string, alone: boolean): number {
  // Everything, the embedded default's rules and examples included: a hook proves only the layers over it.
  const loaded = load(file, cwd, alone, true);
  if (!loaded) return USAGE_EXIT;
  if (reportIgnored(loaded)) return USAGE_EXIT;
  const files = loaded.layers.flatMap((layer) => layer.files.map((path) => `${layer.name}${layer.trusted ? "" : " (untrusted)"}: ${path}`));
  console.log(`policy ok (digest ${loaded.digest})\n${files.map((line) => `  ${line}`).join("\n")}`);
  return 0;
}

function show(flags: Flags, cwd: string): number {
  const loaded = load(flags.policy, cwd);
  if (!loaded) return USAGE_EXIT;
  if (flags.json) {
    const origins = Object.fromEntries([...(loaded.origins ?? [])].map(([path, origin]) => [path, `${origin.layer}: ${origin.file}`]));
    console.log(
      jsonDocument(
        {
          digest: loaded.digest,
          layers: loaded.layers,
          warnings: loaded.warnings,
          policy: loaded.policy,
          ...(flags.effective ? { origins } : {}),
        },
        2,
      ),
    );
    return 0;
  }
  console.log(`effective policy ${loaded.digest}`);
  for (const layer of loaded.layers)
    console.log(
      `  ${layer.name.padEnd(12)} ${layer.ignored ? "ignored  " : layer.trusted ? "trusted  " : "untrusted"} ${layer.files.join(" <- ")}`,
    );
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
  // Each rule's own examples are proven when the policy loads: one that does not hold is a policy problem (2).
  const loaded = load(flags.policy, cwd, false, true);
  if (!loaded) return USAGE_EXIT;
  reportIgnored(loaded);
  const rulesOnly = flags.model !== true;
  const { commands, turns } = loaded.policy.examples;
  let checked = 0;
  for (const example of commands) {
    const judged = await judgeCommand(
      { command: example.command, cwd: example.cwd ?? cwd, rulesOnly, event: "policy-test", log: false },
      loaded,
    );
    checked++;
    if (judged.verdict !== example.verdict) {
      console.error(
        `verdict: example ${checked} does not hold: ${JSON.stringify(example.command)} should be ${example.verdict}, got ${judged.verdict}\n  ${judged.line}`,
      );
      return 1;
    }
  }
  for (const example of turns) {
    const judged = await judgeTurnEnd({ requests: example.requests, final: example.final, rulesOnly, log: false }, loaded);
    checked++;
    if (judged.verdict !== example.verdict) {
      console.error(
        `verdict: turn example ${checked - commands.length} does not hold: should be ${example.verdict}, got ${judged.verdict}\n  final: ${JSON.stringify(example.final.slice(0, 120))}\n  ${judged.line}`,
      );
      return 1;
    }
  }
  const tools = loaded.policy.examples.tools ?? [];
  for (const example of tools) {
    checked++;
    const call = toolCall(example.tool, example.input);
    if (!call) {
      return usageError(
        `tool example ${checked - commands.length - turns.length}: verdict does not judge the tool ${JSON.stringify(example.tool)}`,
      );
    }
    const judged = await judgeTool({ call, cwd: example.cwd ?? cwd, rulesOnly, event: "policy-test", log: false }, loaded);
    if (judged.verdict !== example.verdict) {
      console.error(
        `verdict: tool example ${checked - commands.length - turns.length} does not hold: ${example.tool} ${JSON.stringify(example.input).slice(0, 120)} should be ${example.verdict}, got ${judged.verdict}\n  ${judged.line}`,
      );
      return 1;
    }
  }
  console.log(
    `${checked} examples hold (${commands.length} commands, ${turns.length} turns, ${tools.length} tool calls; ${rulesOnly ? "rule engine" : "configured answerer"})`,
  );
  return 0;
}

function trustCommand(file: string | undefined, cwd: string, revoke: boolean): number {
  const target = file ? resolve(file) : repoPolicyPath(cwd);
  if (!target || !existsSync(target)) {
    return usageError(
      file
        ? `no such policy file: ${file}`
        : "no repository policy (.verdict/policy.yaml) found from here up to the repository root; name the file to trust",
    );
  }
  const chain = readLayerChain(target);
  if (!revoke) {
    // Trusted, the file could change anything: it must load as a trusted layer would, with every check.
    const result = loadPolicy({ cwd, repoFile: target, trustRepo: true, origins: true });
    if (!result.ok) {
      return usageError(`not trusting ${target}: trusted, it would make the policy unusable:\n${result.error.message}`);
    }
  }
  if (chain.files.length === 0) {
    return usageError(`not trusting ${target}: it cannot be read`);
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
  const extra =
    chain.files.length > 1
      ? ` and the files it extends (${chain.files
          .slice(0, -1)
          .map((part) => part.file)
          .join(", ")})`
      : "";
  console.log(
    `trusting ${own}${extra} at digest ${digest.slice(0, 16)}; recorded in ${store}.\nIf the file changes, it is untrusted again until you run this command once more.`,
  );
  return 0;
}
