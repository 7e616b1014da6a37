/**
 * The approvals journal: append-only JSONL, one record per line, each
 * chained to the one before. A record's `hash` is SHA-256 over a domain name
 * and the record's exact bytes without the hash itself (its canonical JSON,
 * `prev` included); `prev` is the hash of the record before it (64 zeros for
 * the first). A stored line must be the canonical JSON of its record, so no
 * byte of it can change without the chain saying so.
 *
 * Appends are serialised with a lock file and fsync'd before they count. A
 * torn last line (a crash mid-write) is never dropped silently: the next
 * append moves its bytes into a `journal.torn` record, and `verify` reports
 * it before that and after.
 *
 * The anchor: after every append the head of the chain (its last sequence number and hash) is written
 * to a separate owner-only file beside the journal (`approvals.jsonl.anchor`) and shown by `approvals
 * list`. A chain rewritten from an edit onward, or cut at its end, is consistent with itself but not
 * with the anchor, so `verify` reports it and appends are refused. The journal and its files are
 * opened without following links.
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { stateDir } from "../files/dirs.ts";
import { ensurePrivateDir, openPrivateAppend, readPrivate, writePrivateAtomic } from "../files/private.ts";
import { dirname, join } from "node:path";
import { DOMAIN, canonicalJson, digestOfText } from "./digest.ts";
import { withLock } from "./lock.ts";

export const GENESIS = "0".repeat(64);

type RecordKind =
  | "task.opened" // body: { task }
  | "task.decided" // body: { id, decision }
  | "grant.used" // body: { id, session, call }: an approval let a call through
  | "refusal.told" // body: { id }: a rejection or expiry was told to the caller
  | "task.ended" // body: { session, task }: task-scoped approvals end
  | "run.ended" // body: { session }: run-scoped approvals end, open tasks are withdrawn
  | "policy.amended" // body: { id, layer, file, rule }: an "always" approval wrote a rule
  | "journal.torn"; // body: { offset, length, base64 }: a torn last line, kept

export type JournalRecord = {
  v: 1;
  seq: number;
  at: string;
  kind: RecordKind;
  body: Record<string, unknown>;
  prev: string;
  hash: string;
};

export type NewRecord = { kind: RecordKind; body: Record<string, unknown> };

/** The first thing wrong with a journal. */
type Damage = {
  /** 1-based line number */
  line: number;
  offset: number;
  kind: "torn" | "broken";
  message: string;
};

type Journal = {
  path: string;
  /** Every intact record up to the first damage. */
  records: JournalRecord[];
  damage?: Damage;
  /** Byte length of the intact part. */
  intactBytes: number;
};

/** verdict's state directory: $XDG_STATE_HOME/verdict, ~/.local/state/verdict by default. */
export { stateDir };

export function journalPath(env: Record<string, string | undefined> = process.env): string {
  return join(stateDir(env), "approvals.jsonl");
}

export class JournalDamaged extends Error {
  constructor(
    readonly path: string,
    readonly damage: Damage,
  ) {
    super(`the approvals journal ${path} is damaged at line ${damage.line}: ${damage.message}; run verdict approvals verify`);
    this.name = "JournalDamaged";
  }
}

function recordHash(unhashed: Omit<JournalRecord, "hash">): string {
  return digestOfText(DOMAIN.record, canonicalJson(unhashed));
}

/** Checks one stored line against the record before it. */
function checkLine(line: string, seq: number, prev: string): { record: JournalRecord } | { message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { message: "not JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { message: "not a record" };
  const record = parsed as JournalRecord;
  let canonical: string;
  try {
    canonical = canonicalJson(record);
  } catch {
    return { message: "not a record" };
  }
  if (canonical !== line) return { message: "its bytes are not the record verdict wrote (edited or reformatted)" };
  if (record.v !== 1 || typeof record.hash !== "string" || typeof record.kind !== "string" || typeof record.body !== "object") {
    return { message: "not a record of this journal version" };
  }
  if (record.seq !== seq) return { message: `sequence ${String(record.seq)} where ${seq} was expected (a record was removed or inserted)` };
  if (record.prev !== prev) return { message: "it does not follow the record before it (prev hash differs)" };
  const { hash, ...unhashed } = record;
  if (recordHash(unhashed) !== hash) return { message: "its hash does not match its content (edited)" };
  return { record };
}

/**
 * Reads and checks the journal at `path`. Without the lock a last line
 * without its newline may be an append in progress; `torn` damage is only
 * final when read under the lock.
 */
export function readJournal(path: string): Journal {
  let bytes: Buffer;
  try {
    const read = readPrivate(path, 1024 * 1024 * 1024);
    if (read === undefined) return { path, records: [], intactBytes: 0 };
    bytes = read;
  } catch (error) {
    throw new Error(`cannot read the approvals journal ${path}: ${(error as Error).message}`);
  }
  const records: JournalRecord[] = [];
  let offset = 0;
  let prev = GENESIS;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    const lineNo = records.length + 1;
    if (end < 0) {
      return {
        path,
        records,
        intactBytes: offset,
        damage: {
          line: lineNo,
          offset,
          kind: "torn",
          message: `the last line is torn: ${bytes.length - offset} bytes without an end (a write cut off by a crash)`,
        },
      };
    }
    const checked = checkLine(bytes.subarray(offset, end).toString("utf8"), records.length, prev);
    if ("message" in checked)
      return { path, records, intactBytes: offset, damage: { line: lineNo, offset, kind: "broken", message: checked.message } };
    records.push(checked.record);
    prev = checked.record.hash;
    offset = end + 1;
  }
  return { path, records, intactBytes: offset };
}

/** Writes all of `data` to `fd`. */
function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

function seal(kind: RecordKind, body: Record<string, unknown>, seq: number, prev: string, at: string): JournalRecord {
  const unhashed = { v: 1 as const, seq, at, kind, body: JSON.parse(JSON.stringify(body)) as Record<string, unknown>, prev };
  return { ...unhashed, hash: recordHash(unhashed) };
}

/**
 * Under the lock: reads the journal, lets `decide` look at its records and
 * say what to append, then appends and fsyncs those records before
 * returning `decide`'s result. A torn last line is kept in a `journal.torn`
 * record first; any other damage refuses the append.
 */
export function transact<T>(
  path: string,
  decide: (records: readonly JournalRecord[]) => { append: NewRecord[]; result: T },
  now: () => Date = () => new Date(),
  lockWaitMs?: number,
): T {
  ensurePrivateDir(dirname(path));
  return withLock(
    `${path}.lock`,
    () => {
      const journal = readJournal(path);
      const repairs: NewRecord[] = [];
      if (journal.damage?.kind === "broken") throw new JournalDamaged(path, journal.damage);
      const behind = anchorDamage(journal, readAnchor(path));
      if (behind) throw new JournalDamaged(path, behind);
      const records = journal.records;
      if (journal.damage?.kind === "torn") {
        const torn = (readPrivate(path, 1024 * 1024 * 1024) ?? Buffer.alloc(0)).subarray(journal.intactBytes);
        repairs.push({
          kind: "journal.torn",
          body: { offset: journal.intactBytes, length: torn.length, base64: torn.toString("base64"), line: journal.damage.line },
        });
      }
      const { append, result } = decide(records);
      const wanted = [...repairs, ...append];
      if (wanted.length === 0) return result;
      const at = now().toISOString();
      let prev = records.at(-1)?.hash ?? GENESIS;
      let seq = records.length;
      const sealed: JournalRecord[] = [];
      for (const item of wanted) {
        const record = seal(item.kind, item.body, seq++, prev, at);
        prev = record.hash;
        sealed.push(record);
      }
      const created = !existsSync(path);
      const fd = openPrivateAppend(path, true); // its folder was checked at the start of transact
      try {
        if (journal.damage?.kind === "torn") ftruncateSync(fd, journal.intactBytes);
        const text = sealed.map((record) => `${canonicalJson(record)}\n`).join("");
        writeAll(fd, Buffer.from(text, "utf8"));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (created) syncDirectory(dirname(path));
      const head = sealed.at(-1)!;
      writeAnchor(path, { v: 1, seq: head.seq, hash: head.hash, at: head.at });
      return result;
    },
    lockWaitMs,
  );
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not every platform can fsync a directory
  }
}

/** The head of the chain as last written, kept apart from the journal. */
type Anchor = { v: 1; seq: number; hash: string; at: string };

function anchorPath(path: string): string {
  return `${path}.anchor`;
}

export function readAnchor(path: string): Anchor | undefined {
  try {
    const value = JSON.parse(readPrivate(anchorPath(path), 4096)?.toString("utf8") ?? "null") as Anchor | null;
    return value && Number.isInteger(value.seq) && typeof value.hash === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function writeAnchor(path: string, anchor: Anchor): void {
  writePrivateAtomic(anchorPath(path), `${JSON.stringify(anchor)}\n`, { sync: true });
}

/**
 * How the journal disagrees with its anchor, if it does: records removed from its end (it is shorter
 * than the anchor says), or rewritten (the anchored record's hash differs). Records after the anchor
 * are an append whose anchor was not written yet (a crash between the two); they are not damage.
 */
function anchorDamage(journal: Journal, anchor: Anchor | undefined): Damage | undefined {
  if (!anchor) return undefined;
  const line = Math.min(anchor.seq, journal.records.length) + 1;
  if (anchor.seq >= journal.records.length) {
    return {
      line,
      offset: journal.intactBytes,
      kind: "broken",
      message: `the journal holds ${journal.records.length} intact records but its anchor (${anchorPath(journal.path)}) says record ${anchor.seq} was written at ${anchor.at}: records were removed or cut from its end`,
    };
  }
  if (journal.records[anchor.seq]!.hash !== anchor.hash) {
    return {
      line,
      offset: 0,
      kind: "broken",
      message: `record ${anchor.seq} is not the one its anchor (${anchorPath(journal.path)}) recorded: the journal was rewritten`,
    };
  }
  return undefined;
}

/** What `verify` found: every record checked, the first damage, and the torn writes kept so far. */
export type Verification = {
  path: string;
  records: number;
  damage?: Damage;
  tornKept: { seq: number; line: number; length: number }[];
  /** The head as anchored; absent for a journal written before anchors (or with its anchor removed). */
  anchor?: Anchor;
};

/** Checks the whole chain and its anchor, under the lock so an append in progress is not taken for a torn line. */
export function verifyJournal(path: string): Verification {
  const journal = existsSync(path) ? withLock(`${path}.lock`, () => readJournal(path)) : readJournal(path);
  const anchor = readAnchor(path);
  const tornKept = journal.records
    .filter((record) => record.kind === "journal.torn")
    .map((record) => ({ seq: record.seq, line: Number(record.body.line), length: Number(record.body.length) }));
  // A chain that is intact in itself may still disagree with its anchor; a torn tail is checked too.
  const damage = journal.damage?.kind === "broken" ? journal.damage : (anchorDamage(journal, anchor) ?? journal.damage);
  return { path, records: journal.records.length, ...(damage ? { damage } : {}), tornKept, ...(anchor ? { anchor } : {}) };
}
