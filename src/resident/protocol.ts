/**
 * What a hook and a resident judge say to each other over the judge's Unix socket.
 *
 * The hook sends one header line (JSON), then its payload as it reads it from the host, in frames of
 * `<length>\n<bytes>`, and `0\n` when the host has closed standard input. The payload streams so the
 * judge can sniff its kind, load the policy and say when the deadline falls before the payload has all
 * arrived, as a hook does on its own (a payload that never ends still gets an answer in time).
 *
 * The judge answers with JSON lines:
 * - `deadline`: when (ms after the hook started) and what to answer if nothing better has come by then.
 *   Sent again whenever it changes (the event's kind, the policy's hosts settings). The hook keeps the
 *   time itself, so a judge that stalls cannot make it late.
 * - `answer`: what to print on standard output and standard error; the hook prints it and ends.
 * - `defer`: the judge will not take this one (the work is not bounded, the judge is busy); the hook
 *   judges in its own process, from the payload bytes it has already read.
 * - `status`: for `verdict resident status`.
 */

export const PROTOCOL = 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export type Request =
  | { v: typeof PROTOCOL; t: "hook"; host: string; cwd: string; elapsed: number }
  | { v: typeof PROTOCOL; t: "status" }
  | { v: typeof PROTOCOL; t: "stop" };

export type Frame =
  | { t: "deadline"; at: number; stdout: string; note: string }
  | { t: "answer"; stdout: string; stderr: string }
  | { t: "defer"; why: string }
  | { t: "status"; pid: number; build: string; started: string; served: number; deferred: number; meanMs: number; idleMs: number };

export function encode(text: string): Uint8Array {
  return encoder.encode(text);
}

export function frameLine(frame: Frame): string {
  return `${JSON.stringify(frame)}\n`;
}

/** Splits what arrives on a socket into JSON lines, whatever the chunking. */
export function lineReader<T>(onLine: (value: T) => void): (chunk: string) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (line.trim()) onLine(JSON.parse(line) as T);
    }
  };
}

/** One payload chunk as a frame; an empty chunk is the end of the payload. */
export function payloadFrame(chunk: Uint8Array): Uint8Array {
  return concat([encoder.encode(`${chunk.byteLength}\n`), chunk]);
}

/** The bytes of `parts`, one after another. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * Writes to a socket what its buffer takes now and the rest when it drains (call `flush` from the
 * socket's drain handler); `end` closes it once everything is out.
 */
export function queuedWriter(socket: { write(data: Uint8Array): number; end(): void }) {
  const pending: Uint8Array[] = [];
  let ending = false;
  return {
    send(bytes: Uint8Array): void {
      if (pending.length) {
        pending.push(bytes);
        return;
      }
      const wrote = socket.write(bytes);
      if (wrote < bytes.byteLength) pending.push(bytes.subarray(Math.max(0, wrote)));
    },
    flush(): void {
      while (pending.length) {
        const head = pending[0]!;
        const wrote = socket.write(head);
        if (wrote < head.byteLength) {
          pending[0] = head.subarray(Math.max(0, wrote));
          return;
        }
        pending.shift();
      }
      if (ending) socket.end();
    },
    end(): void {
      if (pending.length === 0) socket.end();
      else ending = true;
    },
  };
}

/**
 * A payload's chunks as they arrive, kept, for a reader that may start late and read from the first:
 * `chunks()` yields every chunk so far, then waits for more until the end (or throws the failure).
 */
export function chunkQueue() {
  const kept: Uint8Array[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    kept: kept as readonly Uint8Array[],
    ended: () => ended,
    failed: () => failure !== undefined,
    push(bytes: Uint8Array): void {
      kept.push(bytes);
      poke();
    },
    close(): void {
      ended = true;
      poke();
    },
    /** Ends it with `error`, unless it has ended already. */
    fail(error: unknown): void {
      if (ended) return;
      failure = error;
      ended = true;
      poke();
    },
    async *chunks(): AsyncGenerator<Uint8Array> {
      for (let next = 0; ; ) {
        if (next < kept.length) {
          yield kept[next++]!;
          continue;
        }
        if (failure !== undefined) throw failure;
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}

type RequestEvents = {
  header(request: Request): void;
  chunk(bytes: Uint8Array): void;
  end(): void;
  error(message: string): void;
};

const MAX_HEADER = 64 * 1024;
const MAX_FRAME = 16 * 1024 * 1024;

/**
 * The judge's side: the header line, then the payload's frames, from bytes in any chunking. Anything
 * malformed is an error (the connection is then dropped and the hook judges on its own).
 */
export function requestReader(events: RequestEvents): (bytes: Uint8Array) => void {
  let buffer: Uint8Array = new Uint8Array(0);
  let state: "header" | "length" | "done" = "header";
  let need = -1; // bytes of the current frame still to come, or -1 while reading a length line
  const failed = (message: string) => {
    state = "done";
    events.error(message);
  };
  return (bytes) => {
    if (state === "done") return;
    buffer = concat([buffer, bytes]);
    for (;;) {
      if (state === "header") {
        const end = buffer.indexOf(10);
        if (end === -1) {
          if (buffer.byteLength > MAX_HEADER) failed("the request's header is too long");
          return;
        }
        let request: Request;
        try {
          request = JSON.parse(decoder.decode(buffer.subarray(0, end))) as Request;
        } catch {
          return failed("the request's header is not JSON");
        }
        if (!request || request.v !== PROTOCOL) return failed("the request speaks another protocol");
        buffer = buffer.subarray(end + 1);
        state = "length";
        events.header(request);
        if (request.t !== "hook") return void (state = "done");
        continue;
      }
      if (state !== "length") return;
      if (need === -1) {
        const end = buffer.indexOf(10);
        if (end === -1) {
          if (buffer.byteLength > 16) failed("a payload frame's length is malformed");
          return;
        }
        const text = decoder.decode(buffer.subarray(0, end));
        if (!/^\d{1,9}$/.test(text) || Number(text) > MAX_FRAME) return failed("a payload frame's length is malformed");
        buffer = buffer.subarray(end + 1);
        need = Number(text);
        if (need === 0) {
          state = "done";
          events.end();
          return;
        }
      }
      if (buffer.byteLength < need) return;
      events.chunk(buffer.slice(0, need));
      buffer = buffer.subarray(need);
      need = -1;
    }
  };
}
