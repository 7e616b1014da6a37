/** The policy: schema, layers, merge, trust and positioned errors. */
export { loadPolicy, type LoadedPolicy, type LoadOptions, type LoadResult } from "./load.ts";
export { PolicyError, formatProblem, type PolicyProblem } from "./errors.ts";
export type { Policy, Rule, TurnRule } from "./schema.ts";
export { durationMs, megabytes, bytes } from "../core/units.ts";
