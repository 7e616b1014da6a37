/**
 * The one YAML reader of policy files: the `yaml` package, strictly. Every
 * policy text (a layer, a file it extends, and the embedded default when
 * verdict is built) goes through here, so no two readers can disagree on what
 * a file says, and whatever would change a file's meaning silently is an
 * error with its line and column:
 *   - a key written twice in one map (another reader would keep the last);
 *   - a merge key (`<<:`), which YAML 1.2 does not define and readers treat differently;
 *   - a tag (`!!str`, `!foo`), which would make a value something other than it reads;
 *   - more aliases than a policy could need (a "billion laughs" file).
 * Anchors and aliases themselves are allowed: in one reader they mean one thing.
 *
 * The `yaml` package costs about 50 ms for a file of 50 rules, so a plain
 * file (nearly every one) is read by Bun's native reader instead, checked
 * for duplicates by counting keys (plain-yaml.ts). The embedded default is
 * read when verdict is built, never at run time.
 */
import type { PolicyProblem } from "./errors.ts";
import { keysIn, plainKeyCount } from "./plain-yaml.ts";

type YamlModule = typeof import("yaml");

let yamlModule: YamlModule | undefined;
/** `require` rather than a static import: a run with no layer never loads the package. */
export function yaml(): YamlModule {
  yamlModule ??= require("yaml") as YamlModule;
  return yamlModule;
}

export type Parsed = { ok: true; data: unknown } | { ok: false; problems: PolicyProblem[] };

const MAX_ALIASES = 100;

/**
 * Parses a policy file's text; problems carry the file, line and column. A plain file (plain-yaml.ts)
 * is read by Bun's native reader, in well under a millisecond, and its keys counted against what that
 * reader returned; anything else, and any file whose count differs (a duplicate key), is read by the
 * `yaml` package, whose answer is the one that stands.
 */
export function parseStrict(text: string, file: string): Parsed {
  const written = plainKeyCount(text);
  if (written !== undefined) {
    try {
      const data = Bun.YAML.parse(text);
      if (keysIn(data) === written) return { ok: true, data };
    } catch {
      // the exact reader below says what is wrong, and where
    }
  }
  return parseExactly(text, file);
}

/** The exact reader: the `yaml` package, strictly. */
export function parseExactly(text: string, file: string): Parsed {
  const { parseDocument, LineCounter, visit, isPair, isScalar } = yaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: false, strict: true });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const where = lineCounter.linePos(offset);
    return { line: where.line, column: where.col };
  };
  const keyPath = (path: readonly unknown[]): string =>
    path
      .filter((node) => isPair(node) && isScalar(node.key))
      .map((node) => String((node as { key: { value: unknown } }).key.value))
      .join(".");
  /** The key path of the key written at `offset` (a duplicate's second occurrence). */
  const pathOfKeyAt = (offset: number): string => {
    let found = "";
    visit(document, {
      Pair(_, pair, path) {
        if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
          found = [keyPath(path), String(pair.key.value)].filter(Boolean).join(".");
          return visit.BREAK;
        }
      },
    });
    return found;
  };
  const problems: PolicyProblem[] = [];
  for (const error of document.errors) {
    const message = error.message.split("\n")[0] ?? error.message;
    const duplicate = error.code === "DUPLICATE_KEY";
    problems.push({
      file,
      ...at(error.pos[0]),
      path: duplicate ? pathOfKeyAt(error.pos[0]) : "",
      message: duplicate ? "a key is written twice in one map" : `not valid YAML: ${message.replace(/ at line \d+, column \d+:?$/, "")}`,
      ...(duplicate ? { hint: "keep one of the two: a YAML reader would silently use only the last" } : {}),
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  visit(document, {
    Pair(_, pair, path) {
      if (isScalar(pair.key) && pair.key.value === "<<" && (pair.key as { source?: string }).source === "<<") {
        problems.push({
          file,
          ...at(pair.key.range?.[0]),
          path: keyPath(path),
          message: "a merge key (<<) is not allowed in a policy",
          hint: "write the keys out: readers of YAML disagree on what << means",
        });
      }
    },
    Node(_, node) {
      // The parser sets a node's tag only when the text writes one.
      const tag = (node as { tag?: string }).tag;
      if (tag !== undefined) {
        problems.push({
          file,
          ...at(node.range?.[0]),
          path: "",
          message: `a tag (${tag.replace(/^tag:yaml.org,2002:/, "!!")}) is not allowed in a policy`,
          hint: "remove the tag and write the value as it is meant",
        });
      }
    },
  });
  if (problems.length > 0) return { ok: false, problems };
  try {
    return { ok: true, data: document.toJS({ maxAliasCount: MAX_ALIASES }) };
  } catch (error) {
    return { ok: false, problems: [{ file, path: "", message: `not valid YAML: ${(error as Error).message}` }] };
  }
}
