/**
 * Regular expressions that can backtrack catastrophically, refused when a policy loads.
 *
 * JavaScript's engine backtracks, so a repeated group that itself repeats (`(a+)+$`, `(\w+\s?)*x`,
 * `(.*a){20}`) can take exponential time on a line that almost matches: 0.45 s per argument for
 * `(a+)+$` once made a hook miss every host's timeout. A policy's patterns run on every hook, on text
 * the assistant wrote, so such a pattern is an error at load time, not a slow hook later. The check is
 * on the pattern's shape (nested repetition), a little stricter than needed; rewriting the pattern
 * without the nesting (`a+$`) keeps its meaning in practice.
 */

/**
 * A repeated group whose every turn starts with a separator the repetitions inside cannot match
 * (`(:\w+)*`, `(\.[a-z]+)+`, `(-\d+)*`) cannot split a string two ways: each turn is found by its
 * separator, so it stays linear.
 */
function separated(group: { first?: string; atoms: string[]; nested: boolean }): boolean {
  if (group.nested || group.first === undefined) return false;
  const sep = group.first === "\\." ? "." : /^\\?([^\w\s\\()[\]{}|.*+?^$])$/.exec(group.first)?.[1];
  if (sep === undefined) return false;
  return group.atoms.every(
    (atom) =>
      /^\\[wd]$/.test(atom) || (/^\[[^\^][^\]]*\]$/.test(atom) && !atom.includes(sep) && !atom.includes("\\W") && !atom.includes("\\S")),
  );
}

/** Plain alternatives of a group where one is a prefix of another (`a|aa`, `x|x`): each turn can split two ways. */
function overlappingBranches(body: string): boolean {
  const inner = body.replace(/^\?(?::|<[A-Za-z_][A-Za-z0-9_]*>)/, "");
  if (!inner.includes("|")) return false;
  const branches = inner.split("|");
  if (branches.some((b) => !/^[A-Za-z0-9 _-]*$/.test(b))) return false;
  return branches.some((a, i) => branches.some((b, j) => i !== j && b.startsWith(a)));
}

/** Why `source` can backtrack catastrophically, or undefined when its shape is safe. */
export function nestedRepetition(source: string): string | undefined {
  const stack: { quantified: boolean; start: number; first?: string; atoms: string[]; nested: boolean }[] = [];
  let i = 0;
  /** The length of a repeating quantifier at `at` (`*`, `+`, `{n,}`, `{n,m}` with m >= 2, `{n}` n >= 2), else 0. */
  const repeatAt = (at: number): number => {
    const c = source[at];
    if (c === "*" || c === "+") return 1;
    if (c !== "{") return 0;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 24));
    if (!m) return 0;
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : m[3] === "" ? Infinity : Number(m[3]);
    return high >= 2 ? m[0].length : 0;
  };
  const markQuantified = (atom: string | undefined) => {
    const top = stack.at(-1);
    if (!top) return;
    top.quantified = true;
    if (atom === undefined) top.nested = true;
    else top.atoms.push(atom);
  };
  const noteAtom = (atom: string) => {
    const top = stack.at(-1);
    if (top && top.first === undefined) top.first = atom;
  };
  while (i < source.length) {
    const c = source[i]!;
    const atomStart = i;
    if (c === "\\") {
      i += 2;
    } else if (c === "[") {
      i++;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++;
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "(") {
      noteAtom("(");
      stack.push({ quantified: false, start: i, atoms: [], nested: false });
      i++;
      if (source[i] === "?") {
        const m = /^\?(?::|=|!|<=|<!|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(source.slice(i, i + 40));
        i += m ? m[0].length : 1;
      }
      continue;
    } else if (c === ")") {
      const group = stack.pop();
      i++;
      const repeat = repeatAt(i);
      if (group && repeat > 0 && overlappingBranches(source.slice(group.start + 1, i - 1))) {
        return `the group at character ${group.start + 1} repeats, and one of its alternatives is a prefix of another (like (a|aa)*): on a line that almost matches it can take exponential time`;
      }
      if (group && repeat > 0 && group.quantified && !separated(group)) {
        return `the group at character ${group.start + 1} repeats, and something inside it repeats too (like (a+)+): on a line that almost matches it can take exponential time`;
      }
      if (group && (group.quantified || repeat > 0)) markQuantified(undefined);
      i += repeat;
      continue;
    } else {
      i++;
    }
    const atom = source.slice(atomStart, i);
    if (!["|", "^", "$"].includes(atom)) noteAtom(atom);
    // A quantifier after an atom (a character, an escape, a class).
    const repeat = repeatAt(i);
    if (repeat > 0) {
      markQuantified(atom);
      i += repeat;
    }
  }
  return undefined;
}
