// The syntax tree the hand-written parser produces. It keeps only what the
// extraction needs: which commands run, their words (with enough structure to
// know what is quoted, what is an expansion, and where nested code hides), and
// their redirections. Positions are kept on words for error messages.

export type WordPart =
  /** Unquoted text, backslash escapes already removed. `glob` is set when it holds an unquoted `*`, `?` or `[`. */
  | { k: "lit"; v: string; glob: boolean }
  /** '...': exact text. */
  | { k: "sq"; v: string }
  /** $'...': text with C escapes decoded. */
  | { k: "ansi"; v: string }
  /** "..." (and $"..."): the parts inside. */
  | { k: "dq"; parts: WordPart[] }
  /** $name, $1, $@, ${...}: raw source text, the parameter name, and nested parts (for `${x:-$(cmd)}`). */
  | { k: "param"; raw: string; name: string; inner: WordPart[] }
  /** $(...) or `...`: raw source text and the parsed body. */
  | { k: "cmd"; raw: string; body: List }
  /** $((...)): raw text and nested parts (for `$(( $(cmd) + 1 ))`). */
  | { k: "arith"; raw: string; inner: WordPart[] }
  /** <(...) or >(...). */
  | { k: "proc"; raw: string; dir: "<" | ">"; body: List }
  /** NAME=(a b c): the raw text and the element words. */
  | { k: "array"; raw: string; words: Word[] }
  /** Expansions inside an array subscript `a[$(cmd)]=x`, whose text stays in the literal before it: no text of its own. */
  | { k: "subscript"; inner: WordPart[] };

export type Word = { parts: WordPart[]; start: number; end: number };

export type RedirOp = ">" | ">>" | "<" | "&>" | "&>>" | ">|" | "<<" | "<<<" | "<>" | ">&" | "<&";

export type Redir = {
  op: RedirOp;
  fd?: number;
  /** The target word; for a here-document, its delimiter word. */
  target: Word;
  /** Present for `<<` and `<<-`: the body, and whether expansions in it run. */
  heredoc?: { body: string; quoted: boolean; parts: WordPart[] };
};

type Assign = { name: string; value: Word };

export type Command =
  | { k: "simple"; assigns: Assign[]; words: Word[]; redirs: Redir[] }
  | { k: "subshell"; body: List; redirs: Redir[] }
  | { k: "group"; body: List; redirs: Redir[] }
  | { k: "if"; parts: List[]; redirs: Redir[] }
  | { k: "loop"; cond: List; body: List; redirs: Redir[] }
  | { k: "for"; items: Word[]; arith: WordPart[]; body: List; redirs: Redir[] }
  | { k: "case"; word: Word; items: { patterns: Word[]; body: List }[]; redirs: Redir[] }
  | { k: "func"; name: string; body: Command }
  /** (( ... )) and [[ ... ]]: they run no program, but their words may hold substitutions. */
  | { k: "eval"; words: Word[]; arith: WordPart[]; redirs: Redir[] };

export type Pipeline = { cmds: Command[]; timed: boolean };
export type AndOr = { pipes: Pipeline[] };
export type List = { items: AndOr[] };
