/**
 * The tool_rules section: how the rule engine judges a tool call other than the shell (a file written,
 * edited, read or deleted by the assistant's own file tools, a URL fetched, an MCP tool called). A call
 * is judged part by part (a patch touches several files); each part gets the first tool rule that
 * matches it, and the strictest part stands for the call, as with the executed commands of a line.
 *
 * Paths are classified exactly as the shell rules classify them (PathClass), after symlinks are
 * resolved. Path patterns are globs (`*` matches across `/`) or `/regex/`, tried against the absolute
 * path, the path under the home as `~/...`, and the path inside the project relative to its root.
 */
import { z } from "zod";
import { Label, Probability } from "./schema-common.ts";
import { PathClass } from "./schema-rules.ts";

export const ToolKind = z
  .enum(["read", "write", "edit", "delete", "fetch", "mcp"])
  .describe(
    "read: a file read; write: a whole file written (created or overwritten); edit: part of a file replaced; delete: a file removed; fetch: a URL fetched; mcp: an MCP server's tool called.",
  );

const FileChange = z
  .enum(["create", "modify", "delete"])
  .describe("create: the file does not exist yet; modify: it exists and is changed; delete: it is removed.");

const Patterns = z.array(z.string()).min(1);

const ToolRuleMatch = z
  .strictObject({
    kind: z.array(ToolKind).min(1).optional().describe("The part is one of these kinds."),
    tool: Patterns.optional().describe(
      "The host's name for the tool (Write, apply_patch, replace, read_file) or, for mcp, the MCP tool's name (delete_repository); tried as given and in lower-case snake_case words (deleteRepo and delete-repo as delete_repo).",
    ),
    server: Patterns.optional().describe("mcp: the MCP server's name."),
    args_any: z
      .record(z.string().min(1), Patterns)
      .optional()
      .describe(
        "mcp: some named argument's value (as text; objects as JSON) matches one of its patterns. The name * stands for any argument.",
      ),
    url: Patterns.optional().describe(
      "fetch: the URL matches, as written or as a browser normalises it (host lower-cased, 0xa9fea9fe and 2852039166 as 169.254.169.254).",
    ),
    carries_secret: z
      .boolean()
      .optional()
      .describe(
        "fetch: the URL carries a credential out (a token of a known shape, a secret-named parameter, a private key, or a long encoded blob).",
      ),
    path_class: z.array(PathClass).min(1).optional().describe("The path falls in one of these places (after symlinks are resolved)."),
    path_class_none: z.array(PathClass).min(1).optional().describe("The path falls in none of these places."),
    path: Patterns.optional().describe(
      "The path matches: tried as an absolute path, as ~/... under the home, and relative to the project root inside the project.",
    ),
    path_none: Patterns.optional().describe("The path matches none of these."),
    name: Patterns.optional().describe("The file's own name (the last part of the path) matches."),
    change: z.array(FileChange).min(1).optional().describe("What the part does to the file, looked up on disk: create, modify or delete."),
    exists: z.boolean().optional().describe("The file exists already (looked up on disk, symlinks followed)."),
    tracked: z.boolean().optional().describe("git's index tracks the file (so git can bring back what it held)."),
    content_any: Patterns.optional().describe(
      "What the part adds matches one of these (use /regex/ for a part of it): for a write over an existing file, the lines the file does not have yet; for an edit, the new text's lines the replaced text does not have; else the whole new content.",
    ),
  })
  .describe("What a part of a tool call must look like for the rule to apply; every given field must hold.");

export const ToolExample = z
  .strictObject({
    kind: ToolKind,
    tool: z.string().optional().describe("The host's tool name, or the MCP tool's name; default: the kind."),
    path: z.string().optional(),
    exists: z
      .boolean()
      .optional()
      .describe("Whether the file exists; default: a name with a dot exists (as in the shell rules' examples)."),
    tracked: z.boolean().optional().describe("Default: false."),
    content: z.string().optional(),
    server: z.string().optional(),
    args: z.record(z.string(), z.unknown()).optional(),
    url: z.string().optional(),
  })
  .describe("A tool call's part as a rule's example sees it, in a project at /home/user/project (home /home/user).");

export const ToolRule = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, { message: "a kebab-case rule id such as tool-write-shell-startup" }),
    match: ToolRuleMatch,
    act: Label.describe("The act the part does: one of the labels under acts."),
    undo: z.number().min(0).describe("How hard it is to undo, on the undo_levels scale."),
    load: z.number().min(0).default(0).describe("How heavy it is, on the load_levels scale."),
    confidence: Probability.default(1).describe("How sure the rule is of its act."),
    decision: z.enum(["allow", "ask", "deny"]).optional().describe("An outright verdict regardless of thresholds."),
    reason: z.string().min(1).describe("Why, in a sentence the user reads."),
    suggest: z.string().min(1).optional().describe("A safer way to the same end, shown when the verdict is ask or deny."),
    examples: z
      .strictObject({ match: z.array(ToolExample).default([]), not_match: z.array(ToolExample).default([]) })
      .optional()
      .describe("Parts of tool calls this rule alone must and must not match; `verdict policy check` proves them."),
  })
  .describe("A rule for tool calls other than the shell.");

export const ToolRulesSection = z
  .array(ToolRule)
  .describe(
    "Rules for file, fetch and MCP tool calls. Stronger layers' rules are tried first; the first rule that matches a part answers for it.",
  );

export const ToolCallExample = z
  .strictObject({
    tool: z
      .string()
      .min(1)
      .describe("The host's tool name: Write, Edit, Read, apply_patch, write_file, mcp__github__delete_repository, ..."),
    input: z.record(z.string(), z.unknown()).describe("The tool's input, as the host sends it (tool_input)."),
    cwd: z.string().optional().describe("The working directory; default: where `verdict policy test` runs."),
    verdict: z.enum(["allow", "pass", "ask", "deny"]),
  })
  .describe("A tool call and the verdict this policy must give it.");
