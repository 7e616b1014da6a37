/**
 * Secrets out of text before it is logged, cached, journalled, kept as
 * evidence, printed or sent to a model.
 *
 * A command line, a final message or a tool's output can carry a credential:
 * an environment assignment (`GITHUB_TOKEN=... gh release`), a header (`curl
 * -H "Authorization: Bearer ..."`), a password in a URL or on a command line
 * (`curl -u user:pw`, `mysql -ppw`, `sshpass -p pw`), a provider's token
 * pasted as an argument. Every sink verdict writes to goes through `redact`
 * first. The credential is replaced by `[REDACTED]`; the name it was assigned
 * to and the shape of the line stay, so the judgment is about the same
 * command.
 *
 * Redaction is by shape, so it errs toward removing: a value after a
 * secret-sounding name goes, even if it was not a secret. The labelled set in
 * tests/secrets and bench/secrets measure recall and false positives
 * (docs/secrets.md).
 *
 * Linear time, whatever the input. A backtracking regular expression with an
 * unbounded repetition is quadratic on a hostile line (a 250 KB command once
 * took over 40 s), so each rule here is a short *anchor* whose repetitions
 * are all bounded, and everything past the anchor (a token's body, a quoted
 * value, the rest of a command) is walked by hand and then skipped: no
 * character is looked at more than a bounded number of times per rule.
 */

export const REDACTED = "[REDACTED]";

/** A character class as a lookup table over ASCII (non-ASCII is never in a class). */
type Cls = Uint8Array;
function cls(spec: string): Cls {
  const table = new Uint8Array(128);
  for (let i = 0; i < spec.length; i++) {
    if (spec[i + 1] === "-" && i + 2 < spec.length) {
      for (let c = spec.charCodeAt(i); c <= spec.charCodeAt(i + 2); c++) table[c] = 1;
      i += 2;
    } else table[spec.charCodeAt(i)] = 1;
  }
  return table;
}
const inCls = (table: Cls, code: number): boolean => code < 128 && table[code] === 1;

/** The end of the run of `table` characters starting at `from`. */
function runEnd(text: string, from: number, table: Cls): number {
  let i = from;
  while (i < text.length && inCls(table, text.charCodeAt(i))) i++;
  return i;
}

const WS = cls(" \t\r\n\f\v");
const isSpace = (code: number): boolean => inCls(WS, code);
/** A bare shell value ends at a blank, a quote or a control operator. */
const BARE_END = cls(" \t\r\n\f\v;&|'\"");
/** A header or token value also ends at a backslash or a comma. */
const HEADER_END = cls(" \t\r\n\f\v;'\"\\,");
const B64URL = cls("A-Za-z0-9_-");

/**
 * The end of a value as the shell writes it, starting at `from`: a quoted
 * string up to its closing quote (or the end of the text when it has none), or
 * a run of characters up to a blank, a quote or a control operator.
 */
function valueEnd(text: string, from: number, stop: Cls = BARE_END): number {
  const quote = text[from];
  if (quote === '"') {
    for (let i = from + 1; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") i++;
      else if (c === '"') return i + 1;
    }
    return text.length;
  }
  if (quote === "'") {
    const close = text.indexOf("'", from + 1);
    return close < 0 ? text.length : close + 1;
  }
  let i = from;
  while (i < text.length && !inCls(stop, text.charCodeAt(i))) i++;
  return i;
}

function unquote(value: string): string {
  return value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0] ? value.slice(1, -1) : value;
}

/** A value that reads like a credential rather than a word: long enough, and mixing kinds of characters. */
function looksLikeSecret(value: string): boolean {
  if (value.length < 12 || value.length > 4096) return value.length > 4096;
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((kind) => kind.test(value)).length;
  return kinds >= 2 && !/\s/.test(value);
}

/** A value that is not a secret to remove: empty, a variable, a substitution, or already removed. */
function notAValue(raw: string): boolean {
  const value = unquote(raw);
  return value === "" || value.startsWith("$") || value.startsWith("`") || value.startsWith(REDACTED) || value.startsWith("<(");
}

/** What a rule does at one anchor: replace text[start, end) with `text`, or nothing (undefined). */
type Edit = { start: number; end: number; text: string };
type Rule = {
  /** The class of secret, for the bench's figures. */
  name: string;
  /** Global; every repetition bounded. */
  re: RegExp;
  apply(text: string, m: RegExpExecArray): Edit | undefined;
  /** Where to look again after a rule declined; the anchor's end by default. */
  skip?(text: string, m: RegExpExecArray): number;
};

/**
 * A rule as it is kept until a text needs it: the lower-case strings one of which every match of its
 * anchor contains, and how to build it. Most text verdict redacts (a verdict's line, a plain command)
 * holds none of a rule's needles, so the rule's regular expression is neither built nor compiled nor
 * run; a rule is built the first time a text holds one of its needles. A rule added here must list
 * needles that every match of its anchor contains, lower-cased (tests/secrets checks recall).
 */
type LazyRule = { name: string; needles: readonly string[]; build: () => Rule; built?: Rule };
function lazy(name: string, needles: readonly string[], build: () => Omit<Rule, "name">): LazyRule {
  return { name, needles, build: () => ({ name, ...build() }) };
}

/** Runs one rule over the text, left to right, never revisiting replaced text. */
function runRule(text: string, rule: Rule): string {
  const { re } = rule;
  re.lastIndex = 0;
  const pieces: string[] = [];
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const edit = rule.apply(text, m);
    if (!edit) {
      re.lastIndex = Math.max(m.index + 1, rule.skip ? rule.skip(text, m) : m.index + m[0].length);
      continue;
    }
    pieces.push(text.slice(last, edit.start), edit.text);
    last = edit.end;
    re.lastIndex = Math.max(edit.end, m.index + 1);
  }
  if (pieces.length === 0) return text;
  pieces.push(text.slice(last));
  return pieces.join("");
}

/** Replaces the value that starts at `from` (quoted or bare); declines variables and empties. */
function valueEdit(text: string, from: number, stop: Cls = BARE_END): Edit | undefined {
  const end = valueEnd(text, from, stop);
  if (end === from || notAValue(text.slice(from, end))) return undefined;
  return { start: from, end, text: REDACTED };
}

/** Names that announce a secret: API_KEY, GITHUB_TOKEN, DB_PASSWORD, client_secret, AccountKey ... */
const KEYWORD = String.raw`(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PWD|API_?KEY|ACCESS_?KEY|ACCOUNT_?KEY|SHARED_?ACCESS_?(?:KEY|SIGNATURE)|PRIVATE_?KEY|AUTH(?!OR)|CREDENTIALS?|SESSION_?KEY|SIGNING_?KEY|COOKIE|CLIENT_?KEY|MASTER_?KEY|ENCRYPTION_?KEY|_PASS\b|_PW\b)`;
const NAME_CHARS = "[A-Za-z0-9_.\\-]";
const NAME = String.raw`${NAME_CHARS}{0,48}${KEYWORD}${NAME_CHARS}{0,48}`;
/** Names holding the keyword that are not secrets: counts, files, ids, variable names. */
const NOT_A_SECRET_NAME =
  /(?:^|[_.-])(?:OLD)?PWD$|TOKENS$|TOKENIZER|TOKEN_?(?:COUNT|LIMIT|TYPE|LENGTH|BUDGET|USAGE)|_(?:FILE|PATH|DIR|ENV|ID|NAME|URL|URI|LENGTH|TTL|EXPIRY|EXPIRES|EXPIRES_AT|TIMEOUT|MODE|TYPE)$|^AUTH(?:OR|_?TYPE|_?MODE|_?METHOD)|^AUTH$/i;

function tokenRule(name: string, needles: readonly string[], anchor: string, body: string, before = "A-Za-z0-9"): LazyRule {
  return lazy(name, needles, () => {
    const table = cls(body);
    return {
      re: new RegExp(String.raw`(?<![${before}])${anchor}`, "g"),
      apply: (text, m) => ({ start: m.index, end: runEnd(text, m.index + m[0].length, table), text: REDACTED }),
    };
  });
}

/** The rest of one simple command: up to a newline or a control operator, bounded by the text. */
function commandEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n" || c === ";" || c === "|" || c === "&" || c === ")") return i;
    if (c === "'" || c === '"') i = valueEnd(text, i);
    else i++;
  }
  return i;
}

/** The end of the shell word at `from`: quoted parts included, up to a blank. */
function shellWordEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isSpace(text.charCodeAt(i))) {
    const c = text[i];
    i = c === "'" || c === '"' ? valueEnd(text, i) : i + 1;
  }
  return i;
}

/**
 * Within one command (from the anchor to its end), replaces the value of the
 * short option `-p` (or the given flags): `-pVALUE`, and when `spaced`, `-p VALUE` and `-p=VALUE`.
 */
function shortOptionRule(name: string, needles: readonly string[], anchor: string, flags: string[], spaced: boolean): LazyRule {
  return lazy(name, needles, () => ({
    re: new RegExp(anchor, "g"),
    apply(text, m) {
      const end = commandEnd(text, m.index + m[0].length);
      const segment = text.slice(m.index, end);
      let changed = false;
      const pieces: string[] = [];
      let last = 0;
      // Each word of the segment, once.
      let i = 0;
      while (i < segment.length) {
        while (i < segment.length && isSpace(segment.charCodeAt(i))) i++;
        const start = i;
        const wordEnd = shellWordEnd(segment, i);
        i = wordEnd === i ? i + 1 : wordEnd;
        if (start === 0 || !isSpace(segment.charCodeAt(start - 1))) continue;
        const word = segment.slice(start, wordEnd);
        for (const flag of flags) {
          if (!word.startsWith(flag)) continue;
          let valueStart = start + flag.length;
          if (word === flag) {
            if (!spaced) break;
            valueStart = wordEnd;
            while (valueStart < segment.length && isSpace(segment.charCodeAt(valueStart))) valueStart++;
          } else if (segment[valueStart] === "=") valueStart++;
          const valueStop = valueEnd(segment, valueStart);
          if (valueStop === valueStart || notAValue(segment.slice(valueStart, valueStop)) || segment[valueStart] === "-") break;
          pieces.push(segment.slice(last, valueStart), REDACTED);
          last = valueStop;
          i = Math.max(i, valueStop);
          changed = true;
          break;
        }
      }
      if (!changed) return undefined;
      pieces.push(segment.slice(last));
      return { start: m.index, end, text: pieces.join("") };
    },
    skip: (text, m) => commandEnd(text, m.index + m[0].length),
  }));
}

/** The needles of the names that announce a secret (KEYWORD above), lower-cased. */
const KEYWORD_NEEDLES = ["token", "secret", "pass", "pwd", "key", "signature", "auth", "credential", "cookie", "_pw"];

const RULES: LazyRule[] = [
  // PEM private keys, whole (an unterminated one to the end of the text).
  lazy("private-key", ["private key"], () => ({
    re: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----/g,
    apply(text, m) {
      const endMark = text.indexOf("-----END ", m.index + m[0].length);
      if (endMark < 0) return { start: m.index, end: text.length, text: REDACTED };
      const close = text.indexOf("-----", endMark + 9);
      return { start: m.index, end: close < 0 ? text.length : close + 5, text: REDACTED };
    },
  })),
  // Authorization / Proxy-Authorization: keep the header name and scheme.
  lazy("auth-header", ["authorization"], () => ({
    re: /\b((?:Proxy-)?Authorization[ \t]{0,8}[:=][ \t]{0,8})(?:(Bearer|Basic|Token|Digest|Bot|ApiKey|Negotiate|NTLM|AWS4-HMAC-SHA256|OAuth)[ \t]{1,8})?/gi,
    apply(text, m) {
      const from = m.index + m[0].length;
      const end = valueEnd(text, from, HEADER_END);
      if (end === from || text.startsWith(REDACTED, from) || text[from] === "$") return undefined;
      return { start: from, end, text: REDACTED };
    },
  })),
  lazy("auth-header", ["-key", "-token"], () => ({
    re: /\b((?:X-)?(?:Api-Key|Auth-Token|Access-Token|Private-Token|Goog-Api-Key|Amz-Security-Token|Auth-Key|Vault-Token|Figma-Token|Shopify-Access-Token|Postmark-Server-Token|Consul-Token|Nomad-Token)[ \t]{0,8}:[ \t]{0,8})/gi,
    apply(text, m) {
      const from = m.index + m[0].length;
      const end = valueEnd(text, from, HEADER_END);
      if (end === from || text.startsWith(REDACTED, from) || text[from] === "$") return undefined;
      return { start: from, end, text: REDACTED };
    },
  })),
  // Cookie headers: the whole value, up to a quote or the end of the line.
  lazy("cookie", ["cookie"], () => ({
    re: /\b((?:Set-)?Cookie[ \t]{0,8}:[ \t]{0,8})/gi,
    apply(text, m) {
      const from = m.index + m[0].length;
      let end = from;
      while (end < text.length && !"\"'\n\r".includes(text[end]!)) end++;
      if (end === from || text.startsWith(REDACTED, from)) return undefined;
      return { start: from, end, text: REDACTED };
    },
  })),
  // user:password@ in a URL (any scheme): the password goes, the user stays.
  lazy("url-password", ["://"], () => ({
    re: /\b[a-z][a-z0-9+.-]{0,30}:\/\//gi,
    apply(text, m) {
      const from = m.index + m[0].length;
      let at = -1;
      let colon = -1;
      let i = from;
      for (; i < text.length; i++) {
        const c = text[i]!;
        if (c === "/" || c === "?" || c === "#" || c === '"' || c === "'" || c === "`" || isSpace(c.charCodeAt(0))) break;
        if (c === "@") at = i;
        else if (c === ":" && at < 0 && colon < 0) colon = i;
      }
      if (at < 0 || colon < 0 || colon > at || colon + 1 === at) return undefined;
      const password = text.slice(colon + 1, at);
      if (password.startsWith("$") || password === REDACTED) return undefined;
      return { start: colon + 1, end: at, text: REDACTED };
    },
  })),
  // Webhook URLs whose path is the credential (Slack, Discord, Microsoft Teams).
  tokenRule("webhook", ["hooks.slack.com/"], String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/`, "A-Za-z0-9/_-"),
  tokenRule("webhook", ["/api/webhooks/"], String.raw`discord(?:app)?\.com/api/webhooks/`, "A-Za-z0-9/_-"),
  tokenRule("webhook", ["webhook.office.com/webhookb2/"], String.raw`webhook\.office\.com/webhookb2/`, "A-Za-z0-9/@_.-"),
  // Signatures in signed URLs: Azure SAS sig=, S3/GCS presigned signatures.
  lazy("url-signature", ["sig=", "signature=", "token=", "credential="], () => ({
    re: /[?&;](?:sig|signature|X-Amz-Signature|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential|X-Amz-Credential)=/gi,
    apply: (text, m) => {
      const from = m.index + m[0].length;
      let end = from;
      while (end < text.length && !" \t\r\n&;'\"#".includes(text[end]!)) end++;
      return end === from ? undefined : { start: from, end, text: REDACTED };
    },
  })),
  // NAME=value whose name announces a secret (env prefixes, export, .env lines, query strings, .npmrc, connection strings).
  lazy("named-assignment", KEYWORD_NEEDLES, () => ({
    re: new RegExp(String.raw`(?<!${NAME_CHARS})(${NAME})([ \t]{0,8}(?:=|:(?!//))[ \t]{0,8})`, "gi"),
    apply(text, m) {
      const name = m[1]!;
      const eq = m[2]!;
      if (NOT_A_SECRET_NAME.test(name)) return undefined;
      const from = m.index + m[0].length;
      const end = valueEnd(text, from);
      const raw = text.slice(from, end);
      if (end === from || notAValue(raw)) return undefined;
      // "NAME=" inside a quoted string: the quote after = closes that string, the value is empty.
      if ((raw[0] === '"' || raw[0] === "'") && text[m.index - 1] === raw[0]) return undefined;
      // `password: string` in a type annotation or `key: value` prose stays unless the value looks like one.
      if (!eq.includes("=") && !looksLikeSecret(unquote(raw))) return undefined;
      return { start: from, end, text: REDACTED };
    },
  })),
  // "password": "..." in JSON.
  lazy("json-field", KEYWORD_NEEDLES, () => ({
    re: new RegExp(String.raw`"(${NAME})"[ \t]{0,8}:[ \t\r\n]{0,8}"`, "gi"),
    apply(text, m) {
      if (NOT_A_SECRET_NAME.test(m[1]!)) return undefined;
      const from = m.index + m[0].length - 1;
      const end = valueEnd(text, from);
      if (end <= from + 2 || notAValue(text.slice(from, end))) return undefined;
      return { start: from, end, text: `"${REDACTED}"` };
    },
  })),
  // Options that take a secret: --password x, --token=x, --api-key x.
  lazy("secret-option", ["pass", "token", "secret", "key", "bearer"], () => ({
    re: /(?<![\w-])(--(?:[a-z0-9-]{0,30}-)?(?:password|passwd|pass|token|secret|api-key|apikey|access-key|secret-key|auth-token|private-key|client-secret|access-token|bearer))(=|[ \t]{1,8})/gi,
    apply(text, m) {
      const from = m.index + m[0].length;
      if (text[from] === "-") return undefined;
      return valueEdit(text, from);
    },
  })),
  // openssl -pass pass:secret, -passin pass:secret.
  lazy("secret-option", ["pass:"], () => ({
    re: /(?<![\w-])-pass(?:in|out|word)?[ \t]{1,8}['"]?pass:/g,
    apply: (text, m) => valueEdit(text, m.index + m[0].length),
  })),
  // curl -u user:password, --user, --proxy-user: the password goes, the user stays.
  lazy("user-password-option", ["-u"], () => ({
    re: /(?<![\w-])(?:-u|-U|--user|--proxy-user)(?:[ \t]{1,8}|=)?/g,
    apply(text, m) {
      const from = m.index + m[0].length;
      const end = valueEnd(text, from);
      const raw = text.slice(from, end);
      const value = unquote(raw);
      const colon = value.indexOf(":");
      if (colon < 0) return undefined;
      const password = value.slice(colon + 1);
      if (password === "" || /^[0-9]+$/.test(password) || /^[0-9]+$/.test(value.slice(0, colon)) || notAValue(password)) return undefined;
      const quote = raw !== value ? raw[0]! : "";
      return { start: from, end, text: `${quote}${value.slice(0, colon)}:${REDACTED}${quote}` };
    },
  })),
  // Passwords glued to short options of the tools that take them so.
  shortOptionRule(
    "mysql-password",
    ["mysql", "mariadb"],
    String.raw`(?<![\w./-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlslap|mariadb|mariadb-dump|mariadb-admin)(?![\w.-])`,
    ["-p"],
    false,
  ),
  shortOptionRule("sshpass", ["sshpass"], String.raw`(?<![\w./-])sshpass(?![\w.-])`, ["-p"], true),
  shortOptionRule(
    "registry-login",
    ["login"],
    String.raw`(?<![\w./-])(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|finch)(?:[ \t]{1,8}(?:registry|--?[a-z-]{1,20}(?:=\S{1,64})?))?[ \t]{1,8}login(?![\w.-])`,
    ["-p"],
    true,
  ),
  // .netrc: machine host login user password secret.
  lazy("netrc-password", ["passw"], () => ({
    re: /(?<![\w-])(?:password|passwd)[ \t]{1,8}/g,
    apply(text, m) {
      const before = text.slice(Math.max(0, m.index - 200), m.index);
      if (!/(?:^|\s)(?:machine|login|default)\s/.test(before)) return undefined;
      return valueEdit(text, m.index + m[0].length);
    },
  })),
  // aws_secret_access_key <40 chars> (credentials files, `aws configure set`).
  lazy("aws-secret", ["aws_secret_access_key"], () => ({
    re: /\baws_secret_access_key[ \t]{0,8}[=:]?[ \t]{0,8}(?=[A-Za-z0-9/+=]{40})/gi,
    apply: (text, m) => valueEdit(text, m.index + m[0].length),
  })),
  // Well-known token shapes, wherever they appear.
  tokenRule("github", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], "(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20}", "A-Za-z0-9"),
  tokenRule("github", ["github_pat_"], "github_pat_[A-Za-z0-9_]{20}", "A-Za-z0-9_"),
  tokenRule(
    "gitlab",
    ["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-", "glagent-"],
    "gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{16}",
    "A-Za-z0-9_-",
  ),
  tokenRule("openai-anthropic", ["sk-"], "sk-(?:ant-|proj-|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16}", "A-Za-z0-9_-"),
  tokenRule("stripe", ["_live_", "_test_"], "(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16}", "A-Za-z0-9"),
  tokenRule("stripe", ["whsec_"], "whsec_[A-Za-z0-9]{24}", "A-Za-z0-9"),
  tokenRule("typesafe", ["apikey_"], "apikey_[A-Za-z0-9_-]{12}", "A-Za-z0-9_-"),
  tokenRule("slack", ["xox"], "xox[abposre]-[A-Za-z0-9-]{10}", "A-Za-z0-9-"),
  tokenRule("slack", ["xapp-"], "xapp-[0-9]-[A-Za-z0-9-]{10}", "A-Za-z0-9-"),
  // Google API keys are 39 characters and may end in `-` or `_` (so no word boundary after them).
  tokenRule("google", ["aiza"], "AIza[0-9A-Za-z_-]{35}", ""),
  tokenRule("google", ["ya29."], "ya29\\.[A-Za-z0-9_-]{20}", "A-Za-z0-9_.-"),
  tokenRule("google", ["gocspx-"], "GOCSPX-[A-Za-z0-9_-]{20}", "A-Za-z0-9_-"),
  tokenRule("google", ["1//0"], "1//0[A-Za-z0-9_-]{30}", "A-Za-z0-9_-"),
  tokenRule(
    "aws",
    ["akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"],
    "(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Za-z])",
    "",
  ),
  tokenRule("npm", ["npm_"], "npm_[A-Za-z0-9]{36}", "A-Za-z0-9"),
  tokenRule("huggingface", ["hf_"], "hf_[A-Za-z0-9]{30}", "A-Za-z0-9"),
  tokenRule("pypi", ["pypi-"], "pypi-[A-Za-z0-9_-]{40}", "A-Za-z0-9_-"),
  tokenRule("rubygems", ["rubygems_"], "rubygems_[a-f0-9]{40}", "a-f0-9"),
  tokenRule("sendgrid", ["sg."], "SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16}", "A-Za-z0-9_-"),
  tokenRule("mailgun", ["key-"], "key-[0-9a-f]{32}(?![0-9a-zA-Z])", ""),
  tokenRule("shopify", ["shp"], "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "a-fA-F0-9"),
  tokenRule("digitalocean", ["_v1_"], "do[opr]_v1_[a-f0-9]{40}", "a-f0-9"),
  tokenRule("databricks", ["dapi"], "dapi[a-f0-9]{32}", "a-f0-9-"),
  tokenRule("atlassian", ["atatt3"], "ATATT3[A-Za-z0-9_=-]{40}", "A-Za-z0-9_=-"),
  tokenRule("linear", ["lin_"], "lin_(?:api|oauth)_[A-Za-z0-9]{30}", "A-Za-z0-9"),
  tokenRule("notion", ["secret_", "ntn_"], "(?:secret_|ntn_)[A-Za-z0-9]{40}", "A-Za-z0-9"),
  tokenRule("postman", ["pmak-"], "PMAK-[a-f0-9]{24}-[a-f0-9]{20}", "a-f0-9"),
  tokenRule("vault", ["hvs.", "hvb.", "hvr."], "hv[sbr]\\.[A-Za-z0-9_-]{24}", "A-Za-z0-9_.-"),
  tokenRule("pulumi", ["pul-"], "pul-[a-f0-9]{40}", "a-f0-9"),
  tokenRule("terraform", [".atlasv1."], "[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{40}", "A-Za-z0-9_=-"),
  tokenRule("grafana", ["glc_", "glsa_"], "gl(?:c|sa)_[A-Za-z0-9_=+/-]{32}", "A-Za-z0-9_=+/-"),
  tokenRule("sentry", ["sntr"], "sntr[ysu]s?_[A-Za-z0-9_=+/-]{40}", "A-Za-z0-9_=+/-"),
  tokenRule("docker", ["dckr_"], "dckr_(?:pat|oat)_[A-Za-z0-9_-]{20}", "A-Za-z0-9_-"),
  tokenRule("age", ["age-secret-key-1"], "AGE-SECRET-KEY-1[0-9A-Z]{50}", "0-9A-Z"),
  tokenRule("telegram", [":aa"], "[0-9]{8,10}:AA[A-Za-z0-9_-]{33}", "A-Za-z0-9_-", "0-9"),
  tokenRule("supabase", ["sbp_"], "sbp_[a-f0-9]{40}", "a-f0-9"),
  tokenRule("doppler", ["dp."], "dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40}", "A-Za-z0-9"),
  tokenRule("square", ["sq0"], "sq0(?:atp|csp)-[A-Za-z0-9_-]{22}", "A-Za-z0-9_-"),
  tokenRule("heroku", ["hrku-"], "HRKU-[A-Za-z0-9_-]{30}", "A-Za-z0-9_-"),
  tokenRule("fly", ["fm1_", "fm2_"], "fm[12]_[A-Za-z0-9+/=_-]{40}", "A-Za-z0-9+/=_-"),
  tokenRule("figma", ["figd_"], "figd_[A-Za-z0-9_-]{30}", "A-Za-z0-9_-"),
  tokenRule("azure", ["q~"], "[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31}", "A-Za-z0-9_~.-"),
  // JSON Web Tokens: header.payload.signature, each part walked by hand.
  lazy("jwt", ["eyj"], () => ({
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8}/g,
    apply(text, m) {
      const first = runEnd(text, m.index + m[0].length, B64URL);
      if (text[first] !== "." || !text.startsWith("eyJ", first + 1)) return undefined;
      const second = runEnd(text, first + 1, B64URL);
      if (second - first < 10 || text[second] !== ".") return undefined;
      const third = runEnd(text, second + 1, B64URL);
      return { start: m.index, end: third, text: REDACTED };
    },
    skip: (text, m) => runEnd(text, m.index + m[0].length, B64URL),
  })),
];

/**
 * Whether any rule could match: each needs an upper-case letter, `_`, `-`, `:`, `=` or `"`, or the
 * word "pass" (a .netrc line). A plain line (`git status`, a path) has none, and is returned as it is
 * after one pass over it. A rule added above must keep this true, or this must learn its shape; the
 * needles then decide which rules run at all.
 */
function mayHoldSecret(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A-Z, _, -, :, =, "
    if ((code >= 65 && code <= 90) || code === 95 || code === 45 || code === 58 || code === 61 || code === 34) return true;
  }
  return text.includes("pass");
}

/** The text with every credential it visibly carries replaced by [REDACTED]. Linear in the text's length. */
export function redact(text: string): string {
  if (typeof text !== "string" || !mayHoldSecret(text)) return text;
  let out = text;
  // Needles are looked for in the text as it is when the rule's turn comes (an earlier rule may have
  // replaced part of it): one lower-casing per change, and a bounded number of searches per rule.
  let lower = text.toLowerCase();
  for (const rule of RULES) {
    if (!hasNeedle(lower, rule.needles)) continue;
    const next = runRule(out, (rule.built ??= rule.build()));
    if (next !== out) {
      out = next;
      lower = out.toLowerCase();
    }
  }
  return out;
}

function hasNeedle(lower: string, needles: readonly string[]): boolean {
  for (const needle of needles) if (lower.includes(needle)) return true;
  return false;
}

/** Every string inside a JSON-like value redacted (objects and arrays copied; keys kept). */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) out[key] = redactDeep(item);
    return out as T;
  }
  return value;
}
