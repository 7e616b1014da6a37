/**
 * Which paths a write touches, and what reading them back afterwards must
 * show, for the file tools whose arguments say it exactly: cp, mv, rm,
 * rmdir, unlink, mkdir, touch, ln, tee, truncate, sed -i, chmod, chown,
 * chgrp and dd. Any other program's targets are unknown.
 *
 * A target's kind says what the write does to it: `create` makes a new entry
 * and leaves an existing one's content alone (mkdir, touch, a link without
 * -f); `overwrite` replaces content; `modify` changes content or metadata in
 * place; `remove` deletes it. Claims are what must hold afterwards.
 */
import { isAbsolute, join, resolve } from "node:path";
import { lstatSync, statSync } from "node:fs";

type TargetKind = "create" | "overwrite" | "modify" | "remove";

export type WriteTarget = {
  /** As the command names it (or as derived: `dir/name` for a copy into a directory). */
  path: string;
  /** Resolved against the call's working directory (links not followed). */
  absolute: string;
  kind: TargetKind;
};

export type Claim =
  | { kind: "exists"; path: string; type?: "file" | "dir" | "symlink" }
  | { kind: "absent"; path: string }
  /** The target holds the source's bytes (a regular file copied). */
  | { kind: "same-content"; path: string; source: string }
  /** The target's content or mode differs from before the call. */
  | { kind: "changed"; path: string };

export type WritePlan =
  | { known: true; program: string; targets: WriteTarget[]; sources: string[]; claims: Claim[] }
  | { known: false; program: string };

type Opt = { name: string; value?: string };
type Spec = { arg?: string; long?: string[] };

/** Options and operands, GNU style: options may follow operands, `--` ends them, `-abc` clusters. */
function split(args: string[], spec: Spec): { opts: Opt[]; operands: string[] } {
  const opts: Opt[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--") && a.length > 2) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (eq >= 0) opts.push({ name, value: a.slice(eq + 1) });
      else if (spec.long?.includes(name)) opts.push({ name, value: args[++i] ?? "" });
      else opts.push({ name });
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let c = 1; c < a.length; c++) {
        const ch = a[c]!;
        if (spec.arg?.includes(ch)) {
          opts.push({ name: ch, value: c + 1 < a.length ? a.slice(c + 1) : (args[++i] ?? "") });
          break;
        }
        opts.push({ name: ch });
      }
      continue;
    }
    operands.push(a);
  }
  return { opts, operands };
}

const has = (opts: Opt[], ...names: string[]) => opts.some((o) => names.includes(o.name));
const valueOf = (opts: Opt[], ...names: string[]) => opts.filter((o) => names.includes(o.name)).at(-1)?.value;

function base(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || trimmed;
}

function basenameOf(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

export function resolveIn(cwd: string, path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

function isDir(absolute: string): boolean {
  try {
    return statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

export function exists(absolute: string): boolean {
  try {
    lstatSync(absolute);
    return true;
  } catch {
    return false;
  }
}

export function writePlan(argv: string[], cwd: string): WritePlan {
  const program = basenameOf(argv[0] ?? "");
  const args = argv.slice(1);
  const targets: WriteTarget[] = [];
  const claims: Claim[] = [];
  const sources: string[] = [];
  const target = (path: string, kind: TargetKind) => {
    const absolute = resolveIn(cwd, path);
    targets.push({ path, absolute, kind });
    return absolute;
  };
  const known = (): WritePlan => ({ known: true, program, targets, sources: sources.map((s) => resolveIn(cwd, s)), claims });

  switch (program) {
    case "cp":
    case "mv": {
      const { opts, operands } = split(args, { arg: "tS", long: ["target-directory", "suffix"] });
      const into = valueOf(opts, "t", "target-directory");
      const noDir = has(opts, "T", "no-target-directory");
      let srcs: string[];
      let pairs: [string, string][];
      if (into !== undefined) {
        srcs = operands;
        pairs = srcs.map((src) => [src, join(into, base(src))]);
      } else {
        if (operands.length < 2) return known();
        const dest = operands.at(-1)!;
        srcs = operands.slice(0, -1);
        const destIsDir = !noDir && (srcs.length > 1 || isDir(resolveIn(cwd, dest)));
        pairs = srcs.map((src) => [src, destIsDir ? join(dest, base(src)) : dest]);
      }
      for (const [src, dst] of pairs) {
        const dstAbs = resolveIn(cwd, dst);
        const srcAbs = resolveIn(cwd, src);
        sources.push(src);
        target(dst, exists(dstAbs) ? "overwrite" : "create");
        claims.push({ kind: "exists", path: dstAbs });
        if (program === "cp" && isRegularFile(srcAbs)) claims.push({ kind: "same-content", path: dstAbs, source: srcAbs });
        if (program === "mv" && srcAbs !== dstAbs) {
          target(src, "remove");
          claims.push({ kind: "absent", path: srcAbs });
        }
      }
      return known();
    }
    case "rm":
    case "unlink": {
      const { operands } = split(args, {});
      for (const path of operands) claims.push({ kind: "absent", path: target(path, "remove") });
      return known();
    }
    case "rmdir": {
      const { operands } = split(args, {});
      for (const path of operands) claims.push({ kind: "absent", path: target(path, "remove") });
      return known();
    }
    case "mkdir": {
      const { operands } = split(args, { arg: "mZ", long: ["mode", "context"] });
      for (const path of operands) claims.push({ kind: "exists", path: target(path, "create"), type: "dir" });
      return known();
    }
    case "touch": {
      const { opts, operands } = split(args, { arg: "drt", long: ["date", "reference", "time"] });
      const noCreate = has(opts, "c", "no-create");
      for (const path of operands) {
        const absolute = target(path, "create");
        if (!noCreate) claims.push({ kind: "exists", path: absolute });
      }
      return known();
    }
    case "ln": {
      const { opts, operands } = split(args, { arg: "tS", long: ["target-directory", "suffix"] });
      const force = has(opts, "f", "force");
      const into = valueOf(opts, "t", "target-directory");
      const noDir = has(opts, "T", "no-target-directory");
      let links: string[];
      if (into !== undefined) links = operands.map((t) => join(into, base(t)));
      else if (operands.length === 1) links = [base(operands[0]!)];
      else if (operands.length >= 2) {
        const last = operands.at(-1)!;
        const intoLast = !noDir && (operands.length > 2 || isDir(resolveIn(cwd, last)));
        links = intoLast ? operands.slice(0, -1).map((t) => join(last, base(t))) : [last];
      } else return known();
      for (const link of links) {
        const absolute = resolveIn(cwd, link);
        target(link, force && exists(absolute) ? "overwrite" : "create");
        claims.push({ kind: "exists", path: absolute, type: has(opts, "s", "symbolic") ? "symlink" : undefined });
      }
      return known();
    }
    case "tee": {
      const { opts, operands } = split(args, { long: ["output-error"] });
      const kind: TargetKind = has(opts, "a", "append") ? "modify" : "overwrite";
      for (const path of operands) claims.push({ kind: "exists", path: target(path, kind) });
      return known();
    }
    case "truncate": {
      const { opts, operands } = split(args, { arg: "rs", long: ["reference", "size"] });
      const noCreate = has(opts, "c", "no-create");
      for (const path of operands) {
        const absolute = target(path, "modify");
        if (!noCreate) claims.push({ kind: "exists", path: absolute });
      }
      return known();
    }
    case "sed":
      return sedPlan(args, cwd, program);
    case "chmod":
    case "chown":
    case "chgrp": {
      const { opts, operands } = split(
        args.map((a) => (program === "chmod" && /^-[rwxXstugo]+$/.test(a) ? `=${a}` : a)),
        { long: ["reference", "from"] },
      );
      const files = has(opts, "reference") ? operands : operands.slice(1);
      for (const path of files) claims.push({ kind: "exists", path: target(path, "modify") });
      return known();
    }
    case "dd": {
      for (const arg of args) {
        if (arg.startsWith("of=")) {
          const path = arg.slice(3);
          claims.push({ kind: "exists", path: target(path, exists(resolveIn(cwd, path)) ? "overwrite" : "create") });
        }
      }
      return known();
    }
    default:
      return { known: false, program };
  }
}

/** sed edits in place only with -i/--in-place; then every file operand is modified and must change. */
function sedPlan(args: string[], cwd: string, program: string): WritePlan {
  let inPlace = false;
  let scriptGiven = false;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const name = a.slice(2).split("=")[0];
      if (name === "in-place") inPlace = true;
      else if (name === "expression" || name === "file") {
        scriptGiven = true;
        if (!a.includes("=")) i++;
      } else if (name === "line-length" && !a.includes("=")) i++;
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let c = 1; c < a.length; c++) {
        const ch = a[c]!;
        if (ch === "i") {
          inPlace = true; // the rest of the word is a backup suffix
          break;
        }
        if (ch === "e" || ch === "f" || ch === "l") {
          if (ch !== "l") scriptGiven = true;
          if (c + 1 === a.length) i++;
          break;
        }
      }
      continue;
    }
    operands.push(a);
  }
  if (!inPlace) return { known: true, program, targets: [], sources: [], claims: [] };
  const files = scriptGiven ? operands : operands.slice(1);
  const targets = files.map((path) => ({ path, absolute: resolveIn(cwd, path), kind: "modify" as const }));
  return { known: true, program, targets, sources: [], claims: targets.map((t) => ({ kind: "changed" as const, path: t.absolute })) };
}

function isRegularFile(absolute: string): boolean {
  try {
    return lstatSync(absolute).isFile();
  } catch {
    return false;
  }
}
