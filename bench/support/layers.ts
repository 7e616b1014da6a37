/** Policy layers the benchmarks share, so the start-up and hook figures load the same repository layer. */

/** A repository layer of one team rule (a deny) and a raised threshold: what a project typically adds. */
export const REPO_LAYER = [
  "judge:",
  "  thresholds:",
  "    ask_at_undo: 1.5",
  "rules:",
  "  - id: no-prod-deploy",
  "    match: { program: kubectl, subcommand: apply, args_any: ['*prod*'] }",
  "    act: remote",
  "    undo: 3",
  "    decision: deny",
  "    reason: Deploys to production go through the release pipeline.",
  "",
].join("\n");
