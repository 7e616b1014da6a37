/**
 * The hook's deadline, kept by another thread.
 *
 * A timer on the main thread cannot fire while the judge is busy: a synchronous regular expression that
 * backtracks for a minute, or any step that turns out super-linear on a hostile line, holds the event
 * loop, and the host's timeout passes with no answer. So the deadline lives in a Worker: it sleeps on a
 * shared word until the deadline, and if the main thread has not claimed the answer by then, it claims
 * it, writes the fallback reply the main thread left in shared memory (the policy's hosts.on_error in
 * the host's vocabulary), and ends the whole process at once with status 0 through libc's _exit.
 *
 * Exactly one side answers: each claims the shared word with compare-and-exchange before writing.
 * The main thread re-arms the watchdog whenever what the fallback would say changes (the event's
 * kind, the policy's hosts settings).
 */

const FLAG = 0; // 0 nobody answered, 1 the main thread, 2 the watchdog
const REPLY_LENGTH = 1;
const DEADLINE = 2; // ms after `base`
const WRITTEN = 3; // the watchdog has written its answer
const NOTE_LENGTH = 4;
const HEADER = 32;
const REPLY_BYTES = 8192;
const NOTE_BYTES = 1024;

/** The watchdog's own code: a string, so the single-file executable needs no second file. */
const WORKER = `
const { writeSync } = require("node:fs");
const HEADER = ${HEADER}, REPLY_BYTES = ${REPLY_BYTES}, NOTE_BYTES = ${NOTE_BYTES};
function end() {
  for (const name of ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "/usr/lib/libSystem.B.dylib"]) {
    try {
      const { dlopen, FFIType } = require("bun:ffi");
      dlopen(name, { _exit: { args: [FFIType.i32], returns: FFIType.void } }).symbols._exit(0);
    } catch {}
  }
  process.kill(process.pid, "SIGKILL");
}
self.onmessage = (event) => {
  const { buffer, base } = event.data;
  const words = new Int32Array(buffer, 0, 8);
  const reply = new Uint8Array(buffer, HEADER, REPLY_BYTES);
  const note = new Uint8Array(buffer, HEADER + REPLY_BYTES, NOTE_BYTES);
  for (;;) {
    if (Atomics.load(words, ${FLAG}) !== 0) return;
    const left = base + Atomics.load(words, ${DEADLINE}) - Date.now();
    if (left > 0) {
      Atomics.wait(words, ${FLAG}, 0, Math.min(left, 1000));
      continue;
    }
    if (Atomics.compareExchange(words, ${FLAG}, 0, 2) !== 0) return;
    try { writeSync(1, reply.slice(0, Atomics.load(words, ${REPLY_LENGTH}))); } catch {}
    try { writeSync(2, note.slice(0, Atomics.load(words, ${NOTE_LENGTH}))); } catch {}
    Atomics.store(words, ${WRITTEN}, 1);
    Atomics.notify(words, ${WRITTEN});
    end();
  }
};
`;

export type Watchdog = {
  /** Sets when to answer (ms from now) and what: the reply for stdout and a note for stderr. */
  arm(inMs: number, reply: string, note: string): void;
  /** The main thread's claim on the answer: false when the watchdog has answered (the process is ending). */
  claim(): boolean;
};

export function startWatchdog(): Watchdog | undefined {
  let worker: Worker;
  const buffer = new SharedArrayBuffer(HEADER + REPLY_BYTES + NOTE_BYTES);
  const words = new Int32Array(buffer, 0, 8);
  const reply = new Uint8Array(buffer, HEADER, REPLY_BYTES);
  const note = new Uint8Array(buffer, HEADER + REPLY_BYTES, NOTE_BYTES);
  const base = Date.now();
  Atomics.store(words, DEADLINE, 0x7fffffff);
  try {
    worker = new Worker(URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" })));
    worker.postMessage({ buffer, base });
    worker.unref();
  } catch {
    return undefined; // no threads here: the main thread's timer is all there is
  }
  const encoder = new TextEncoder();
  return {
    arm(inMs, replyText, noteText) {
      const replyBytes = encoder.encode(`${replyText}\n`).subarray(0, REPLY_BYTES);
      const noteBytes = encoder.encode(`${noteText}\n`).subarray(0, NOTE_BYTES);
      // The length goes to 0 while the bytes change, so a watchdog firing meanwhile writes nothing torn.
      Atomics.store(words, REPLY_LENGTH, 0);
      reply.set(replyBytes);
      Atomics.store(words, REPLY_LENGTH, replyBytes.length);
      Atomics.store(words, NOTE_LENGTH, 0);
      note.set(noteBytes);
      Atomics.store(words, NOTE_LENGTH, noteBytes.length);
      Atomics.store(words, DEADLINE, Math.min(0x7fffffff, Math.max(0, Math.round(Date.now() - base + inMs))));
      Atomics.notify(words, FLAG);
    },
    claim() {
      if (Atomics.compareExchange(words, FLAG, 0, 1) === 0) {
        Atomics.notify(words, FLAG);
        return true;
      }
      // The watchdog is answering: wait for it to end the process rather than exit under it.
      Atomics.wait(words, WRITTEN, 0, 2000);
      return false;
    },
  };
}
