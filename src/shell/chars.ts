// Character tests written as code rather than regular expressions: a compiled
// binary pays tens of microseconds to compile each regex on first use, and
// these run on every command.

/** A letter or underscore: may start a shell variable name. */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}

/** Length of the variable name starting at `from` (0 when there is none). */
export function nameLength(s: string, from: number): number {
  if (!isNameStart(s.charCodeAt(from))) return 0;
  let i = from + 1;
  while (i < s.length && isNameChar(s.charCodeAt(i))) i++;
  return i - from;
}

/**
 * For `NAME=`, `NAME+=` or `NAME[sub]=` at the start of `s`: the name and the
 * length of the prefix up to and including `=`; null when `s` is not an assignment.
 */
export function assignmentPrefix(s: string): { name: string; length: number } | null {
  const n = nameLength(s, 0);
  if (n === 0) return null;
  let i = n;
  if (s.charCodeAt(i) === 91 /* [ */) {
    const close = s.indexOf("]", i + 1);
    if (close === -1) return null;
    i = close + 1;
  }
  if (s.charCodeAt(i) === 43 /* + */) i++;
  if (s.charCodeAt(i) !== 61 /* = */) return null;
  return { name: s.slice(0, n), length: i + 1 };
}
