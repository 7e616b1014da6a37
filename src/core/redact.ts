/**
 * Secrets out of text before it is logged, cached or sent to a model.
 *
 * A command line or a final message can carry a credential: an environment
 * assignment (`GITHUB_TOKEN=... gh release`), a header (`curl -H
 * "Authorization: Bearer ..."`), a password in a URL, a key pasted as an
 * argument. Whatever leaves the process (the decision log, the answer cache,
 * the request body a model receives) goes through `redact` first. The
 * credential is replaced by `[REDACTED]`; the name it was assigned to and
 * the shape of the line stay, so the judgment is about the same command.
 *
 * Redaction is by shape, so it errs toward removing: a long random-looking
 * value after a secret-sounding name goes, even if it was not a secret.
 */

export const REDACTED = "[REDACTED]";

/** Names that announce a secret: API_KEY, GITHUB_TOKEN, DB_PASSWORD, client_secret ... */
const SECRET_NAME = String.raw`(?!(?:OLD)?PWD\b)[A-Za-z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH(?!OR)|CREDENTIALS?|SESSION_?KEY|SIGNING_?KEY|COOKIE)[A-Za-z0-9_.-]*`;

/** A value as the shell writes it: quoted, or a run of non-blank characters. */
const VALUE = String.raw`(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s;&|'"]+)`;

type Pattern = { re: RegExp; replace: (match: string, ...groups: string[]) => string };

const PATTERNS: Pattern[] = [
  // PEM private keys, whole.
  {
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replace: () => REDACTED,
  },
  // Authorization / Proxy-Authorization / X-Api-Key style headers: keep the header name and scheme.
  {
    re: /\b((?:Proxy-)?Authorization\s*[:=]\s*)(?:(Bearer|Basic|Token|Digest|Bot|ApiKey)\s+)?([^\s"'\\,;]+)/gi,
    replace: (_m, head: string, scheme: string | undefined) => `${head}${scheme ? `${scheme} ` : ""}${REDACTED}`,
  },
  {
    re: /\b((?:X-)?(?:Api-Key|Auth-Token|Access-Token|Private-Token|Goog-Api-Key|Amz-Security-Token)\s*:\s*)([^\s"'\\,;]+)/gi,
    replace: (_m, head: string) => `${head}${REDACTED}`,
  },
  // user:password@ in a URL (any scheme).
  {
    re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"']*:)([^\s@/"']+)@/gi,
    replace: (_m, head: string) => `${head}${REDACTED}@`,
  },
  // NAME=value assignments whose name announces a secret (env prefixes, export, .env lines, query strings).
  {
    re: new RegExp(String.raw`(^|[\s;&|(?"'{,])(${SECRET_NAME})(\s*[=:]\s*)(${VALUE})`, "gi"),
    replace: (m, lead: string, name: string, eq: string, value: string) => {
      // `password: string` in a type annotation or `key: value` prose stays unless the value looks like one.
      if (eq.includes(":") && !eq.includes("=") && !looksLikeSecret(unquote(value))) return m;
      if (value === REDACTED || unquote(value) === "" || unquote(value).startsWith("$")) return m;
      return `${lead}${name}${eq}${REDACTED}`;
    },
  },
  // "password": "..." in JSON.
  {
    re: new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"((?:[^"\\]|\\.)*)"`, "gi"),
    replace: (m, head: string, value: string) => (value === "" || value === REDACTED ? m : `${head}"${REDACTED}"`),
  },
  // Options that take a secret: --password x, --token=x, --api-key x, -p'x' is too ambiguous to touch.
  {
    re: new RegExp(String.raw`(--(?:[a-z0-9-]*-)?(?:password|passwd|token|secret|api-key|apikey|access-key|secret-key|auth-token|private-key))(=|\s+)(${VALUE})`, "gi"),
    replace: (m, flag: string, sep: string, value: string) =>
      value.startsWith("-") || value.startsWith("$") || value === REDACTED ? m : `${flag}${sep}${REDACTED}`,
  },
  // Well-known token shapes, wherever they appear.
  { re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/g, replace: () => REDACTED },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g, replace: () => REDACTED },
  { re: /\bglpat-[A-Za-z0-9_-]{16,}\b/g, replace: () => REDACTED },
  { re: /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}\b/g, replace: () => REDACTED },
  { re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, replace: () => REDACTED },
  { re: /\bapikey_[A-Za-z0-9_-]{12,}\b/g, replace: () => REDACTED },
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, replace: () => REDACTED },
  { re: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: () => REDACTED },
  { re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/g, replace: () => REDACTED },
  { re: /\bnpm_[A-Za-z0-9]{36}\b/g, replace: () => REDACTED },
  { re: /\bhf_[A-Za-z0-9]{30,}\b/g, replace: () => REDACTED },
  { re: /\b(?:pypi-)[A-Za-z0-9_-]{40,}\b/g, replace: () => REDACTED },
  // JSON Web Tokens.
  { re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: () => REDACTED },
  // aws_secret_access_key = <40 chars> in credentials files and CLI configs.
  {
    re: /\b(aws_secret_access_key\s*[=:]?\s*)([A-Za-z0-9/+=]{40})\b/gi,
    replace: (_m, head: string) => `${head}${REDACTED}`,
  },
];

function unquote(value: string): string {
  return value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0] ? value.slice(1, -1) : value;
}

/** A value that reads like a credential rather than a word: long enough, and mixing kinds of characters. */
function looksLikeSecret(value: string): boolean {
  if (value.length < 12) return false;
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((kind) => kind.test(value)).length;
  return kinds >= 2 && !/\s/.test(value);
}

/**
 * Whether any pattern above could match: each needs an upper-case letter (AKIA..., AIza..., eyJ...),
 * `_`, `-`, `:`, `=` or `"` somewhere in the text. A plain line (`git status`, a path) has none, and
 * skipping the patterns then saves compiling some twenty regular expressions on the hot path. A
 * pattern added above must keep this true, or this must learn its shape.
 */
function mayHoldSecret(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A-Z, _, -, :, =, "
    if ((code >= 65 && code <= 90) || code === 95 || code === 45 || code === 58 || code === 61 || code === 34) return true;
  }
  return false;
}

/** The text with every credential it visibly carries replaced by [REDACTED]. */
export function redact(text: string): string {
  if (!mayHoldSecret(text)) return text;
  let out = text;
  for (const { re, replace } of PATTERNS) {
    re.lastIndex = 0;
    out = out.replace(re, replace as (substring: string, ...args: unknown[]) => string);
  }
  return out;
}
