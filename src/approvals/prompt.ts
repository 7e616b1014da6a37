/**
 * The inline prompt at a terminal: the call as the task records it, the
 * verdict's line, and the options. "Later" is not an answer: nothing is
 * recorded and the call waits on its task like any other.
 */
import { alwaysWhere, type Layer } from "./always.ts";
import { short } from "./digest.ts";
import { renderTask } from "./render.ts";
import type { TaskEntry } from "./state.ts";
import type { Scope } from "./task.ts";

/** A person at a terminal: where the prompt is written and the answer read. */
export type Terminal = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };

export type PromptAnswer =
  | { kind: "approve"; scope: Scope; always?: { layer: Layer }; note?: string }
  | { kind: "reject"; reason: string }
  | { kind: "answer"; text: string }
  | { kind: "later" };

/** Lines from a terminal, read one at a time; undefined once its input ends. */
class Lines {
  private readonly queue: string[] = [];
  private waiting?: (line: string | undefined) => void;
  private ended = false;
  private readonly rl;
  constructor(private readonly terminal: Terminal) {
    // Required here, not imported: loading node:readline costs ~3 ms at every hook's start.
    const { createInterface } = require("node:readline") as typeof import("node:readline");
    this.rl = createInterface({ input: terminal.input, terminal: false });
    this.rl.on("line", (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.queue.push(line);
    });
    this.rl.on("close", () => {
      this.ended = true;
      this.waiting?.(undefined);
      this.waiting = undefined;
    });
  }
  ask(question: string): Promise<string | undefined> {
    this.terminal.output.write(question);
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
  close(): void {
    this.rl.close();
  }
}

const APPROVAL_KEYS: Record<string, Scope | "always" | "reject" | "later"> = {
  y: "once",
  yes: "once",
  o: "once",
  once: "once",
  t: "task",
  task: "task",
  r: "run",
  run: "run",
  a: "always",
  always: "always",
  n: "reject",
  no: "reject",
  l: "later",
  later: "later",
  "": "later",
};

/** Puts an approval task to the person at `terminal`. */
export async function promptApproval(
  terminal: Terminal,
  entry: TaskEntry,
  now: Date,
  alwaysLayer: Layer,
  alwaysOffered: boolean,
): Promise<PromptAnswer> {
  const lines = new Lines(terminal);
  try {
    return await approvalAnswer(lines, terminal.output, entry, now, alwaysLayer, alwaysOffered);
  } finally {
    lines.close();
  }
}

async function approvalAnswer(
  lines: Lines,
  out: NodeJS.WritableStream,
  entry: TaskEntry,
  now: Date,
  alwaysLayer: Layer,
  alwaysOffered: boolean,
): Promise<PromptAnswer> {
  out.write(`\nverdict: this call needs your decision\n${renderTask(entry, now).join("\n")}\n`);
  const choices = [
    "[y] once",
    "[t] this task",
    "[r] this run",
    ...(alwaysOffered ? [`[a] always, in ${alwaysWhere(entry.task.action.cwd)} (rule in the ${alwaysLayer} policy)`] : []),
    "[n] reject",
    "[l] later",
  ];
  for (let tries = 0; tries < 3; tries++) {
    const line = await lines.ask(`${choices.join("  ")}: `);
    if (line === undefined) return { kind: "later" };
    const key = APPROVAL_KEYS[line.trim().toLowerCase()];
    if (key === undefined || (key === "always" && !alwaysOffered)) {
      out.write(`verdict: ${JSON.stringify(line.trim())} is not one of the options\n`);
      continue;
    }
    if (key === "later") return { kind: "later" };
    if (key === "reject") {
      const reason = (await lines.ask("reason (the assistant is told it): "))?.trim();
      return { kind: "reject", reason: reason || "rejected at the terminal" };
    }
    const note = (await lines.ask("note to the assistant (empty for none): "))?.trim();
    if (key === "always") return { kind: "approve", scope: "once", always: { layer: alwaysLayer }, ...(note ? { note } : {}) };
    return { kind: "approve", scope: key, ...(note ? { note } : {}) };
  }
  out.write(`verdict: no decision; task ${short(entry.task.id)} waits\n`);
  return { kind: "later" };
}

/** Puts a question task to the person at `terminal`. An empty line declines. */
export async function promptQuestion(terminal: Terminal, entry: TaskEntry, now: Date): Promise<PromptAnswer> {
  terminal.output.write(`\nverdict: the assistant asks you\n${renderTask(entry, now).join("\n")}\n`);
  const lines = new Lines(terminal);
  const line = await lines.ask('your answer (empty to decline, "later" to answer from another shell): ');
  lines.close();
  if (line === undefined || line.trim().toLowerCase() === "later") return { kind: "later" };
  if (line.trim() === "") return { kind: "reject", reason: "declined to answer" };
  return { kind: "answer", text: line };
}
