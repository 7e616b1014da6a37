/**
 * verdict approvals: list, show, approve, reject, answer and verify approval
 * tasks. Human output by default, `--json` for scripts (one envelope:
 * schema_version, command, status, exit_code, message, code, fix, and the
 * command's data).
 */
import { jsonDocument } from "./json.ts";
import {
  decideTask,
  journalPath,
  readAnchor,
  readJournal,
  settleExpired,
  verifyJournal,
  type DecideRequest,
  type DecideResult,
  type State,
  type TaskEntry,
} from "../approvals/index.ts";
import { fold } from "../approvals/state.ts";
import { describeDecision, decideCommands, listLine, renderTask } from "../approvals/render.ts";
import { findTask, statusOf } from "../approvals/state.ts";
import { short } from "../approvals/digest.ts";
import { SCOPES, type Scope } from "../approvals/task.ts";
import { loadPolicy } from "../policy/index.ts";
import { parseOptions, type OptionSpec } from "./args.ts";
import { USAGE_EXIT } from "./common.ts";

/**
 * Variables a coding assistant sets in the shell its commands run in. A decision typed there would be the
 * assistant approving itself, so approve, reject and answer refuse to run in such a shell. This is a
 * speed bump, not a wall (an assistant can unset them): see docs/approvals.md.
 */
export const ASSISTANT_SHELL_MARKERS = [
  "CLAUDECODE",
  "GEMINI_CLI",
  "CODEX_THREAD_ID",
  "CODEX_SANDBOX",
  "CODEX_SANDBOX_NETWORK_DISABLED",
  "VERDICT_RUN_CALL",
];

const EXIT = { ok: 0, damaged: 1, usage: USAGE_EXIT, callChanged: 5, already: 3, always: 4, notFound: 15 } as const;

const HELP = `Usage: verdict approvals <command> [options]

  list [--all]                      tasks waiting for a decision (--all: every task)
  show ID                           a task exactly as recorded, its digest and its decision
  approve ID [--scope once|task|run] [--always [--layer user|repo]] [--note TEXT] [--digest D]
                                    approve; the scope says which later identical calls it covers
  reject ID --reason TEXT [--digest D]
                                    reject; the assistant is told the reason
  answer ID TEXT                    answer a question task
  verify                            check the journal's hash chain
  request [--wait] [--host NAME] [--session ID] [--cwd DIR] -- COMMAND
                                    put a command to a person as a host that cannot ask
                                    would: allowed (exit 0) once an identical call is
                                    approved, otherwise its task is opened (exit 1);
                                    --wait waits for the decision (prompting at a terminal)

ID is a task id or a unique prefix of it (at least 4 characters). --digest
refuses the decision unless the task still has the digest you were shown.
Options: --json (machine-readable output), --help.
Exit status: 0 done (request: allowed), 1 the journal is damaged (request: not allowed), 2 usage error,
5 the call changed since it was shown, 3 already decided, 4 the "always" rule could not
be written, 15 no such task.`;

type Parsed = { positional: string[]; flags: Map<string, string | true> };

const OPTIONS: OptionSpec = {
  ...Object.fromEntries(
    ["scope", "layer", "note", "reason", "digest", "host", "session", "cwd"].map((name) => [name, { type: "string" as const }]),
  ),
  ...Object.fromEntries(["json", "always", "all", "wait"].map((name) => [name, { type: "boolean" as const }])),
  help: { type: "boolean", short: "h" },
};

function parse(argv: string[]): Parsed | string {
  const parsed = parseOptions(argv, OPTIONS);
  if ("error" in parsed) return parsed.error;
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values)) if (typeof value === "string" || value === true) flags.set(`--${name}`, value);
  return { positional: parsed.positionals, flags };
}

type Envelope = { command: string; exit: number; message: string; code?: string; fix?: string[]; data?: Record<string, unknown> };

function emit(json: boolean, envelope: Envelope, human: string[]): number {
  if (json) {
    const out = {
      schema_version: 1,
      command: `approvals ${envelope.command}`,
      status: envelope.exit === 0 ? "ok" : "error",
      exit_code: envelope.exit,
      message: envelope.message,
      ...(envelope.code ? { code: envelope.code } : {}),
      ...(envelope.fix ? { fix: envelope.fix } : {}),
      ...envelope.data,
    };
    console.log(jsonDocument(out, 2));
  } else if (envelope.exit === 0) {
    if (human.length > 0) console.log(human.join("\n"));
  } else {
    console.error(`verdict: ${envelope.message}`);
    for (const line of human) console.error(line);
    for (const fix of envelope.fix ?? []) console.error(`  ${fix}`);
  }
  return envelope.exit;
}

function entryJson(entry: TaskEntry, now: Date): Record<string, unknown> {
  return { id: entry.task.id, status: statusOf(entry, now), task: entry.task, decision: entry.decision ?? null, used: entry.used };
}

/** The journal's state with overdue tasks settled; read-only (with a warning) when the journal is damaged. */
function current(now: Date): State {
  const journal = readJournal(journalPath());
  if (journal.damage?.kind === "broken") {
    console.error(
      `verdict: warning: the approvals journal ${journal.path} is damaged at line ${journal.damage.line} (${journal.damage.message}); showing the records before it, and nothing can be decided (verdict approvals verify)`,
    );
    return fold(journal.records);
  }
  return settleExpired(process.env, now);
}

function list(all: boolean, json: boolean): number {
  const now = new Date();
  const state = current(now);
  const entries = state.order.filter((entry) => all || statusOf(entry, now) === "open");
  const human: string[] = [];
  if (entries.length === 0) human.push(all ? "no approval tasks yet" : "no task waits for a decision");
  const prompting = entries.filter((e) => !e.task.batched || statusOf(e, now) !== "open");
  const batched = entries.filter((e) => e.task.batched && statusOf(e, now) === "open");
  if (prompting.length > 0) human.push(...prompting.map((e) => listLine(e, now)));
  const runs = [...new Set(batched.map((e) => e.task.session))];
  for (const run of runs) {
    human.push("", `waiting in the batch of ${run} (its prompt budget is used):`);
    human.push(...batched.filter((e) => e.task.session === run).map((e) => `  ${listLine(e, now)}`));
  }
  if (entries.some((e) => statusOf(e, now) === "open"))
    human.push("", "verdict approvals show ID   to see a task; approve ID or reject ID --reason TEXT to decide it");
  const anchor = readAnchor(journalPath());
  if (anchor)
    human.push(
      "",
      `journal head: record ${anchor.seq}, ${anchor.hash.slice(0, 16)} (note it: verdict approvals verify checks the journal against it)`,
    );
  return emit(
    json,
    {
      command: "list",
      exit: 0,
      message: `${entries.length} task${entries.length === 1 ? "" : "s"}`,
      data: { tasks: entries.map((e) => entryJson(e, now)), anchor: anchor ?? null },
    },
    human,
  );
}

function show(id: string, json: boolean): number {
  const now = new Date();
  const state = current(now);
  const found = findTask(state, id);
  if ("error" in found)
    return emit(
      json,
      {
        command: "show",
        exit: found.error === "NOT-FOUND" ? EXIT.notFound : EXIT.usage,
        message: found.message,
        code: found.error,
        fix: ["verdict approvals list --all"],
      },
      [],
    );
  const { entry } = found;
  const human = renderTask(entry, now);
  if (statusOf(entry, now) === "open") human.push("", "To decide:", ...decideCommands(entry).map((c) => `  ${c}`));
  return emit(json, { command: "show", exit: 0, message: `task ${short(entry.task.id)}`, data: entryJson(entry, now) }, human);
}

function decided(command: string, result: DecideResult, json: boolean): number {
  if (!result.ok) {
    const exit =
      result.code === "NOT-FOUND"
        ? EXIT.notFound
        : result.code === "ALREADY-DECIDED"
          ? EXIT.already
          : result.code === "CALL-CHANGED"
            ? EXIT.callChanged
            : result.code === "ALWAYS"
              ? EXIT.always
              : EXIT.usage;
    const fix =
      result.code === "NOT-FOUND"
        ? ["verdict approvals list --all"]
        : result.entry
          ? [`verdict approvals show ${short(result.entry.task.id)}`]
          : undefined;
    return emit(json, { command, exit, message: result.message, code: result.code, ...(fix ? { fix } : {}) }, []);
  }
  const { entry, decision } = result;
  const what = entry.task.kind === "approval" ? entry.task.action.command : entry.task.action.question;
  const human = [`${decision.outcome} task ${short(entry.task.id)}: ${JSON.stringify(what)}`, `  ${describeDecision(decision)}`];
  for (const warning of result.warnings) human.push(`  warning: ${warning}`);
  return emit(
    json,
    {
      command,
      exit: 0,
      message: `${decision.outcome} task ${short(entry.task.id)}`,
      data: { id: entry.task.id, digest: entry.task.digest, decision, warnings: result.warnings },
    },
    human,
  );
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parse(argv);
  const json = argv.includes("--json");
  if (typeof parsed === "string") return emit(json, { command: argv[0] ?? "", exit: EXIT.usage, message: parsed, code: "USAGE" }, [HELP]);
  const { positional, flags } = parsed;
  const [sub, ...args] = positional;
  if (flags.has("--help") || sub === "help") {
    console.log(HELP);
    return 0;
  }
  const usage = (message: string) => emit(json, { command: sub ?? "", exit: EXIT.usage, message, code: "USAGE" }, [HELP]);
  const value = (name: string) => {
    const v = flags.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const allowed: Record<string, string[]> = {
    list: ["--all", "--json"],
    show: ["--json"],
    approve: ["--scope", "--always", "--layer", "--note", "--digest", "--json"],
    reject: ["--reason", "--digest", "--json"],
    answer: ["--json"],
    verify: ["--json"],
    request: ["--wait", "--host", "--session", "--cwd", "--json"],
  };
  if (sub === undefined) return usage("approvals needs a command");
  if (!(sub in allowed)) return usage(`unknown approvals command ${JSON.stringify(sub)}`);
  for (const name of flags.keys()) if (!allowed[sub]!.includes(name)) return usage(`${sub} takes no ${name}`);
  const want = (n: number, what: string) => (args.length === n ? undefined : usage(`${sub} takes ${what}`));
  const marker = ASSISTANT_SHELL_MARKERS.find((name) => process.env[name]);
  if (marker && (sub === "approve" || sub === "reject" || sub === "answer")) {
    return emit(
      json,
      {
        command: sub,
        exit: EXIT.usage,
        message: `this shell belongs to an AI assistant (${marker} is set): a decision must come from a person, in a shell of their own`,
        code: "ASSISTANT-SHELL",
        fix: ["run the same command in a terminal that no assistant started"],
      },
      [],
    );
  }

  try {
    switch (sub) {
      case "list":
        return want(0, "no arguments") ?? list(flags.has("--all"), json);
      case "show":
        return want(1, "one task id") ?? show(args[0]!, json);
      case "verify":
        return want(0, "no arguments") ?? verify(json);
      case "approve": {
        const bad = want(1, "one task id");
        if (bad !== undefined) return bad;
        const scope = value("--scope");
        if (scope !== undefined && !SCOPES.includes(scope as Scope)) return usage(`--scope is one of ${SCOPES.join(", ")}`);
        const layer = value("--layer");
        if (layer !== undefined && layer !== "user" && layer !== "repo") return usage("--layer is user or repo");
        if (layer !== undefined && !flags.has("--always")) return usage("--layer goes with --always");
        const note = value("--note");
        const request: DecideRequest = {
          kind: "approve",
          ...(scope ? { scope: scope as Scope } : {}),
          ...(note ? { note } : {}),
          ...(flags.has("--always") ? { always: true } : {}),
          ...(layer ? { layer: layer as "user" | "repo" } : {}),
        };
        let policy;
        if (flags.has("--always")) {
          const loaded = loadPolicy({ cwd: process.cwd(), env: process.env });
          if (!loaded.ok)
            return emit(
              json,
              {
                command: "approve",
                exit: EXIT.always,
                message: `the policy cannot be loaded, so no rule can be written: ${loaded.error.message}`,
                code: "ALWAYS",
              },
              [],
            );
          policy = loaded.loaded.policy;
        }
        return decided(
          "approve",
          decideTask(request, {
            journal: journalPath(),
            id: args[0]!,
            via: "command-line",
            ...(value("--digest") ? { shownDigest: value("--digest")! } : {}),
            ...(policy ? { policy } : {}),
          }),
          json,
        );
      }
      case "reject": {
        const bad = want(1, "one task id");
        if (bad !== undefined) return bad;
        const reason = value("--reason");
        if (!reason?.trim()) return usage("reject needs --reason TEXT (the assistant is told it)");
        return decided(
          "reject",
          decideTask(
            { kind: "reject", reason },
            {
              journal: journalPath(),
              id: args[0]!,
              via: "command-line",
              ...(value("--digest") ? { shownDigest: value("--digest")! } : {}),
            },
          ),
          json,
        );
      }
      case "request": {
        if (args.length === 0) return usage("request takes the command after --");
        const host = value("--host") ?? "cli";
        if (!/^[a-z][a-z0-9-]*$/.test(host)) return usage("--host is a lowercase name such as codex or cli");
        const { requestCall } = await import("../approvals/request.ts");
        const done = await requestCall(args.join(" "), {
          wait: flags.has("--wait"),
          host,
          ...(value("--session") ? { session: value("--session")! } : {}),
          cwd: value("--cwd") ?? process.cwd(),
        });
        if (!done.ok) return emit(json, { command: "request", exit: EXIT.usage, message: done.message, code: "POLICY" }, []);
        const exit = done.allowed ? 0 : 1;
        const data = {
          allowed: done.allowed,
          reason: done.reason,
          verdict: done.verdict,
          line: done.line,
          ...(done.task ? { task: done.task, digest: done.digest } : {}),
          ...(done.by !== undefined ? { by: done.by } : {}),
        };
        if (json) return emit(true, { command: "request", exit, message: done.reason, data }, []);
        (done.allowed ? console.log : console.error)(`verdict: ${done.allowed ? "allowed" : "not allowed"}: ${done.reason}`);
        return exit;
      }
      case "answer": {
        if (args.length < 2) return usage("answer takes a task id and the answer's text");
        const text = args.slice(1).join(" ");
        return decided("answer", decideTask({ kind: "answer", text }, { journal: journalPath(), id: args[0]!, via: "command-line" }), json);
      }
    }
  } catch (error) {
    const err = error as Error;
    const damaged = err.name === "JournalDamaged";
    return emit(
      json,
      {
        command: sub,
        exit: damaged ? EXIT.damaged : EXIT.usage,
        message: err.message,
        code: damaged ? "JOURNAL-DAMAGED" : "ERROR",
        ...(damaged ? { fix: ["verdict approvals verify"] } : {}),
      },
      [],
    );
  }
  return usage(`unknown approvals command ${JSON.stringify(sub)}`);
}

function verify(json: boolean): number {
  const report = verifyJournal(journalPath());
  const human: string[] = [];
  for (const torn of report.tornKept)
    human.push(
      `note: record ${torn.seq} keeps a torn write of ${torn.length} bytes found at line ${torn.line} (a crash mid-write; kept, not dropped)`,
    );
  if (report.damage) {
    const d = report.damage;
    const message = `${report.path}: line ${d.line} (byte ${d.offset}) is ${d.kind === "torn" ? "torn" : "broken"}: ${d.message}`;
    const fix =
      d.kind === "torn"
        ? ["the next append keeps the torn bytes in a journal.torn record and continues the chain"]
        : [
            `the ${report.records} records before line ${d.line} are intact; keep the file as evidence and move it aside to start a new journal`,
          ];
    return emit(
      json,
      {
        command: "verify",
        exit: EXIT.damaged,
        message,
        code: d.kind === "torn" ? "JOURNAL-TORN" : "JOURNAL-BROKEN",
        fix,
        data: { path: report.path, records: report.records, damage: d, torn_kept: report.tornKept },
      },
      human,
    );
  }
  human.unshift(`ok: ${report.records} record${report.records === 1 ? "" : "s"}, hash chain intact (${report.path})`);
  if (report.anchor)
    human.push(
      `anchor: record ${report.anchor.seq}, head ${report.anchor.hash.slice(0, 16)} (written ${report.anchor.at}); the chain agrees with it`,
    );
  else if (report.records > 0)
    human.push(
      `note: no anchor beside the journal (${report.path}.anchor): a journal cut at its end cannot be told from a shorter one; the next append writes one`,
    );
  return emit(
    json,
    {
      command: "verify",
      exit: 0,
      message: `${report.records} records, chain intact`,
      data: { path: report.path, records: report.records, torn_kept: report.tornKept, anchor: report.anchor ?? null },
    },
    human,
  );
}
