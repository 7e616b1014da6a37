// The resident judge's pure parts: whose judge a hook may use (the address), the wire format, and when
// a hook starts a judge.
import { describe, expect, test } from "bun:test";
import { processKey, residentAddress, type ProcessFacts } from "../../src/resident/address.ts";
import { concat, lineReader, payloadFrame, requestReader, type Request } from "../../src/resident/protocol.ts";
import { decideStart, parseSeen } from "../../src/resident/start.ts";

const facts = (over: Partial<ProcessFacts> = {}, env: Record<string, string> = {}): ProcessFacts => ({
  env: { HOME: "/home/dev", PATH: "/usr/bin", VERDICT_MODE: "rules", ...env },
  execPath: "/usr/local/bin/verdict",
  uid: 1000,
  umask: 0o022,
  platform: "linux",
  build: "b1",
  ...over,
});

describe("the address of a resident judge", () => {
  test("is in the user's state folder, named by a digest", () => {
    const address = residentAddress(facts());
    expect(address).toMatchObject({ dir: "/home/dev/.local/state/verdict/resident" });
    if ("off" in address) throw new Error(address.off);
    expect(address.socket).toBe(`${address.dir}/${address.key}.sock`);
    expect(address.key).toMatch(/^[0-9a-f]{20}$/);
  });

  test("differs with anything a judgment may depend on: the build, the executable, the user, the umask, any variable", () => {
    const base = processKey(facts());
    const others = [
      facts({ build: "b2" }),
      facts({ execPath: "/opt/verdict" }),
      facts({ uid: 1001 }),
      facts({ umask: 0o077 }),
      facts({}, { VERDICT_MODE: "model" }),
      facts({}, { TYPESAFE_API_KEY: "k" }),
      facts({}, { HOME: "/home/other" }),
      facts({}, { XDG_STATE_HOME: "/s" }),
      facts({}, { VERDICT_DEBUG: "1" }),
    ].map(processKey);
    for (const other of others) expect(other).not.toBe(base);
    expect(new Set(others).size).toBe(others.length);
  });

  test("does not depend on the order of the variables, nor on the shell's own bookkeeping ($_, $PWD, $OLDPWD, $SHLVL)", () => {
    const env = { HOME: "/home/dev", PATH: "/usr/bin", VERDICT_MODE: "rules" };
    const reversed = Object.fromEntries(Object.entries(env).reverse());
    expect(processKey({ ...facts(), env: reversed })).toBe(processKey(facts()));
    expect(processKey(facts({}, { _: "/usr/bin/setsid", PWD: "/x", OLDPWD: "/y", SHLVL: "3" }))).toBe(processKey(facts()));
  });

  test("there is none when switched off, from source, on Windows, for verdict's own checks, or when the path is too long", () => {
    for (const value of ["off", "0", "false", "no", "OFF"])
      expect(residentAddress(facts({}, { VERDICT_RESIDENT: value }))).toHaveProperty("off");
    expect(residentAddress(facts({}, { VERDICT_RESIDENT: "on" }))).not.toHaveProperty("off");
    expect(residentAddress(facts({ build: undefined }))).toHaveProperty("off");
    expect(residentAddress(facts({ platform: "win32" }))).toHaveProperty("off");
    expect(residentAddress(facts({}, { VERDICT_SELF_TEST: "1" }))).toHaveProperty("off");
    const deep = `/home/${"d".repeat(80)}`;
    expect(residentAddress(facts({}, { HOME: deep }))).toHaveProperty("off");
    // ... unless the user's runtime folder is there to take the socket.
    expect(residentAddress(facts({}, { HOME: deep, XDG_RUNTIME_DIR: "/run/user/1000" }))).toMatchObject({ dir: "/run/user/1000/verdict" });
    expect(residentAddress(facts({}, { HOME: deep, XDG_RUNTIME_DIR: "relative" }))).toHaveProperty("off");
  });
});

describe("the wire format", () => {
  const header: Request = { v: 1, t: "hook", host: "claude", cwd: "/p", elapsed: 1.5 };
  const payload = new TextEncoder().encode('{"tool_input":{"command":"echo é\\n"}}');
  const wire = (): Uint8Array =>
    concat([
      new TextEncoder().encode(`${JSON.stringify(header)}\n`),
      payloadFrame(payload.subarray(0, 7)),
      payloadFrame(payload.subarray(7)),
      payloadFrame(new Uint8Array(0)),
    ]);

  test("a request reads the same however the bytes are split", () => {
    const bytes = wire();
    for (const size of [1, 2, 3, 7, 64, bytes.byteLength]) {
      const got: { header?: Request; chunks: number[]; ended: boolean; error?: string } = { chunks: [], ended: false };
      const feed = requestReader({
        header: (request) => (got.header = request),
        chunk: (chunk) => got.chunks.push(...chunk),
        end: () => (got.ended = true),
        error: (message) => (got.error = message),
      });
      for (let at = 0; at < bytes.byteLength; at += size) feed(bytes.subarray(at, at + size));
      expect(got.error).toBeUndefined();
      expect(got.header).toEqual(header);
      expect(new TextDecoder().decode(new Uint8Array(got.chunks))).toBe(new TextDecoder().decode(payload));
      expect(got.ended).toBe(true);
    }
  });

  test("anything malformed is an error, never a payload", () => {
    const errors: string[] = [];
    const reader = () =>
      requestReader({ header: () => {}, chunk: () => errors.push("chunk"), end: () => errors.push("end"), error: (m) => errors.push(m) });
    reader()(new TextEncoder().encode("not json\n"));
    reader()(new TextEncoder().encode(`${JSON.stringify({ ...header, v: 2 })}\n`));
    reader()(new TextEncoder().encode(`${JSON.stringify(header)}\nabc\n`));
    reader()(new TextEncoder().encode(`${JSON.stringify(header)}\n99999999999\n`));
    reader()(new TextEncoder().encode("x".repeat(70 * 1024)));
    expect(errors).toEqual([
      "the request's header is not JSON",
      "the request speaks another protocol",
      "a payload frame's length is malformed",
      "a payload frame's length is malformed",
      "the request's header is too long",
    ]);
  });

  test("the judge's frames are JSON lines, read whole however they arrive", () => {
    const frames: unknown[] = [];
    const feed = lineReader((frame) => frames.push(frame));
    const text = `${JSON.stringify({ t: "deadline", at: 750, stdout: "{}", note: "n" })}\n${JSON.stringify({ t: "answer", stdout: "x", stderr: "" })}\n`;
    for (const ch of text) feed(ch);
    expect(frames).toEqual([
      { t: "deadline", at: 750, stdout: "{}", note: "n" },
      { t: "answer", stdout: "x", stderr: "" },
    ]);
  });
});

describe("when a hook starts a judge", () => {
  const minute = 60_000;
  test("at the second hook of a kind of process, not the first", () => {
    const first = decideStart([], "aaaaaaaa", 1000);
    expect(first.start).toBe(false);
    const second = decideStart(first.next, "aaaaaaaa", 2000);
    expect(second.start).toBe(true);
  });

  test("at most once a minute for the same kind (a judge that cannot start is not retried at every hook)", () => {
    let seen = decideStart([], "aaaaaaaa", 0).next;
    const started = decideStart(seen, "aaaaaaaa", 1000);
    expect(started.start).toBe(true);
    seen = started.next;
    expect(decideStart(seen, "aaaaaaaa", 1000 + minute - 1).start).toBe(false);
    expect(decideStart(seen, "aaaaaaaa", 1000 + minute).start).toBe(true);
  });

  test("a kind seen only once a day ago, or many kinds at once (a variable that changes at every call), start none", () => {
    const old = decideStart([], "aaaaaaaa", 0).next;
    expect(decideStart(old, "aaaaaaaa", 25 * 60 * minute).start).toBe(false);
    let seen = old;
    for (let i = 0; i < 40; i++) {
      const step = decideStart(seen, `${i}`.padStart(8, "0"), 1000 + i);
      expect(step.start).toBe(false);
      seen = step.next;
    }
    expect(seen.length).toBe(16);
  });

  test("the record reads back what was written, and ignores what is not a record", () => {
    const { next } = decideStart([], "abcdef0123456789abcd", 5);
    const text = `${next.map((e) => `${e.key} ${e.seen} ${e.started}`).join("\n")}\ngarbage line\n../../etc 1 2\n`;
    expect(parseSeen(text)).toEqual(next);
  });
});
