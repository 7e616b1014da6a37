/**
 * A hook's payload from standard input, chunk by chunk as it arrives (the deadline may need the
 * payload's kind before it ends), never blocking the event loop, so the deadline's timer can fire
 * while a payload trickles in or never ends.
 *
 * Two ways, by what standard input is:
 * - On Linux, a pipe (Codex's hooks), a file or a FIFO is opened again through /proc/self/fd/0 with
 *   O_NONBLOCK (a new open file description: the host's end keeps its own flags) and read with
 *   read(2) until end of file, waiting a few milliseconds whenever nothing is there yet. Measured
 *   against Bun's stream on a pipe: ≈0.8 ms less a hook by median, and no thread pool started.
 * - Otherwise through Bun's own stream: a socket (Node's child_process gives one, so Claude Code and
 *   Gemini CLI do) cannot be opened through /proc, and other systems have no /proc. Not
 *   `process.stdin`, which initialises node:stream and the fs stream classes (milliseconds a hook).
 */
import { closeSync, constants, openSync, readSync } from "node:fs";

type Limits = { maxBytes: number };

/**
 * `from`: standard input as another reader has it (a resident judge's client that handed the hook back,
 * src/resident/client.ts), from its first byte; standard input itself is then not touched.
 */
export async function readPayload(onChunk: (text: string) => void, limits: Limits, from?: AsyncIterable<Uint8Array>): Promise<string> {
  if (from) return readChunks(from, onChunk, limits);
  const fd = reopenNonBlocking();
  return fd === undefined ? readChunks(streamChunks(), onChunk, limits) : readNonBlocking(fd, onChunk, limits);
}

function reopenNonBlocking(): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return openSync("/proc/self/fd/0", constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined; // a socket (ENXIO), a closed stdin, no /proc
  }
}

const tooLarge = (limits: Limits) => new Error(`the hook payload is larger than ${limits.maxBytes / 1024 / 1024} MB; not judged`);

async function readNonBlocking(fd: number, onChunk: (text: string) => void, limits: Limits): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let wait = 1;
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(64 * 1024);
      let read: number;
      try {
        read = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
        // Nothing yet: give the timers their turn, then look again (at most every 16 ms).
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, 16);
        continue;
      }
      if (read === 0) break;
      wait = 1;
      size += read;
      if (size > limits.maxBytes) throw tooLarge(limits);
      const chunk = buffer.subarray(0, read);
      chunks.push(chunk);
      onChunk(chunk.toString("utf8"));
    }
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function* streamChunks(): AsyncGenerator<Uint8Array> {
  const reader = Bun.stdin.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

async function readChunks(chunks: AsyncIterable<Uint8Array>, onChunk: (text: string) => void, limits: Limits): Promise<string> {
  const kept: Uint8Array[] = [];
  let size = 0;
  for await (const value of chunks) {
    size += value.byteLength;
    if (size > limits.maxBytes) throw tooLarge(limits);
    kept.push(value);
    onChunk(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8"));
  }
  return Buffer.concat(kept).toString("utf8");
}
