/**
 * The effect policy: what a tool call may do before it is judged.
 *
 * 1. The line must be one plain command that runs as an argument vector
 *    without a shell. Pipes, lists, redirections, substitutions, expansions,
 *    globs, wrappers and shell builtins are refused, each with a reason that
 *    says what to send instead.
 * 2. The call is classed from the policy's rules: act `read` is a read;
 *    `build`, `edit`, `delete`, `history` (and any other act) are writes;
 *    `system`, `remote` and `unread` are writes that act outside the working
 *    directory; a program no rule knows is unknown. A file tool whose
 *    arguments name what it writes (cp, mv, rm, sed -i ...) is a write
 *    whatever the rules say.
 * 3. The effects mode decides: read-only runs reads only; workspace runs
 *    reads and writes whose every target (or, when the targets are unknown,
 *    every path argument) resolves inside the working directory, links
 *    followed; any runs everything.
 * 4. In every mode, a write that would overwrite, modify or remove an
 *    existing target is refused unless an earlier call in this run read that
 *    target (named it as a read's argument) or wrote it and was verified.
 */
import { realpathSync } from "node:fs";
import { dirname, basename as pathBasename } from "node:path";
import { answerCommandByRules } from "../answerers/rules.ts";
import type { Policy } from "../policy/schema.ts";
import { parseCommandLine } from "../shell/index.ts";
import type { Check } from "./evidence.ts";
import { findShellSyntax } from "./syntax.ts";
import { exists, resolveIn, writePlan, type WritePlan, type WriteTarget } from "./targets.ts";

export type EffectsMode = "read-only" | "workspace" | "any";
type EffectClass = "read" | "write" | "unknown";

type RefusalReason =
  | "empty-command"
  | "unparsable"
  | "shell-syntax"
  | "wrapper"
  | "shell-builtin"
  | "write-not-allowed"
  | "unknown-program"
  | "acts-outside-workspace"
  | "path-outside-workspace"
  | "target-not-observed";

export type EffectContext = {
  /** The working directory, links resolved. */
  cwd: string;
  mode: EffectsMode;
  /** Absolute paths earlier calls in this run read, or wrote and verified. */
  observed: Set<string>;
  policy: Policy;
};

type CallPlan = {
  argv: string[];
  /** Assignments written before the program (`LC_ALL=C sort f`), added to its environment. */
  env: Record<string, string>;
  effectClass: EffectClass;
  act?: string;
  rule?: string;
  write: WritePlan;
  /** Absolute paths a read names: they count as observed once it ran. */
  observes: string[];
};

type EffectDecision =
  | { allowed: true; plan: CallPlan; checks: Check[] }
  | { allowed: false; reason: RefusalReason; message: string; plan?: CallPlan; checks: Check[] };

const OUTSIDE_ACTS = new Set(["system", "remote", "unread"]);
const BUILTINS = new Set([
  "cd",
  "pushd",
  "popd",
  "export",
  "unset",
  "set",
  "alias",
  "unalias",
  "source",
  ".",
  "eval",
  "exec",
  "exit",
  "ulimit",
  "umask",
  "shopt",
  "trap",
  "wait",
  "jobs",
  "fg",
  "bg",
  "declare",
  "local",
  "readonly",
  "let",
]);

export function evaluateEffects(command: string, context: EffectContext): EffectDecision {
  const checks: Check[] = [];
  const refuse = (reason: RefusalReason, message: string, plan?: CallPlan): EffectDecision => {
    checks.push({ name: checkName(reason), passed: false, detail: message, reason });
    return { allowed: false, reason, message, plan, checks };
  };

  if (command.trim() === "") return refuse("empty-command", "the command is empty; send the command line to run");
  const parsed = parseCommandLine(command, { cwd: context.cwd });
  if (!parsed.ok)
    return refuse("unparsable", `the command cannot be parsed (${parsed.error}); send one plain command with balanced quotes`);
  const construct = findShellSyntax(command);
  if (construct) {
    return refuse(
      "shell-syntax",
      `the runner runs one command as an argument vector, without a shell, so it cannot honour ${construct.what}; ${construct.advice}`,
    );
  }
  const commands = parsed.commands;
  if (commands.length === 0) return refuse("empty-command", "the line runs no command; send the command line to run");
  if (commands.length > 1) {
    return refuse(
      "shell-syntax",
      `the line runs ${commands.length} commands, but the runner runs one command per call without a shell; send each as its own tool call`,
    );
  }
  const executed = commands[0]!;
  if (executed.via.length > 0) {
    const wrapper = executed.via[0]!;
    return refuse(
      "wrapper",
      `the line runs ${executed.name} through ${wrapper}; send the command itself (the runner gives each call its own time limit and environment, and runs no shell)`,
    );
  }
  if (executed.redirects.length > 0) {
    return refuse(
      "shell-syntax",
      "the runner runs the command without a shell, so it cannot honour a redirection or a here-document; pass files as arguments",
    );
  }
  if (executed.dynamic || executed.stdinScript !== undefined) {
    return refuse(
      "shell-syntax",
      "the program name or its input comes from an expansion the runner cannot perform; name the program literally",
    );
  }
  if (BUILTINS.has(executed.name)) {
    return refuse(
      "shell-builtin",
      `${executed.name} is a shell builtin that only changes the shell's own state, and the runner has no shell; every call runs in the working directory with the same environment, so name paths relative to it`,
    );
  }
  const argv = executed.argv[0] === executed.program ? executed.argv : [executed.program, ...executed.argv];
  checks.push({ name: "syntax", passed: true, detail: `one command, run as the argument vector ${JSON.stringify(argv)}` });

  const plan = classify(command, argv, executed.env, context);
  checks.push({
    name: "class",
    passed: true,
    detail: `${plan.effectClass}${plan.act ? ` (act ${plan.act}${plan.rule ? `, rule ${plan.rule}` : ""})` : " (no rule knows it)"}`,
    effectClass: plan.effectClass,
    ...(plan.act ? { act: plan.act } : {}),
  });

  const modeRefusal = checkMode(plan, context);
  if (modeRefusal) return refuse(modeRefusal.reason, modeRefusal.message, plan);
  checks.push({ name: "effects-mode", passed: true, detail: modeDetail(plan, context.mode) });

  const unobserved = unobservedTarget(plan, context);
  if (unobserved) {
    const verb = unobserved.kind === "remove" ? "remove" : unobserved.kind === "modify" ? "modify" : "overwrite";
    return refuse(
      "target-not-observed",
      `${argv.join(" ")} would ${verb} ${unobserved.path}, which exists and which no earlier call in this run read; read it first (for example test -e ${unobserved.path} or cat ${unobserved.path}), then send the same command again`,
      plan,
    );
  }
  if (plan.effectClass === "write") {
    checks.push({ name: "observed-before-change", passed: true, detail: observedDetail(plan, context) });
  }
  return { allowed: true, plan, checks };
}

function classify(command: string, argv: string[], env: Record<string, string>, context: EffectContext): CallPlan {
  const answer = answerCommandByRules(command, { cwd: context.cwd }, context.policy);
  const known = answer.parsed && answer.answers !== undefined && answer.unknown.length === 0;
  const act = known && answer.parsed ? answer.answers?.act.choice : undefined;
  const rule = answer.parsed ? answer.rule?.id : undefined;
  const write = writePlan(argv, context.cwd);
  const writesTargets = write.known && write.targets.length > 0;
  let effectClass: EffectClass;
  if (writesTargets) effectClass = "write";
  else if (act === "read") effectClass = "read";
  else if (act !== undefined) effectClass = "write";
  else effectClass = "unknown";
  const observes = effectClass === "read" ? namedPaths(argv, context.cwd) : [];
  return { argv, env, effectClass, ...(act ? { act } : {}), ...(rule ? { rule } : {}), write, observes };
}

function checkMode(plan: CallPlan, context: EffectContext): { reason: RefusalReason; message: string } | undefined {
  const { mode } = context;
  const command = plan.argv.join(" ");
  if (mode === "any") return undefined;
  if (plan.effectClass === "unknown") {
    return {
      reason: "unknown-program",
      message: `no rule of the policy knows ${plan.argv[0]}, so what it changes cannot be bounded; in effects mode ${mode} only commands the policy classifies run (use a common tool, or a run with effects any)`,
    };
  }
  if (plan.effectClass === "read") return undefined;
  if (mode === "read-only") {
    return {
      reason: "write-not-allowed",
      message: `${command} writes${plan.act ? ` (${plan.act})` : ""}, and this run is read-only: only reads may run`,
    };
  }
  if (plan.act && OUTSIDE_ACTS.has(plan.act)) {
    return {
      reason: "acts-outside-workspace",
      message: `${command} acts outside the working directory (${plan.act}), and this run may change only the working directory`,
    };
  }
  const outside =
    plan.write.known && plan.write.targets.length > 0
      ? plan.write.targets.find((target) => !inside(context.cwd, realTarget(target)))?.path
      : namedPaths(plan.argv, context.cwd, true).find((path) => !inside(context.cwd, realPath(path, false)));
  if (outside !== undefined) {
    return {
      reason: "path-outside-workspace",
      message: `${command} would write ${outside}, which is outside the working directory ${context.cwd}; this run may change only paths inside it`,
    };
  }
  return undefined;
}

function unobservedTarget(plan: CallPlan, context: EffectContext): WriteTarget | undefined {
  if (!plan.write.known) return undefined;
  return plan.write.targets.find((target) => target.kind !== "create" && exists(target.absolute) && !context.observed.has(target.absolute));
}

/** After a read ran: the paths it named count as observed. */
export function recordRead(plan: CallPlan, context: EffectContext): void {
  for (const path of plan.observes) context.observed.add(path);
}

/** After a write was verified: its targets count as observed (the run knows what they now hold). */
export function recordWrite(plan: CallPlan, context: EffectContext): void {
  if (plan.write.known) for (const target of plan.write.targets) context.observed.add(target.absolute);
}

/**
 * The paths a command's arguments name, resolved against the working
 * directory: every operand that is not an option, and option values given
 * with `=`. With `pathLike`, only words that look like paths (a slash, `.`,
 * `..` or a leading `~`), and no URLs. A read with no operands names `.`.
 */
function namedPaths(argv: string[], cwd: string, pathLike = false): string[] {
  const words: string[] = [];
  let operands = false;
  for (const arg of argv.slice(1)) {
    if (!operands && arg === "--") {
      operands = true;
      continue;
    }
    if (!operands && arg.startsWith("-") && arg.length > 1) {
      const eq = arg.indexOf("=");
      if (eq > 0 && pathLike) words.push(arg.slice(eq + 1));
      continue;
    }
    words.push(arg);
  }
  const chosen = pathLike
    ? words.filter(
        (word) =>
          !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(word) && (word.includes("/") || word === "." || word === ".." || word.startsWith("~")),
      )
    : words;
  if (!pathLike && chosen.length === 0) return [cwd];
  return chosen.map((word) => resolveIn(cwd, word));
}

/** Where a target really is: links in its parents followed; the target itself followed too unless it is created or removed. */
function realTarget(target: WriteTarget): string {
  return realPath(target.absolute, target.kind === "overwrite" || target.kind === "modify");
}

export function realPath(absolute: string, followLast: boolean): string {
  if (followLast) {
    try {
      return realpathSync(absolute);
    } catch {
      /* does not exist: resolve its parent */
    }
  }
  const parent = dirname(absolute);
  if (parent === absolute) return absolute;
  return `${realPath(parent, true).replace(/\/$/, "")}/${pathBasename(absolute)}`;
}

export function inside(root: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

function modeDetail(plan: CallPlan, mode: EffectsMode): string {
  if (mode === "any") return `effects any: ${plan.effectClass} allowed`;
  if (plan.effectClass === "read") return `effects ${mode}: a read`;
  if (plan.write.known && plan.write.targets.length > 0) {
    return `effects ${mode}: every target inside the working directory (${plan.write.targets.map((t) => `${t.path}: ${t.kind}`).join(", ")})`;
  }
  return `effects ${mode}: targets not known from the arguments; every path argument inside the working directory`;
}

function observedDetail(plan: CallPlan, context: EffectContext): string {
  if (!plan.write.known || plan.write.targets.length === 0) return "no known existing target";
  return plan.write.targets
    .map((target) =>
      !exists(target.absolute)
        ? `${target.path}: does not exist yet`
        : target.kind === "create"
          ? `${target.path}: exists, and is not overwritten`
          : context.observed.has(target.absolute)
            ? `${target.path}: read earlier in this run`
            : `${target.path}: unobserved`,
    )
    .join("; ");
}

function checkName(reason: RefusalReason): string {
  switch (reason) {
    case "write-not-allowed":
    case "unknown-program":
    case "acts-outside-workspace":
    case "path-outside-workspace":
      return "effects-mode";
    case "target-not-observed":
      return "observed-before-change";
    default:
      return "syntax";
  }
}
