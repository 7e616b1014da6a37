/**
 * Reading a write back: after a write exits 0, each of its claims (the
 * target exists, is gone, holds the source's bytes, or changed) is checked
 * against the file system, not against what the command or the model says.
 * The targets are read directly, so a capped fingerprint does not weaken it.
 */
import { lstatSync } from "node:fs";
import { fileDigest, readEntry, sameEntry, type Entry } from "./fingerprint.ts";
import type { Claim } from "./targets.ts";

type TargetStates = Map<string, Entry | undefined>;

type ClaimResult = Claim & { holds: boolean; detail: string };

export type Verification = {
  /** True when every claim holds; null when the write has no claims to check (its targets are unknown). */
  verified: boolean | null;
  detail: string;
  claims: ClaimResult[];
};

/** The state of every path a claim names, taken before the call runs. */
export function snapshotTargets(claims: Claim[]): TargetStates {
  const states: TargetStates = new Map();
  for (const claim of claims) {
    if (!states.has(claim.path)) states.set(claim.path, readEntry(claim.path));
  }
  return states;
}

export function verifyClaims(claims: Claim[], before: TargetStates, cwd: string, program: string): Verification {
  if (claims.length === 0) {
    return { verified: null, detail: `no readback is known for ${program}; its effects are the observed changes`, claims: [] };
  }
  const results = claims.map((claim) => check(claim, before, cwd));
  const failed = results.filter((result) => !result.holds);
  return {
    verified: failed.length === 0,
    detail: failed.length === 0 ? results.map((r) => r.detail).join("; ") : failed.map((r) => r.detail).join("; "),
    claims: results,
  };
}

function check(claim: Claim, before: TargetStates, cwd: string): ClaimResult {
  const name = relative(cwd, claim.path);
  switch (claim.kind) {
    case "exists": {
      const type = entryType(claim.path);
      if (!type) return { ...claim, holds: false, detail: `${name} does not exist` };
      if (claim.type && claim.type !== type) return { ...claim, holds: false, detail: `${name} is a ${type}, not a ${claim.type}` };
      return { ...claim, holds: true, detail: `${name} exists` };
    }
    case "absent":
      return entryType(claim.path)
        ? { ...claim, holds: false, detail: `${name} still exists` }
        : { ...claim, holds: true, detail: `${name} is gone` };
    case "same-content": {
      try {
        const holds = fileDigest(claim.path) === fileDigest(claim.source);
        return {
          ...claim,
          holds,
          detail: holds
            ? `${name} holds the bytes of ${relative(cwd, claim.source)}`
            : `${name} differs from ${relative(cwd, claim.source)}`,
        };
      } catch (error) {
        return { ...claim, holds: false, detail: `cannot read ${name} back: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
      }
    }
    case "changed": {
      const old = before.get(claim.path);
      const now = readEntry(claim.path);
      if (!now) return { ...claim, holds: false, detail: `${name} does not exist` };
      if (old && sameEntry(old, now)) return { ...claim, holds: false, detail: `${name} did not change` };
      return { ...claim, holds: true, detail: `${name} changed` };
    }
  }
}

function entryType(path: string): "file" | "dir" | "symlink" | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

function relative(cwd: string, path: string): string {
  if (path === cwd) return ".";
  return path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}
