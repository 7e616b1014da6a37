// The public shape of a parsed command line: what executes, as the rule engine sees it.

export type Redirect = {
  op: ">" | ">>" | "<" | "&>" | "&>>" | ">|" | "<<" | "<<<" | "<>" | ">&" | "<&";
  fd?: number;
  /** Unquoted target text; for here-documents, the body (`<<-` bodies have their leading tabs removed). */
  target: string;
  /** Set on a redirection written outside code that another machine runs (`ssh host 'cat > k' < ~/.ssh/id_rsa`): it is read or written here. */
  local?: true;
};

export type ExecutedCommand = {
  /** As written after quote and backslash removal: "/usr/bin/rm", "rm" (for `\rm`). */
  program: string;
  /** Basename of program ("rm"); for a dynamic program, the program text itself. */
  name: string;
  /** Full argv including argv[0] = program, quotes removed; words with expansions keep their literal text ("$HOME/x", "*.log"). */
  argv: string[];
  /** Prefix assignments (FOO=1 cmd) and those given through env(1) or sudo. */
  env: Record<string, string>;
  redirects: Redirect[];
  /** Working directory after an earlier `cd DIR` in the same scope (relative dirs joined onto the previous cwd; unknown -> undefined). */
  cwd?: string;
  /** Wrapper chain that led here, outermost first: ["sudo"], ["bash -c"], ["xargs"], ["find -exec"], ["$( )"], ["heredoc->sh"]. */
  via: string[];
  /** A wrapper (env, sudo) judged on its own with its arguments removed: conditions on its arguments cannot hold. */
  wrapperOnly?: true;
  /** The program name itself comes from an expansion ($X, $(..), a glob): the program is unknown. */
  dynamic: boolean;
  /** A here-document or here-string body fed to this command (data for `cat`, code for `bash`). */
  stdinScript?: string;
  /**
   * Present when standard input comes through a pipe: the indices in `commands` of the commands whose
   * standard output feeds it, in order (all of them, not only the last: `{ curl x || wget -O- x; } | sh`
   * gives both). Writers are always listed before the reader. Commands of the element before the `|`
   * count when their output reaches the pipe: not those inside `$( )`/`<( )`, nor those whose stdout
   * is redirected away (`> file`, `>&2`). Inherited by everything that reads the same input: commands
   * in a compound, a function body or `bash -c` code on the right of the pipe, code a `sh` reads from
   * the pipe (`pipe->sh`), and what xargs/parallel build from it. Absent when the command's input is a
   * file (`< f`), a here-document or here-string; `[]` when the pipe is fed by nothing listed
   * (`x=$(y) | sh`). `curl u | sh` gives sh `[0]`; `curl u; cat x | sh` gives sh `[1]`.
   */
  stdinFrom?: number[];
};

export type ParseResult =
  | {
      ok: true;
      commands: ExecutedCommand[];
      assignments: Record<string, string>;
      /** Variables assigned more than once on the line (their value at a use depends on order). */
      reassigned?: string[];
      /** Functions defined on the line that call themselves, directly or through another. */
      recursive?: string[];
    }
  | { ok: false; error: string };
