// Differential checks against bash itself: on real commands from the shared corpus, and on
// mutated copies of them, verdict's parser must never accept a line that `bash -n` rejects.
// (The reverse is allowed only for unterminated here-documents, which bash runs with a
// warning and verdict refuses on purpose.)
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCommandLine } from "../../src/shell/index.ts";

const CORPUS = join(import.meta.dir, "../../../shared/corpus");
const haveBash = Bun.which("bash") !== null;

function corpusCommands(): string[] {
  const out = new Set<string>();
  for (const f of readdirSync(CORPUS).filter((n) => n.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(CORPUS, f), "utf8").trim().split("\n")) out.add((JSON.parse(line) as { command: string }).command);
  }
  return [...out];
}

async function bashAccepts(lines: readonly string[]): Promise<boolean[]> {
  const result: boolean[] = new Array(lines.length).fill(false);
  let next = 0;
  const worker = async () => {
    while (next < lines.length) {
      const k = next++;
      const p = Bun.spawn(["bash", "-n", "-c", "--", lines[k] as string], { stdout: "ignore", stderr: "ignore" });
      result[k] = (await p.exited) === 0;
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return result;
}

/** Deterministic mutations: insert shell punctuation or delete a few characters. */
function mutate(rows: readonly string[], count: number, seed: number): string[] {
  let s = seed;
  const rnd = (n: number) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
  const bits = [
    "'",
    '"',
    "`",
    "$(",
    ")",
    "(",
    "{ ",
    " }",
    ";",
    "&",
    "|",
    "<",
    ">",
    "<<",
    "\n",
    "\\",
    "$",
    "#",
    " ",
    "EOF",
    "if ",
    "fi",
    "do",
    "done",
    "[[",
    "]]",
    "$((",
    "=",
    "case ",
    "esac",
    ";;",
    "<(",
    "${",
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let line = rows[rnd(rows.length)] as string;
    for (let j = 1 + rnd(3); j > 0; j--) {
      const p = rnd(line.length + 1);
      line = rnd(2) === 0 ? line.slice(0, p) + bits[rnd(bits.length)] + line.slice(p) : line.slice(0, p) + line.slice(p + 1 + rnd(3));
    }
    out.push(line);
  }
  return out;
}

describe.skipIf(!haveBash || !existsSync(CORPUS))("agreement with bash -n", () => {
  test("mutated corpus lines: nothing bash rejects is accepted", async () => {
    const lines = mutate(corpusCommands(), 400, 20260101);
    const bash = await bashAccepts(lines);
    const acceptedButBashRejects = lines.filter((l, k) => parseCommandLine(l).ok && !bash[k]);
    expect(acceptedButBashRejects).toEqual([]);
    const rejectedButBashAccepts = lines.filter((l, k) => !parseCommandLine(l).ok && bash[k]);
    // Stricter than bash only on purpose: unterminated here-documents, empty command names,
    // and code handed to a shell (`bash -c '...'`) that does not parse.
    for (const l of rejectedButBashAccepts) {
      const r = parseCommandLine(l);
      expect([l, !r.ok && /here-document|empty command name|in code run by/.test(r.error)]).toEqual([l, true]);
    }
  }, 60_000);
});
