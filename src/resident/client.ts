/**
 * A hook's side of the resident judge: hand the payload to the judge that serves processes like this
 * one, and print its answer. Kept small on purpose: this is all a hook loads when a judge answers (no
 * policy, no rule engine, no node:fs), which is the point of having one.
 *
 * Whatever happens, the hook still answers in time:
 * - no judge at the address (none started yet, or it ended): the hook judges in its own process;
 * - the judge says `defer`, or closes the connection, or sends nothing for HELLO_MS: the same, from the
 *   payload bytes already read (the judge's answer, if it comes later, is ignored);
 * - the judge has said when the deadline falls: at that time the hook prints the fallback the judge sent
 *   and ends, exactly as its own deadline timer would have.
 */
import { residentAddress, processFacts, type Address } from "./address.ts";
import { chunkQueue, concat, encode, lineReader, payloadFrame, PROTOCOL, queuedWriter, type Frame, type Request } from "./protocol.ts";

/**
 * How long a judge may take to say anything at all: it answers, hands back or sends its deadline within
 * about 20 ms of the request (DEADLINE_AFTER_MS in serve.ts), unless it is stalled.
 */
const HELLO_MS = 300;

/**
 * What the hook's own process continues from when the judge does not answer: standard input as this
 * side reads it, from its first byte (what went to the judge included) to its end.
 */
type Handover = { chunks(): AsyncGenerator<Uint8Array> };

export type ResidentResult =
  | { answered: true }
  /** `none`: no judge listens at the address, so the hook may start one once it has answered. */
  | { answered: false; handover?: Handover; address?: Address; why: string; none: boolean };

export async function viaResident(host: string, startedAt: number): Promise<ResidentResult> {
  const address = residentAddress(processFacts());
  if ("off" in address) return { answered: false, why: address.off, none: false };

  let current: { end(): void } | undefined;
  const input = inputChannel();
  const decoder = new TextDecoder();
  let settle!: (result: ResidentResult) => void;
  const settled = new Promise<ResidentResult>((resolve) => {
    settle = resolve;
  });
  let done = false;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const handBack = (why: string, socket?: { end(): void }): void => {
    if (done) return;
    done = true;
    clearTimeout(hello);
    clearTimeout(deadline);
    try {
      socket?.end();
    } catch {}
    settle({ answered: false, handover: input, address, why, none: false });
  };
  const hello = setTimeout(() => {
    // Asked, but silent: a judge that hangs would cost every hook this wait. Its socket goes, so the next
    // hooks judge on their own (and start a fresh judge); a judge that was only slow ends when it finds
    // its socket gone. Not asked yet (not connected, the folder not checked): it is left alone.
    if (headerSent) retire(address.socket);
    handBack(`the resident judge said nothing within ${HELLO_MS} ms`, current);
  }, HELLO_MS);

  // What the judge has not taken yet (a socket's buffer may be full) goes when it drains.
  let out: ReturnType<typeof queuedWriter> | undefined;
  const send = (data: Uint8Array): void => {
    if (out && !done) out.send(data);
  };

  const onFrame = lineReader<Frame>((frame) => {
    if (done) return;
    if (frame.t === "deadline") {
      clearTimeout(hello);
      clearTimeout(deadline);
      deadline = setTimeout(
        () => {
          done = true;
          retire(address.socket); // the judge did not answer in time: as for a silent one, above
          // process.exit does not wait for console's buffer: written directly (the rare path may load node:fs).
          const { writeSync } = require("node:fs") as typeof import("node:fs");
          try {
            if (frame.stdout) writeSync(1, `${frame.stdout}\n`);
            if (frame.note) writeSync(2, `${frame.note}\n`);
          } catch {}
          process.exit(0);
        },
        Math.max(0, frame.at - (performance.now() - startedAt)),
      );
    } else if (frame.t === "answer") {
      done = true;
      clearTimeout(hello);
      clearTimeout(deadline);
      print(frame.stdout, frame.stderr);
      try {
        current?.end();
      } catch {}
      settle({ answered: true });
    } else if (frame.t === "defer") {
      handBack(`the resident judge deferred: ${frame.why}`, current);
    }
  });

  // Standard input is read while the connection opens (once it is asked for): the payload is usually all
  // there when it does, and goes in the same write as the header.
  const connecting = Bun.connect({
    unix: address.socket,
    socket: {
      open(socket) {
        current = socket;
        out = queuedWriter(socket);
        // Handed back already (the folder check): an open connection would keep this process alive.
        if (done) socket.end();
        else begin();
      },
      data(_socket, data) {
        try {
          onFrame(decoder.decode(data, { stream: true }));
        } catch {
          handBack("the resident judge sent something malformed", current);
        }
      },
      drain() {
        out?.flush();
      },
      close() {
        handBack("the resident judge closed the connection");
      },
      error() {
        handBack("the connection to the resident judge failed");
      },
    },
  });
  // Nothing is sent until the folder is known to be the user's alone (0700, this user's): anyone who could
  // put a socket there could answer the hook, and would read the payload. The same rule as for every
  // folder of verdict's (files/private.ts); checked while the connection opens, so it costs no wait.
  let cleared = false;
  let headerSent = false;
  const uid = process.getuid?.();
  Bun.file(address.dir)
    .stat()
    .then(
      (stat) => {
        if (stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0) {
          cleared = true;
          begin();
        } else handBack(`${address.dir} is not private to this user`, current);
      },
      () => handBack(`${address.dir} cannot be checked`, current),
    );
  function begin(): void {
    if (!current || !cleared || headerSent || done) return;
    headerSent = true;
    const header: Request = { v: PROTOCOL, t: "hook", host, cwd: process.cwd(), elapsed: performance.now() - startedAt };
    send(concat([encode(`${JSON.stringify(header)}\n`), ...input.sofar().map(payloadFrame)]));
  }
  input.start(
    (chunk) => {
      if (headerSent && !done) send(payloadFrame(chunk));
    },
    () => handBack("standard input could not be read", current),
  );
  try {
    await connecting;
  } catch {
    // nobody listens there (no judge started yet, or it ended): the hook judges on its own
    done = true;
    clearTimeout(hello);
    return { answered: false, handover: input, address, why: "no resident judge is running", none: true };
  }

  return settled;
}

/** Removes a judge's socket (best effort; the rare path may load node:fs). */
function retire(socket: string): void {
  try {
    (require("node:fs") as typeof import("node:fs")).unlinkSync(socket);
  } catch {}
}

function print(stdout: string, stderr: string): void {
  // console.log and console.error write synchronously to a pipe or file and load nothing more;
  // process.stdout would initialise node:stream (milliseconds).
  if (stdout) console.log(stdout);
  if (stderr) console.error(stderr.replace(/\n$/, ""));
}

/**
 * Standard input, read once: each chunk goes to `forward` (the judge) as it arrives and is kept, so a
 * hand-back replays it from the start and then waits for the rest. An error reading is the stream's end
 * with that error, for whoever reads on.
 */
function inputChannel(): Handover & { start(forward: (chunk: Uint8Array) => void, fail: () => void): void; sofar(): Uint8Array[] } {
  const queue = chunkQueue();
  return {
    // What has arrived so far, with the end's empty frame once it has ended.
    sofar: () => (queue.ended() && !queue.failed() ? [...queue.kept, new Uint8Array(0)] : [...queue.kept]),
    start(forward, fail) {
      const reader = Bun.stdin.stream().getReader();
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            queue.push(value);
            forward(value);
          }
        } catch (error) {
          queue.fail(error ?? new Error("standard input could not be read"));
          fail();
          return;
        }
        queue.close();
        forward(new Uint8Array(0));
      })();
    },
    chunks: queue.chunks,
  };
}
