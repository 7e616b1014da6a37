/**
 * A policy that cannot be used, as a value: where (file, line, column, key
 * path), what was expected, what was found, and what to do about it.
 */
export type PolicyProblem = {
  file: string;
  line?: number;
  column?: number;
  /** The key path, dot-separated: judge.thresholds.ask_at_undo, rules.3.match. */
  path: string;
  message: string;
  expected?: string;
  found?: string;
  hint?: string;
};

export class PolicyError extends Error {
  constructor(readonly problems: PolicyProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "PolicyError";
  }
}

/** `file:line:col: path: message (expected X, found Y). hint` */
export function formatProblem(problem: PolicyProblem): string {
  const where = [problem.file, problem.line, problem.column].filter((part) => part !== undefined).join(":");
  const at = problem.path ? `${problem.path}: ` : "";
  const detail = [problem.expected && `expected ${problem.expected}`, problem.found && `found ${problem.found}`].filter(Boolean).join(", ");
  return `${where}: ${at}${problem.message}${detail ? ` (${detail})` : ""}${problem.hint ? `\n  hint: ${problem.hint}` : ""}`;
}
