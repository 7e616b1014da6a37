/**
 * Codex's apply_patch format, parsed into what it does per file. The grammar (codex-rs apply-patch):
 *
 *   *** Begin Patch
 *   *** Add File: <path>        then lines starting with +
 *   *** Delete File: <path>
 *   *** Update File: <path>     optionally followed by *** Move to: <path>, then hunks:
 *   @@ [context]                 lines starting with ' ', - or +; *** End of File may close a hunk
 *   *** End Patch
 *
 * The hook may also see the patch wrapped as a shell here-document (`apply_patch <<'EOF' ... EOF`).
 * Anything that does not follow the grammar is an error: an unreadable patch is not judged as harmless.
 */

type PatchOp =
  | { op: "add"; path: string; content: string; added: number }
  | { op: "delete"; path: string }
  | { op: "update"; path: string; moveTo?: string; added: number; removed: number; newText: string; oldText: string };

type PatchResult = { ok: true; ops: PatchOp[] } | { ok: false; error: string };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";

/** The patch text out of a here-document wrapper, when it is wrapped. */
function unwrap(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start <= 0) return text;
  const end = text.indexOf(END, start);
  return end === -1 ? text.slice(start) : text.slice(start, end + END.length);
}

export function parsePatch(input: string): PatchResult {
  const lines = unwrap(input).replace(/\r\n/g, "\n").split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (lines[i]?.trim() !== BEGIN) return { ok: false, error: `the patch does not start with "${BEGIN}"` };
  i++;
  const ops: PatchOp[] = [];
  let ended = false;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === END) {
      ended = true;
      i++;
      break;
    }
    const header = /^\*\*\* (Add|Delete|Update) File: (.+)$/.exec(line);
    if (!header)
      return {
        ok: false,
        error: `line ${i + 1}: expected "*** Add File:", "*** Delete File:", "*** Update File:" or "${END}", found ${JSON.stringify(line.slice(0, 80))}`,
      };
    const path = header[2]!.trim();
    if (path === "") return { ok: false, error: `line ${i + 1}: a file header without a path` };
    i++;
    if (header[1] === "Delete") {
      ops.push({ op: "delete", path });
      continue;
    }
    if (header[1] === "Add") {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.startsWith("+")) body.push(lines[i++]!.slice(1));
      ops.push({ op: "add", path, content: body.length > 0 ? `${body.join("\n")}\n` : "", added: body.length });
      continue;
    }
    let moveTo: string | undefined;
    const move = /^\*\*\* Move to: (.+)$/.exec(lines[i] ?? "");
    if (move) {
      moveTo = move[1]!.trim();
      i++;
    }
    let added = 0;
    let removed = 0;
    const newText: string[] = [];
    const oldText: string[] = [];
    while (i < lines.length) {
      const body = lines[i]!;
      if (body.startsWith("*** ") && body.trim() !== "*** End of File") break;
      if (body.startsWith("@@") || body.trim() === "*** End of File") {
        i++;
        continue;
      }
      const mark = body[0];
      if (mark === "+") {
        added++;
        newText.push(body.slice(1));
      } else if (mark === "-") {
        removed++;
        oldText.push(body.slice(1));
      } else if (mark === " " || body === "") {
        newText.push(body.slice(1));
        oldText.push(body.slice(1));
      } else
        return {
          ok: false,
          error: `line ${i + 1}: a hunk line must start with " ", "-" or "+", found ${JSON.stringify(body.slice(0, 80))}`,
        };
      i++;
    }
    if (!moveTo && added === 0 && removed === 0) return { ok: false, error: `the update of ${path} changes nothing` };
    ops.push({
      op: "update",
      path,
      ...(moveTo ? { moveTo } : {}),
      added,
      removed,
      newText: newText.join("\n"),
      oldText: oldText.join("\n"),
    });
  }
  if (!ended) return { ok: false, error: `the patch does not end with "${END}"` };
  if (ops.length === 0) return { ok: false, error: "the patch changes no file" };
  return { ok: true, ops };
}
