/**
 * Runs one tool call: an argument vector without a shell, in its own process
 * group, with stdin at end of file, a time limit, output capped per stream
 * (head and tail kept) and, optionally, copied live to verdict's stderr.
 * Stopping it (time limit or cancellation) sends SIGTERM to the whole group,
 * then SIGKILL after the grace period. Whatever the call left running in its
 * group when it exits is killed too: a call does not outlive its receipt.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";

export type RunOptions = {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  graceMs: number;
  /** Copy output live here as it arrives. */
  mirror?: (stream: "stdout" | "stderr", chunk: Uint8Array) => void;
  /** Aborting it cancels the call. */
  signal: AbortSignal;
};

type StreamReceipt = { text: string; bytes: number; truncated: boolean };

export type Receipt = {
  argv: string[];
  startedAt: string;
  durationMs: number;
  /** The exit code, or null when a signal ended the process or it never started. */
  exitCode: number | null;
  /** The signal that ended the process, if one did. */
  signal: string | null;
  /** The status a shell would report: exit code, 128 + signal, 124 for a time limit, 127/126 for a spawn error. */
  status: number;
  timedOut: boolean;
  cancelled: boolean;
  spawnError: string | null;
  stdout: StreamReceipt;
  stderr: StreamReceipt;
};

/** After the group leader exits, how long its output pipes may stay open (a leftover holding them is killed). */
const DRAIN_MS = 300;

export function runArgv(options: RunOptions): Promise<Receipt> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const [program, ...args] = options.argv;
  const stdout = new CappedStream(options.maxOutputBytes);
  const stderr = new CappedStream(options.maxOutputBytes);
  const receipt = (fields: Partial<Receipt> & Pick<Receipt, "status">): Receipt => ({
    argv: options.argv,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    spawnError: null,
    stdout: stdout.receipt(),
    stderr: stderr.receipt(),
    ...fields,
  });
  if (program === undefined) return Promise.resolve(receipt({ status: 127, spawnError: "empty argument vector" }));
  if (options.signal.aborted) return Promise.resolve(receipt({ status: 130, cancelled: true, spawnError: "cancelled before it started" }));

  return new Promise((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const group = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        /* the group is already gone */
      }
    };
    const stop = () => {
      group("SIGTERM");
      killTimer ??= setTimeout(() => group("SIGKILL"), Math.max(0, options.graceMs));
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        stop();
      },
      Math.max(1, options.timeoutMs),
    );
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      options.mirror?.("stdout", chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr.push(chunk);
      options.mirror?.("stderr", chunk);
    });
    const finish = (fields: Partial<Receipt> & Pick<Receipt, "status">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal.removeEventListener("abort", onAbort);
      resolve(receipt({ timedOut, cancelled, ...fields }));
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      const status = error.code === "ENOENT" ? 127 : 126;
      const what = error.code === "ENOENT" ? `command not found: ${program}` : `cannot run ${program}: ${error.message}`;
      finish({ status, spawnError: what });
    });
    child.on("exit", (code, signal) => {
      // Leftovers in the call's group (background jobs, daemons) end with it.
      group("SIGKILL");
      const status = timedOut ? 124 : (code ?? 128 + signalNumber(signal));
      const done = () => finish({ status, exitCode: code, signal: signal ?? null });
      let open = [child.stdout, child.stderr].filter((stream) => stream && !stream.closed).length;
      if (open === 0) return done();
      const drain = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        done();
      }, DRAIN_MS);
      for (const stream of [child.stdout, child.stderr]) {
        stream?.once("close", () => {
          if (--open === 0) {
            clearTimeout(drain);
            done();
          }
        });
      }
    });
  });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  if (!signal) return 0;
  return (constants.signals as Record<string, number>)[signal] ?? 0;
}

/**
 * One output stream, capped: the first half of the cap and the last half
 * are kept, the middle is replaced by a marker saying how much was dropped.
 */
export class CappedStream {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(readonly cap: number) {
    this.headCap = Math.ceil(cap / 2);
    this.tailCap = cap - this.headCap;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailCap === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailCap) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  receipt(): StreamReceipt {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    const truncated = this.total > this.headBytes + tail.length || tail.length > this.tailCap;
    if (!truncated) return { text: decode(Buffer.concat([head, tail])), bytes: this.total, truncated: false };
    tail = tail.subarray(tail.length - this.tailCap);
    const dropped = this.total - head.length - tail.length;
    const marker = `\n[… truncated: ${dropped} bytes dropped; kept the first ${head.length} and the last ${tail.length} of ${this.total} bytes …]\n`;
    return { text: decode(head) + marker + decode(tail), bytes: this.total, truncated: true };
  }
}

function decode(bytes: Buffer): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}
