/**
 * The policy's boundary for the commands and the hook: load the layers into the policy the engine runs,
 * and say what is wrong with them. The schema types and the pipeline's steps are imported from their own
 * modules (schema.ts, layers.ts, ...).
 */
export { loadPolicy, type LoadedPolicy, type LoadResult } from "./load.ts";
export { formatProblem } from "./errors.ts";
