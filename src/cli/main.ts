/**
 * verdict's entry point: routes a command to its file in src/cli/. Each
 * command is imported only when it runs, so a hook pays only for its own.
 */
import { CliError, USAGE_EXIT, printVersion, render } from "./common.ts";
import { fullJit } from "./jit.ts";
import { viaResident } from "../resident/client.ts";

type Command = { summary: string; load: () => Promise<{ main: (argv: string[]) => Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  check: { summary: "judge one command line (or many with --stdin)", load: () => import("./check.ts") },
  explain: { summary: "show how a command's or a tool call's verdict is reached", load: () => import("./explain.ts") },
  "check-stop": { summary: "judge a turn's end from the requests and the final message", load: () => import("./check-stop.ts") },
  hook: { summary: "run as a hook of claude, codex, gemini or cursor", load: () => import("./hook.ts") },
  install: { summary: "add verdict's hooks to a host's settings", load: () => import("./install.ts") },
  uninstall: { summary: "remove verdict's hooks from a host's settings", load: () => import("./uninstall.ts") },
  doctor: { summary: "check that every host's hook works and the model answers", load: () => import("./doctor.ts") },
  run: { summary: "carry out a request with a model, checking every tool call", load: () => import("./run.ts") },
  approvals: { summary: "list, show, approve, reject, answer or verify approval tasks", load: () => import("./approvals.ts") },
  policy: { summary: "check, show, test or trust policies; print the schema", load: () => import("./policy.ts") },
  log: { summary: "show recent decisions or their statistics", load: () => import("./log.ts") },
  resident: { summary: "list or stop the resident judges that answer hooks", load: () => import("./resident.ts") },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return [
    "verdict: judges what an AI coding assistant is about to do, before it does it.",
    "",
    "Usage: verdict <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options: --help (also after a command), --version",
    "Exit status 2 means a usage or policy error; each command documents the rest (see the README's table).",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name === undefined ? USAGE_EXIT : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    await printVersion();
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    const { nearest } = await import("../policy/suggest.ts");
    const suggestion = nearest(name, Object.keys(COMMANDS));
    return render(
      new CliError(
        `unknown command ${JSON.stringify(name)}.${suggestion ? ` Did you mean verdict ${suggestion}?` : ""} Run verdict --help for the list.`,
      ),
    );
  }
  if (name === "hook" && rest.length === 1 && /^[a-z]+$/.test(rest[0]!)) return hook(rest);
  // A hook and a single check are over in milliseconds; every other command may run long (jit.ts).
  if (name !== "hook" && name !== "check") fullJit();
  const module = await command.load();
  return module.main(rest);
}

/**
 * `hook <host>`, as install writes it: a resident judge answers if one runs for processes like this
 * (src/resident/client.ts), loading nothing more; else the hook judges in its own process.
 */
async function hook(argv: string[]): Promise<number> {
  const startedAt = performance.now();
  const resident = await viaResident(argv[0]!, startedAt);
  if (resident.answered) return 0;
  const { main } = await import("./hook.ts");
  return main(argv, { startedAt, resident });
}

// No top-level await: it makes the module asynchronous, which costs about 1.5 ms at every start.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      process.exitCode = render(error);
      return;
    }
    if (error instanceof Error && error.name === "PolicyError") {
      process.exitCode = render(new CliError(`the policy cannot be used:\n${error.message}`, { cause: error }));
      return;
    }
    console.error(`verdict: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 70;
  },
);
