/**
 * The rules section: how the rule engine recognises a command and which
 * typed answers it gives for it. Rules live in the policy, not in code.
 *
 * A rule that names a `program` judges an executed command; a rule without
 * one judges each output redirection (`>`, `>>`, `&>`) on its own, through
 * its `redirect` field. Patterns are globs (`*` matches anything, `?` one
 * character, `[abc]` a class) unless written as `/regex/` or `/regex/i`.
 */
import { z } from "zod";
import { Label, Probability } from "./schema-common.ts";

/**
 * Where a path argument or a redirect target points, as the rule engine
 * classifies it. Each path gets exactly one class, the first that applies in
 * this order.
 */
export const PathClass = z
  .enum(["unknown", "device", "root", "home", "system", "vcs", "project", "build", "repo", "temp", "home-files", "outside"])
  .describe(
    [
      "unknown: depends on a variable or substitution that cannot be resolved;",
      "device: under /dev;",
      "root: the filesystem root itself (/, /*);",
      "home: a home directory itself (~, $HOME, /root, /home/x, ~/*);",
      "system: /etc, /usr, /var, /bin, /boot, /opt and the like (not /var/tmp);",
      "vcs: a .git directory or anything inside one;",
      "project: the project root itself, or all of it (., * at the root);",
      "build: regenerable output inside the project (node_modules, dist, build, target, .cache, __pycache__, ...);",
      "repo: anything else inside the project (the repository, or the working directory when there is none);",
      "temp: /tmp, /var/tmp, $TMPDIR, /dev/shm;",
      "home-files: inside a home directory, outside the project;",
      "outside: any other place.",
    ].join(" "),
  );

const OneOrMany = z.union([z.string(), z.array(z.string()).min(1)]);
const Patterns = z.array(z.string()).min(1);

const RedirectOp = z.enum([">", ">>", "&>", "&>>", ">|", "<>"]);

const RedirectMatch = z
  .strictObject({
    to: z.array(PathClass).min(1).optional().describe("The target falls in one of these places."),
    op: z.array(RedirectOp).min(1).optional().describe("The redirection is one of these operators (> and >| truncate, >> appends)."),
    file: z.enum(["exists", "missing"]).optional().describe("The target file exists already, or not yet (looked up on disk)."),
    tracked: z.boolean().optional().describe("The target file is tracked by the repository's git index, or not."),
  })
  .describe("An output redirection: where it writes and how. /dev/null, /dev/stdout, /dev/stderr and &N duplications are never matched.");

const RuleMatch = z
  .strictObject({
    program: OneOrMany.optional().describe(
      "Program names (a path's basename counts: /usr/bin/rm is rm; a program run from a temp or unknown place keeps its path, so /tmp/git is not git). Without a program, the rule judges redirections.",
    ),
    options_with_value: z
      .array(z.string())
      .optional()
      .describe(
        "Options of this program that take the next word as their value (git's -C and -c), so the value is not taken for the subcommand or an argument. YAML anchors share one list between rules.",
      ),
    subcommand: OneOrMany.optional().describe(
      "The first arguments that are not options, as words separated by spaces: push for git push, 's3 rm' for aws s3 rm; the word ... stands for any number of words ('... delete' for gcloud compute instances delete).",
    ),
    flags_any: Patterns.optional().describe(
      "At least one of these options is given (-rf counts as -r and -f; --force also as --force=...; -- matches the end of options).",
    ),
    flags_all: Patterns.optional().describe("All of these options are given."),
    flags_none: Patterns.optional().describe("None of these options is given."),
    args_any: Patterns.optional().describe(
      "Some argument after the program (options and their values included) matches one of these patterns.",
    ),
    args_none: Patterns.optional().describe("No argument matches any of these patterns."),
    option_values: z
      .record(z.string().regex(/^-/, { message: "an option such as -c or --config-env" }), Patterns)
      .optional()
      .describe(
        "The value of one of these options (option: [patterns]) matches: git -c core.pager=x, curl -X DELETE. A value comes from the next word for options_with_value, or after = (--method=DELETE), or glued to a short option (-XDELETE).",
      ),
    operands_min: z.number().int().min(0).optional().describe("At least this many arguments that are not options, after the subcommand."),
    operands_max: z.number().int().min(0).optional().describe("At most this many arguments that are not options, after the subcommand."),
    paths_any: z
      .array(PathClass)
      .min(1)
      .optional()
      .describe("Some argument that is not an option (after the subcommand) falls in one of these places."),
    paths_all: z.array(PathClass).min(1).optional().describe("There is such an argument, and every one falls in one of these places."),
    paths_none: z.array(PathClass).min(1).optional().describe("No such argument falls in any of these places."),
    target_any: z
      .array(PathClass)
      .min(1)
      .optional()
      .describe("The last such argument (the destination of cp, mv, ln, install, rsync) falls in one of these places."),
    paths_exist: z
      .boolean()
      .optional()
      .describe("true: some such argument names a file or folder that exists (looked up on disk); false: none does."),
    paths_tracked: z
      .boolean()
      .optional()
      .describe(
        "true: there is such an argument and git's index tracks every one (so git can bring it back); false: some one is not tracked.",
      ),
    redirect: RedirectMatch.optional(),
    env_any: Patterns.optional().describe("One of these environment variables is set on the command: NAME, or NAME=pattern for its value."),
    via_any: Patterns.optional().describe("The command runs through one of these wrappers (sudo, xargs, find -exec, bash -c, ...)."),
    stdin_from: Patterns.optional().describe(
      "The command reads its standard input from a pipe whose writer is one of these programs (curl | sh).",
    ),
    stdin_any: Patterns.optional().describe(
      "The here-document or here-string fed to the command matches one of these patterns (psql <<SQL ... DROP TABLE).",
    ),
    command_exact: z
      .string()
      .min(1)
      .optional()
      .describe(
        [
          "The whole command line is exactly this text: compared as given, with only leading and trailing whitespace ignored (no pattern, no other normalisation, so `sudo ...` or `... | xargs ...` variants are other lines).",
          "Such a rule answers for every command the line executes, its wrappers and redirections included, unless a rule tried before it matches one of them.",
          "Its other fields (program, ...) must hold for some command of the line; program also matches the name a command is written with, path left out (deploy.sh for ./deploy.sh), since the line is fixed anyway.",
          "verdict approvals approve --always writes rules of this kind.",
        ].join(" "),
      ),
    where: z
      .string()
      .min(1)
      .optional()
      .describe(
        "An absolute folder: the rule holds only for a command whose working directory is this folder or one inside it. verdict approvals approve --always writes the project's root here (the repository root, or the working directory outside a repository), so an approval made in one project does not apply in another.",
      ),
  })
  .describe("What a command must look like for the rule to apply; every given field must hold.");

export const Rule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, { message: "a kebab-case rule id such as rm-recursive-home" }),
    match: RuleMatch,
    runs: z
      .enum(["rest"])
      .optional()
      .describe(
        "rest: the words after the subcommand (and its options) are a command this program runs, judged as well (uv run, poetry run, bundle exec, direnv exec DIR).",
      ),
    act: Label.describe("The act the command does: one of the labels under acts."),
    undo: z.number().min(0).describe("How hard it is to undo, on the undo_levels scale (0 = nothing to undo)."),
    load: z.number().min(0).default(0).describe("How heavy it is, on the load_levels scale."),
    confidence: Probability.default(1).describe("How sure the rule is of its act (the rest of the probability is spread)."),
    decision: z.enum(["allow", "ask", "deny"]).optional().describe("An outright verdict regardless of thresholds."),
    reason: z.string().min(1).describe("Why, in a sentence the user reads."),
    suggest: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A safer form known to the rule (a --dry-run, --force-with-lease, a path inside the project), shown when the verdict is ask or deny.",
      ),
    examples: z
      .strictObject({
        match: z.array(z.string()).default([]),
        not_match: z.array(z.string()).default([]),
      })
      .optional()
      .describe(
        "Command lines this rule alone must and must not match (some executed command of the line, or a wrapper it ran through). They are tried in a project at /home/user/project (home /home/user) where a name with a dot (notes.txt, .) exists and git tracks nothing.",
      ),
  })
  .describe("A rule of the rule engine.");

export const RulesSection = z
  .array(Rule)
  .describe(
    "Rule engine rules. Stronger layers' rules are tried first; within a file, top to bottom; the first rule that matches an executed command answers for it, and each output redirection is answered by the first rule without a program that matches it.",
  );
