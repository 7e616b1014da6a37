/** The task loop's pure pieces, in process: syntax naming, write targets, capped output, diffs, the wire reader, settings. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPolicy } from "../../src/policy/load.ts";
import { parseCompletion } from "../../src/task/client.ts";
import { accumulate, describeEffects, DigestCache, diffFingerprints, fingerprint } from "../../src/task/fingerprint.ts";
import { EXIT, OUTCOME_TABLE, SIGNAL_EXIT } from "../../src/task/outcome.ts";
import { formatNotRun, formatReceipt } from "../../src/task/result.ts";
import { CappedStream, type Receipt } from "../../src/task/runner.ts";
import { resolveSettings } from "../../src/task/settings.ts";
import { findShellSyntax } from "../../src/task/syntax.ts";
import { writePlan } from "../../src/task/targets.ts";
import { tempDir } from "../support/binary.ts";

describe("findShellSyntax", () => {
  test.each([
    ["rg --fixed-strings -- 'TODO' .", undefined],
    ["echo 'a | b; c > d $(e) *'", undefined],
    ['echo "a | b; c > d"', undefined],
    ["echo a\\|b", undefined],
    ["grep -n 'x' a.txt # a comment", undefined],
    ["echo $'tab\\there'", undefined],
    ["git log --format=%H~1", undefined],
    ["a | b", "a pipe (|)"],
    ["a || b", "a list (||)"],
    ["a && b", "a list (&&)"],
    ["a & ", "a background job (&)"],
    ["a > f", "an output redirection (>)"],
    ["a 2>/dev/null", "an output redirection (2>)"],
    ["a &> f", "an output redirection (&>)"],
    ["a < f", "an input redirection (<)"],
    ['echo "$(date)"', "a command substitution ($(…))"],
    ["echo `date`", "a command substitution"],
    ['echo "${HOME}"', "a parameter expansion (${HOME})"],
    ["echo $((1+2))", "an arithmetic expansion ($((…)))"],
    ["ls ~/x", "a tilde expansion (~)"],
    ["ls file?.txt", "a glob pattern (?)"],
    ["ls [ab].txt", "a glob pattern ([)"],
    ["touch {a,b}.txt", "a brace expansion"],
    ["(ls)", "a subshell or grouping"],
    ["ls\npwd", "several lines"],
  ])("%p", (line, what) => {
    expect(findShellSyntax(line)?.what).toBe(what as string | undefined);
  });
});

describe("writePlan", () => {
  const root = tempDir("verdict-targets-");
  mkdirSync(join(root, "dir"));
  writeFileSync(join(root, "a.txt"), "a");
  writeFileSync(join(root, "b.txt"), "b");
  const plan = (line: string) => {
    const result = writePlan(line.split(" "), root);
    return result.known ? result.targets.map((t) => `${t.kind} ${t.path}`) : "unknown";
  };

  test.each([
    ["cp a.txt c.txt", ["create c.txt"]],
    ["cp a.txt b.txt", ["overwrite b.txt"]],
    ["cp a.txt dir", ["create dir/a.txt"]],
    ["cp -T a.txt dir", ["overwrite dir"]],
    ["cp -t dir a.txt b.txt", ["create dir/a.txt", "create dir/b.txt"]],
    ["cp --target-directory=dir a.txt", ["create dir/a.txt"]],
    ["cp -r a.txt b.txt dir", ["create dir/a.txt", "create dir/b.txt"]],
    ["mv a.txt c.txt", ["create c.txt", "remove a.txt"]],
    ["mv -- a.txt dir/", ["create dir/a.txt", "remove a.txt"]],
    ["rm -rf a.txt gone", ["remove a.txt", "remove gone"]],
    ["rmdir dir", ["remove dir"]],
    ["mkdir -p -m 755 dir new", ["create dir", "create new"]],
    ["touch -d 2020-01-01 a.txt", ["create a.txt"]],
    ["ln -s a.txt", ["create a.txt"]],
    ["ln -sf a.txt b.txt", ["overwrite b.txt"]],
    ["ln -s a.txt dir", ["create dir/a.txt"]],
    ["tee -a a.txt", ["modify a.txt"]],
    ["tee out.txt", ["overwrite out.txt"]],
    ["truncate -s 0 a.txt", ["modify a.txt"]],
    ["sed -i s/a/b/ a.txt b.txt", ["modify a.txt", "modify b.txt"]],
    ["sed -i.bak -e s/a/b/ a.txt", ["modify a.txt"]],
    ["sed --in-place=.orig s/a/b/ a.txt", ["modify a.txt"]],
    ["sed -ni p a.txt", ["modify a.txt"]],
    ["sed -n p a.txt", []],
    ["chmod -w a.txt", ["modify a.txt"]],
    ["chmod --reference=b.txt a.txt", ["modify a.txt"]],
    ["chown me a.txt", ["modify a.txt"]],
    ["dd if=a.txt of=c.txt", ["create c.txt"]],
    ["git commit -m x", "unknown"],
  ])("%p", (line, expected) => {
    expect(plan(line)).toEqual(expected as string[] | "unknown");
  });

  test("claims: a copy of a file must hold its bytes; a move must leave no source", () => {
    const copy = writePlan(["cp", "a.txt", "c.txt"], root);
    expect(copy.known && copy.claims).toEqual([
      { kind: "exists", path: join(root, "c.txt") },
      { kind: "same-content", path: join(root, "c.txt"), source: join(root, "a.txt") },
    ]);
    const move = writePlan(["mv", "a.txt", "c.txt"], root);
    expect(move.known && move.claims).toEqual([
      { kind: "exists", path: join(root, "c.txt") },
      { kind: "absent", path: join(root, "a.txt") },
    ]);
    const touch = writePlan(["touch", "-c", "a.txt"], root);
    expect(touch.known && touch.claims).toEqual([]);
  });
});

describe("CappedStream", () => {
  test("keeps everything up to the cap", () => {
    const stream = new CappedStream(10);
    stream.push(Buffer.from("12345"));
    stream.push(Buffer.from("67890"));
    expect(stream.receipt()).toEqual({ text: "1234567890", bytes: 10, truncated: false });
  });

  test("keeps the head and the tail past the cap, with a marker", () => {
    const stream = new CappedStream(6);
    for (const chunk of ["ab", "cdef", "ghij", "kl"]) stream.push(Buffer.from(chunk));
    const receipt = stream.receipt();
    expect(receipt.truncated).toBe(true);
    expect(receipt.bytes).toBe(12);
    expect(receipt.text).toBe("abc\n[… truncated: 6 bytes dropped; kept the first 3 and the last 3 of 12 bytes …]\njkl");
  });
});

describe("fingerprints", () => {
  test("diff, accumulate net of reversals, cap and .git skipped", () => {
    const root = tempDir("verdict-print-");
    writeFileSync(join(root, "a"), "1");
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git/HEAD"), "x");
    const first = fingerprint(root, 100);
    expect([...first.entries.keys()]).toEqual(["a"]);
    writeFileSync(join(root, "a"), "2");
    writeFileSync(join(root, "b"), "new");
    const second = fingerprint(root, 100);
    const diff = diffFingerprints(first, second);
    expect(diff).toEqual({ added: ["b"], removed: [], changed: ["a"], complete: true });
    const total = accumulate(diff, { added: [], removed: ["b"], changed: [], complete: true });
    expect(total).toEqual({ added: [], removed: [], changed: ["a"], complete: true });
    const capped = fingerprint(root, 1);
    expect(capped.complete).toBe(false);
    expect(describeEffects({ ...total, complete: false })).toBe("changed a (fingerprint incomplete)");
  });
});

describe("the digest cache", () => {
  test("a file rewritten at once with the same size is still seen to change", () => {
    const root = tempDir("verdict-cache-");
    const cache = new DigestCache();
    writeFileSync(join(root, "f"), "aaaa");
    const before = fingerprint(root, 10, cache);
    writeFileSync(join(root, "f"), "bbbb");
    const after = fingerprint(root, 10, cache);
    expect(diffFingerprints(before, after).changed).toEqual(["f"]);
  });
});

describe("parseCompletion", () => {
  const reply = (message: unknown, extra: Record<string, unknown> = {}) => ({ choices: [{ message, finish_reason: "stop" }], ...extra });

  test("text parts, the handler from a thinking step on the message, cmd as an alias of command", () => {
    const parsed = parseCompletion(
      reply({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
        thinking_steps: [{ step: "dispatch_handler", detail: "unknown" }],
      }),
    );
    expect(parsed).toMatchObject({ ok: true, completion: { content: "ab", handler: "unknown", toolCalls: [] } });
    const call = parseCompletion(
      reply({ content: null, tool_calls: [{ id: "c1", function: { name: "shell", arguments: '{"cmd":"date"}' } }] }),
    );
    expect(call).toMatchObject({ ok: true, completion: { content: "", toolCalls: [{ id: "c1", name: "shell", command: "date" }] } });
  });

  test("a top-level handler wins; the capability refusal is recognised", () => {
    expect(parseCompletion(reply({ content: "x" }, { handler: "greeting" }))).toMatchObject({ completion: { handler: "greeting" } });
    const refusal = parseCompletion(reply({ content: "Tool calls are not allowed for `shell`: not granted." }));
    expect(refusal).toMatchObject({ completion: { toolRefusal: { kind: "capability-not-granted" } } });
  });

  test("what breaks the protocol", () => {
    expect(parseCompletion([])).toMatchObject({ ok: false, reason: "malformed-response" });
    expect(parseCompletion(reply({ content: 3 }))).toMatchObject({ ok: false, reason: "malformed-response" });
    expect(parseCompletion(reply({ content: "", tool_calls: [{ function: { name: "shell", arguments: "{}" } }] }))).toMatchObject({
      ok: false,
      reason: "bad-arguments",
    });
    expect(parseCompletion(reply({ content: "", tool_calls: [{ function: { name: "bash", arguments: "{}" } }] }))).toMatchObject({
      ok: false,
      reason: "unknown-tool",
    });
  });
});

describe("tool results", () => {
  const receipt = (fields: Partial<Receipt>): Receipt => ({
    argv: ["x"],
    startedAt: "",
    durationMs: 1,
    exitCode: 0,
    signal: null,
    status: 0,
    timedOut: false,
    cancelled: false,
    spawnError: null,
    stdout: { text: "", bytes: 0, truncated: false },
    stderr: { text: "", bytes: 0, truncated: false },
    ...fields,
  });

  test("the envelope: stderr next to exit 0 stays a success; a signal is named", () => {
    expect(formatReceipt("x", "/w", receipt({ stderr: { text: "warning\n", bytes: 8, truncated: false } }))).toBe(
      "Command: x\nDirectory: /w\nOutput: (empty)\nError: warning\nExit Code: 0",
    );
    expect(formatReceipt("x", "/w", receipt({ exitCode: null, signal: "SIGKILL", status: 137 }))).toEndWith(
      "Exit Code: 137\nSignal: SIGKILL",
    );
    expect(formatReceipt("nope", "/w", receipt({ exitCode: null, status: 127, spawnError: "command not found: nope" }))).toContain(
      "Error: command not found: nope\nExit Code: 127",
    );
  });

  test("a refusal is a JSON status with no error or stderr field", () => {
    const text = formatNotRun({ status: "refused", reason: "shell-syntax", message: "m", command: "a | b" });
    expect(JSON.parse(text)).toEqual({ status: "refused", reason: "shell-syntax", message: "m", command: "a | b" });
  });
});

describe("outcomes", () => {
  test("every exit status is distinct and documented", () => {
    const codes = [...Object.values(EXIT), ...Object.values(SIGNAL_EXIT)];
    expect(new Set(codes).size).toBe(codes.length);
    expect(OUTCOME_TABLE.map(([status]) => status).sort()).toEqual([
      "answered",
      "budget-exhausted",
      "cancelled",
      "completed",
      "protocol-error",
      "refused",
      "unavailable",
      "unsupported",
      "unverified",
    ]);
  });
});

describe("settings", () => {
  const loaded = loadPolicy({ cwd: "/", env: {}, only: ["default"] });
  if (!loaded.ok) throw loaded.error;
  const task = loaded.loaded.policy.task;

  test("policy, then VERDICT_TASK_* variables, then flags", () => {
    const result = resolveSettings(
      task,
      { VERDICT_TASK_EFFECTS: "read-only", VERDICT_TASK_RUN_WITHIN: "90s" },
      new Map([["--effects", "any"]]),
    );
    expect(result).toMatchObject({
      ok: true,
      settings: {
        endpoint: "http://127.0.0.1:8080/api/openai/v1",
        bounds: { effects: "any", runWithinMs: 90_000, maxOutputBytes: 64_000, graceMs: 2000 },
        from: { effects: "flag --effects", run_within: "env VERDICT_TASK_RUN_WITHIN", model: "policy" },
      },
    });
  });

  test("a value that does not parse names its source", () => {
    expect(resolveSettings(task, {}, new Map([["--max-tool-calls", "0"]]))).toEqual({
      ok: false,
      error: '--max-tool-calls "0" is not a whole number from 1 to 10000',
    });
    expect(resolveSettings(task, { VERDICT_TASK_CALL_WITHIN: "soon" }, new Map())).toMatchObject({
      ok: false,
      error: expect.stringContaining("VERDICT_TASK_CALL_WITHIN"),
    });
  });
});
