/**
 * A resident judge (docs/resident.md): `verdict resident serve`, started by a hook in the background.
 *
 * It takes a hook's request only when the work is bounded (hosts/session.ts's SessionIO.unbounded): a
 * policy layer to load afresh, a pattern not proven linear, a large payload, a turn's end all go back to
 * the hook's own process, which has the watchdog thread. It takes one request at a time (it changes its
 * working directory to the hook's); a hook that finds it busy judges on its own. It ends after
 * VERDICT_RESIDENT_IDLE without a request (15 minutes), after MAX_SERVED requests, when its socket is
 * removed or replaced, at SIGTERM, or at `verdict resident stop`.
 */
import { chmodSync, statSync, unlinkSync } from "node:fs";
import { durationMs } from "../core/units.ts";
import { ensurePrivateDir } from "../files/private.ts";
import { Deferred, hookSession } from "../hosts/session.ts";
import { readPayload } from "../hosts/stdin.ts";
import { isHostName } from "../hosts/types.ts";
import { forgetDiskFacts } from "../judge/index.ts";
import { BUILD, DEFAULT_IDLE_MS, processFacts, residentAddress } from "./address.ts";
import { askJudge } from "./ask.ts";
import { chunkQueue, encode, frameLine, queuedWriter, requestReader, type Frame, type Request } from "./protocol.ts";
import { warmUp } from "./warm.ts";

/** A judge ends after this many requests and the next hook starts a fresh one (memory stays small). */
const MAX_SERVED = 20_000;
/** How many times a new judge runs its ordinary lines through the rule engine (about 0.2 s of CPU). */
const WARM_ROUNDS = 100;
/** How soon after a request a judge tells the hook its deadline, if it has not answered by then. */
const DEADLINE_AFTER_MS = 20;
/** How often a judge checks that its socket is still its own (removed with its folder: it ends). */
const CHECK_EVERY_MS = 5_000;

/** Why a judge cannot serve here; thrown before it listens. */
export class CannotServe extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CannotServe";
  }
}

type Conn = { write(data: string | Uint8Array): number; end(): void; flush(): void };

/** Listens until it ends (the returned promise never settles); 0 when another judge already listens. */
export async function serve(): Promise<number> {
  const address = residentAddress(processFacts());
  if ("off" in address) throw new CannotServe(`no resident judge here: ${address.off}`);
  const home = address.dir;
  try {
    ensurePrivateDir(home);
  } catch (error) {
    throw new CannotServe(`no resident judge: ${(error as Error).message}`);
  }
  // Another judge there already (two hooks started one at once): leave it be.
  if ((await askJudge(address.socket, "status")) !== "none") return 0;
  try {
    unlinkSync(address.socket);
  } catch {}

  const idleMs = idleFrom(process.env.VERDICT_RESIDENT_IDLE);
  const started = new Date().toISOString();
  let served = 0;
  let deferred = 0;
  let workMs = 0;
  let busy = false;
  let lastRequest = performance.now();

  const end = (): never => {
    try {
      if (ownSocket()) unlinkSync(address.socket);
    } catch {}
    process.exit(0);
  };
  let inode = -1;
  const ownSocket = (): boolean => {
    try {
      return statSync(address.socket).ino === inode;
    } catch {
      return false;
    }
  };
  process.on("uncaughtException", end);
  process.on("unhandledRejection", end);
  process.on("SIGTERM", end);

  const statusFrame = (): Frame => ({
    t: "status",
    pid: process.pid,
    build: BUILD ?? "source",
    started,
    served,
    deferred,
    meanMs: served ? Math.round((workMs / served) * 100) / 100 : 0,
    idleMs: Math.round(performance.now() - lastRequest),
  });

  const server = Bun.listen<{ conn?: Conn; feed?: (bytes: Uint8Array) => void; gone?: () => void }>({
    unix: address.socket,
    socket: {
      open(socket) {
        const writer = queuedWriter(socket);
        const conn: Conn = {
          write: (data) => {
            const bytes = typeof data === "string" ? encode(data) : data;
            writer.send(bytes);
            return bytes.byteLength;
          },
          end: writer.end,
          flush: writer.flush,
        };
        socket.data = { conn };
        let payload: ReturnType<typeof chunkQueue> | undefined;
        socket.data.gone = () => payload?.fail(new Error("the hook went away before its payload ended"));
        socket.data.feed = requestReader({
          header: (request) => {
            if (request.t === "status" || request.t === "stop") {
              conn.write(frameLine(statusFrame()));
              conn.end();
              if (request.t === "stop") setTimeout(end, 10);
              return;
            }
            if (busy || !isHostName(request.host)) {
              deferred++;
              conn.write(frameLine({ t: "defer", why: busy ? "busy with another hook" : "unknown host" }));
              conn.end();
              return;
            }
            busy = true;
            lastRequest = performance.now();
            const began = lastRequest;
            payload = chunkQueue();
            void answerHook(request, payload, conn).then((answered) => {
              busy = false;
              if (answered) {
                served++;
                workMs += performance.now() - began;
              } else deferred++;
              lastRequest = performance.now();
              if (served >= MAX_SERVED) setTimeout(end, 10);
            });
          },
          chunk: (bytes) => payload?.push(bytes),
          end: () => payload?.close(),
          error: () => {
            payload?.fail(new Error("the hook's request was malformed"));
            conn.end();
          },
        });
      },
      data(socket, bytes) {
        socket.data.feed?.(bytes);
      },
      drain(socket) {
        socket.data.conn?.flush();
      },
      close(socket) {
        socket.data.gone?.();
      },
      error() {},
    },
  });
  // The folder (0700) already keeps others out; the socket is made 0600 too, like all of verdict's files.
  chmodSync(address.socket, 0o600);
  inode = statSync(address.socket).ino;

  // Idle, or no longer the one at this address: end.
  const check = (): void => {
    if (!ownSocket()) end();
    if (!busy && performance.now() - lastRequest >= idleMs) end();
    setTimeout(check, Math.min(CHECK_EVERY_MS, Math.max(50, idleMs - (performance.now() - lastRequest)))).unref?.();
  };
  check();
  // Compile the engine's hot paths before the hooks need them (warm.ts).
  warmUp(home, WARM_ROUNDS, () => busy);
  void server;
  // The process lives on the listener's events from here.
  return new Promise<number>(() => {});

  /** One hook, as its own process would run it, but on this process's warm engine. Whether it answered (else handed back). */
  async function answerHook(
    request: Extract<Request, { t: "hook" }>,
    payload: ReturnType<typeof chunkQueue>,
    conn: Conn,
  ): Promise<boolean> {
    const send = (frame: Frame) => conn.write(frameLine(frame));
    // The deadline is re-armed at every step that may change it. The hook hears of it only if the answer
    // has not come within DEADLINE_AFTER_MS (well within its HELLO_MS), and of a change only: each frame
    // costs the hook a wake-up, and most answers are there first.
    let lastDeadline = "";
    let wanted: () => string = () => "";
    let flushing: ReturnType<typeof setTimeout> | undefined;
    const flushDeadline = () => {
      flushing = undefined;
      const line = wanted();
      if (line !== lastDeadline) conn.write(line);
      lastDeadline = line;
    };
    try {
      process.chdir(request.cwd);
    } catch {
      send({ t: "defer", why: "cannot enter the hook's working directory" });
      conn.end();
      return false;
    }
    forgetDiskFacts();
    const startedAt = performance.now() - Math.max(0, request.elapsed);
    // What a judgment says on standard error (a decision log it cannot write) goes to the hook's, in
    // the answer: this process's own leads nowhere.
    const said: string[] = [];
    const stderr = process.stderr;
    const write = stderr.write;
    stderr.write = ((chunk: string | Uint8Array) => {
      said.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      return true;
    }) as typeof stderr.write;
    let answered = false;
    try {
      await hookSession(request.host as Parameters<typeof hookSession>[0], {
        here: request.cwd,
        startedAt,
        readPayload: (onChunk, limits) => readPayload(onChunk, limits, payload.chunks()),
        unbounded: () => {
          throw new Deferred("the work is not bounded here");
        },
        deadline: (at, fallback, note) => {
          wanted = () => frameLine({ t: "deadline", at, stdout: fallback().reply.stdout ?? "", note });
          flushing ??= setTimeout(flushDeadline, DEADLINE_AFTER_MS);
        },
        claim: () => true,
        say: (stdout, notes) => {
          clearTimeout(flushing);
          flushing = undefined;
          answered = true;
          send({ t: "answer", stdout: stdout ?? "", stderr: [...said.map((text) => text.replace(/\n$/, "")), ...notes].join("\n") });
        },
      });
    } catch (error) {
      send({ t: "defer", why: error instanceof Deferred ? error.message : `the judge failed: ${(error as Error)?.message}` });
    } finally {
      clearTimeout(flushing);
      stderr.write = write;
      conn.end();
      try {
        process.chdir(home);
      } catch {}
    }
    return answered;
  }
}

function idleFrom(text: string | undefined): number {
  if (!text) return DEFAULT_IDLE_MS;
  try {
    return Math.max(100, durationMs(text));
  } catch {
    return DEFAULT_IDLE_MS;
  }
}
