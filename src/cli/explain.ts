/**
 * verdict explain: how a verdict was reached, step by step, for a person deciding whether to trust it or
 * to write a rule. Nothing is written to the decision log.
 *
 *   verdict explain [--json] [--rules-only] [--cwd DIR] [--policy FILE] -- COMMAND
 *   verdict explain [--json] [--rules-only] [--cwd DIR] [--policy FILE] --tool PAYLOAD.json
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { explainCommand, type CommandExplanation } from "../explain/command.ts";
import { explainTool, type ToolExplanation } from "../explain/tool.ts";
import type { Thresholds } from "../explain/thresholds.ts";
import { judgeCommand } from "../judge/index.ts";
import { judgeTool } from "../judge/tool.ts";
import { projectRootOf } from "../judge/judge.ts";
import { cursor } from "../hosts/cursor.ts";
import { PayloadError } from "../hosts/types.ts";
import { loadPolicy } from "../policy/index.ts";
import { toolCall } from "../tools/payload.ts";
import { TOOL_KINDS, type ToolCall } from "../tools/types.ts";
import { parseOptions } from "./args.ts";
import { CHECK_EXIT } from "./check.ts";
import { usageError } from "./common.ts";

const HELP = `Usage:
  verdict explain [--json] [--rules-only] [--cwd DIR] [--policy FILE] -- COMMAND
  verdict explain [--json] [--rules-only] [--cwd DIR] [--policy FILE] --tool PAYLOAD.json

Shows how the verdict on a command line or a tool call is reached: what
executes (wrappers and substitutions unwrapped), each part's paths with their
classes and what the disk says of them, every rule that matches each part and
the nearest rules that do not (with the fields that fail), the answers, the
thresholds they meet, and the verdict; for an ask or a deny, the safer way the
deciding rule suggests. Nothing is written to the decision log.

  --tool FILE    a tool call instead of a command: a host's hook payload
                 (tool_name and tool_input, as Claude Code, Codex and Gemini CLI
                 send; or a Cursor beforeReadFile / beforeMCPExecution event),
                 or {"tool": NAME, "input": {...}}; - reads standard input
  --json         print the explanation as one JSON object
  --rules-only   never ask a model (also VERDICT_MODE=rules)
  --cwd DIR      the working directory (default: the payload's cwd, or here)
  --policy FILE  a policy layer on top of the others (also VERDICT_POLICY)

Exit status: the verdict's, as verdict check's: 0 allow, 10 pass, 11 ask,
12 deny; 2 means a usage or policy error.`;

type Flags = { json?: boolean; "rules-only"?: boolean; cwd?: string; policy?: string; tool?: string; help?: boolean };

/** A tool call out of a payload file: a host's hook payload, or {tool, input}. */
function callFromPayload(payload: Record<string, unknown>): ToolCall {
  const event = typeof payload.hook_event_name === "string" ? payload.hook_event_name : "";
  if (event === "beforeReadFile" || event === "beforeMCPExecution" || (event === "preToolUse" && "workspace_roots" in payload)) {
    const recognised = cursor.recognise(payload);
    if (recognised.kind === "tool") return recognised.call;
    throw new PayloadError(`the Cursor ${event} event is not a tool call verdict judges`);
  }
  const name = payload.tool_name ?? payload.tool;
  const input = payload.tool_input ?? payload.input ?? {};
  if (typeof name !== "string" || name === "")
    throw new PayloadError('the payload names no tool: give "tool_name" (a host payload) or "tool"');
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new PayloadError("tool_input (or input) is not an object");
  const mcp =
    typeof payload.mcp_context === "object" && payload.mcp_context !== null ? (payload.mcp_context as Record<string, unknown>) : undefined;
  const call = toolCall(name, input as Record<string, unknown>, mcp);
  if (!call)
    throw new PayloadError(
      `verdict does not judge the tool ${JSON.stringify(name)} (it judges the shell, file, fetch and MCP tools: ${TOOL_KINDS.join(", ")})`,
    );
  return call;
}

export async function main(argv: string[]): Promise<number> {
  const dash = argv.indexOf("--");
  const options = dash === -1 ? argv : argv.slice(0, dash);
  const words = dash === -1 ? [] : argv.slice(dash + 1);
  const parsed = parseOptions(options, {
    json: { type: "boolean" },
    "rules-only": { type: "boolean" },
    cwd: { type: "string" },
    policy: { type: "string" },
    tool: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if ("error" in parsed) return usageError(parsed.error, HELP);
  const flags = parsed.values as Flags;
  if (flags.help) {
    console.log(HELP);
    return 0;
  }
  const command = [...parsed.positionals, ...words];
  if (flags.tool !== undefined && command.length > 0) return usageError("give a command after -- or --tool FILE, not both", HELP);
  if (flags.tool === undefined && command.length === 0)
    return usageError("nothing to explain: verdict explain -- COMMAND, or --tool PAYLOAD.json", HELP);

  let call: ToolCall | undefined;
  let payloadCwd: string | undefined;
  if (flags.tool !== undefined) {
    let payload: unknown;
    try {
      const text = flags.tool === "-" ? readFileSync(0, "utf8") : readFileSync(flags.tool, "utf8");
      payload = JSON.parse(text);
    } catch (error) {
      return usageError(`cannot read the tool payload ${flags.tool}: ${(error as Error).message}`);
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload))
      return usageError(`${flags.tool} does not hold a JSON object`);
    try {
      call = callFromPayload(payload as Record<string, unknown>);
    } catch (error) {
      return usageError(`${flags.tool}: ${(error as Error).message}`);
    }
    const p = payload as Record<string, unknown>;
    const roots = Array.isArray(p.workspace_roots) ? p.workspace_roots : [];
    payloadCwd = typeof p.cwd === "string" ? p.cwd : typeof roots[0] === "string" ? roots[0] : undefined;
  }

  const cwd = resolve(flags.cwd ?? payloadCwd ?? process.cwd());
  const result = loadPolicy({ cwd, file: flags.policy });
  if (!result.ok) {
    return usageError(`the policy cannot be used:\n${result.error.message}`);
  }
  const loaded = result.loaded;
  const rulesOnly = flags["rules-only"] === true;
  let explanation: CommandExplanation | ToolExplanation;
  if (call) {
    const judgment = await judgeTool({ call, cwd, rulesOnly, event: "explain", host: "cli", log: false }, loaded);
    explanation = explainTool(call, cwd, loaded.policy, judgment);
  } else {
    const line = command.join(" ");
    const judgment = await judgeCommand({ command: line, cwd, rulesOnly, event: "explain", host: "cli", log: false }, loaded);
    const projectRoot = projectRootOf({ command: line, cwd }, loaded);
    explanation = explainCommand(line, cwd, projectRoot, loaded.policy, judgment);
  }
  console.log(flags.json ? JSON.stringify(explanation, null, 2) : render(explanation));
  return CHECK_EXIT[explanation.verdict as keyof typeof CHECK_EXIT] ?? 10;
}

function pathText(fact: { word?: string; path?: string; class?: string; exists?: boolean; tracked?: boolean }): string {
  const disk =
    fact.exists === undefined
      ? ""
      : fact.exists
        ? fact.tracked
          ? ", exists, tracked by git"
          : ", exists, not tracked"
        : ", does not exist";
  const shown =
    fact.word !== undefined && fact.path !== undefined && fact.word !== fact.path
      ? `${fact.word} (${fact.path})`
      : (fact.path ?? fact.word ?? "");
  return `${shown}: ${fact.class}${disk}`;
}

function nearestText(nearest: { id: string; failing: string[] }[]): string[] {
  return nearest.map((n) => `      ${n.id} (fails on ${n.failing.join(", ")})`);
}

function thresholdLines(t: Thresholds): string[] {
  const v = (value: number | undefined) => (value === undefined ? "-" : String(value));
  return [
    `  ask when a consequential act >= ${t.ask_at_consequential.threshold}: ${v(t.ask_at_consequential.value)}${t.ask_at_consequential.act ? ` (${t.ask_at_consequential.act})` : ""} ${t.ask_at_consequential.met ? "MET" : "not met"}`,
    `  ask when undo >= ${t.ask_at_undo.threshold}: ${v(t.ask_at_undo.value)} ${t.ask_at_undo.met ? "MET" : "not met"}`,
    `  allow when ordinary acts >= ${t.allow_at_ordinary.threshold}: ${v(t.allow_at_ordinary.value)} ${t.allow_at_ordinary.met ? "MET" : "not met"}`,
    `  ... and undo <= ${t.allow_undo_at_most.threshold}: ${v(t.allow_undo_at_most.value)} ${t.allow_undo_at_most.met ? "MET" : "not met"}`,
  ];
}

function answersLines(e: CommandExplanation | ToolExplanation): string[] {
  if (!e.answers) return ["  none: no rule knows every part, and no model answered"];
  const acts = Object.entries(e.answers.act.probabilities)
    .filter(([, p]) => p >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([label, p]) => `${label} ${Math.round(p * 100)}%`)
    .join(", ");
  return [
    `  act: ${acts} (${e.answers.act.source})`,
    `  undo: ${e.answers.undo.score.toFixed(2)}`,
    `  load: ${e.answers.load.score.toFixed(2)}`,
  ];
}

export function render(e: CommandExplanation | ToolExplanation): string {
  const out: string[] = [];
  if (e.subject === "command") {
    out.push(`command: ${e.command}`, `cwd: ${e.cwd}${e.project_root ? ` (project ${e.project_root})` : ""}`, "");
    if (!e.parsed) out.push(`cannot be parsed: ${e.error}`);
    else {
      out.push(e.executed.length === 0 ? "executes: nothing" : "executes:");
      e.executed.forEach((cmd, i) => {
        out.push(
          `  ${i + 1}. ${cmd.argv.join(" ")}${cmd.via.length > 0 ? `   [via ${cmd.via.join(" > ")}]` : ""}${cmd.cwd ? `   [in ${cmd.cwd}]` : ""}`,
        );
        for (const path of cmd.paths) out.push(`     path ${pathText(path)}`);
        for (const r of cmd.redirects)
          out.push(`     redirect ${r.op} ${pathText(r)}${r.rules.length > 0 ? `; rules: ${r.rules.join(", ")}` : ""}`);
        out.push(
          `     rules matching: ${cmd.rules.length > 0 ? cmd.rules.join(", ") : "none"}${cmd.answered_by ? `; answered by ${cmd.answered_by}` : ""}`,
        );
        if (cmd.nearest.length > 0) out.push("     nearest not matching:", ...nearestText(cmd.nearest));
      });
    }
  } else {
    out.push(`tool: ${e.tool}`, `cwd: ${e.cwd}`, "", "parts:");
    e.parts.forEach((part, i) => {
      out.push(`  ${i + 1}. ${part.does}`);
      if (part.path !== undefined)
        out.push(
          `     path ${pathText(part)}${part.written_as ? ` (written as ${part.written_as})` : ""}${part.change ? `; ${part.change}` : ""}`,
        );
      out.push(
        `     rules matching: ${part.rules.length > 0 ? part.rules.join(", ") : "none"}${part.answered_by ? `; answered by ${part.answered_by}` : ""}`,
      );
      if (part.nearest.length > 0) out.push("     nearest not matching:", ...nearestText(part.nearest));
    });
  }
  out.push("", `answers (${e.answerer}):`, ...answersLines(e), "", "thresholds:", ...thresholdLines(e.thresholds), "");
  out.push(`verdict: ${e.verdict}${e.rule ? ` (rule ${e.rule})` : ""}`, `  ${e.line}`);
  if (e.model_not_used) out.push(`  model: ${e.model_not_used}`);
  if (e.suggest) out.push(`suggest: ${e.suggest}`);
  return out.join("\n");
}
