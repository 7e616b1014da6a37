/**
 * What a `verdict run` tool call may see of verdict's environment, and what of its output may be shown.
 *
 * A model that asks for `env` or `cat /proc/self/environ` gets whatever the tool's environment holds, so
 * the tool call gets an allowlist instead of everything: the variables a shell and the usual toolchains
 * need (PATH, HOME, LANG, LC_*, TERM, GOPATH, CARGO_HOME, JAVA_HOME, NODE_* ...), plus the ones the policy
 * names (task.pass_env) and sets (task.env). Never verdict's own keys (VERDICT_*, TYPESAFE_*, the task's
 * and the model's key variables), never a name that reads like a credential (TOKEN, SECRET, PASSWORD,
 * KEY, AUTH, CREDENTIAL, SESSION, COOKIE ...), never a value that carries one (a proxy URL with a
 * password), whoever names it.
 *
 * Tool output passes through the redactor before it reaches the model, the evidence or the terminal;
 * the live copy to the terminal is redacted line by line.
 */
import { redact } from "../core/redact.ts";

/** Exact names a tool call gets from verdict's environment. */
const ALLOWED = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "TERM_PROGRAM",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "PWD",
  "HOSTNAME",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "NO_COLOR",
  "FORCE_COLOR",
  "CI",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "GOPATH",
  "GOROOT",
  "GOBIN",
  "GOCACHE",
  "GOMODCACHE",
  "GOFLAGS",
  "GOPROXY",
  "GOPRIVATE",
  "GONOSUMDB",
  "GOTOOLCHAIN",
  "CGO_ENABLED",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "RUSTFLAGS",
  "CARGO_TARGET_DIR",
  "JAVA_HOME",
  "MAVEN_HOME",
  "M2_HOME",
  "GRADLE_HOME",
  "GRADLE_USER_HOME",
  "ANDROID_HOME",
  "ANDROID_SDK_ROOT",
  "NVM_DIR",
  "NVM_BIN",
  "VOLTA_HOME",
  "PNPM_HOME",
  "BUN_INSTALL",
  "DENO_DIR",
  "DENO_INSTALL",
  "COREPACK_HOME",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUNBUFFERED",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "CONDA_DEFAULT_ENV",
  "PYENV_ROOT",
  "PIPX_HOME",
  "POETRY_HOME",
  "UV_CACHE_DIR",
  "PIP_CACHE_DIR",
  "RBENV_ROOT",
  "GEM_HOME",
  "GEM_PATH",
  "BUNDLE_PATH",
  "DOTNET_ROOT",
  "DOTNET_CLI_TELEMETRY_OPTOUT",
  "CC",
  "CXX",
  "CFLAGS",
  "CXXFLAGS",
  "CPPFLAGS",
  "LDFLAGS",
  "PKG_CONFIG_PATH",
  "MAKEFLAGS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
]);
/** Name prefixes a tool call gets: locale categories and the Node.js toolchain's settings. */
const ALLOWED_PREFIXES = ["LC_", "NODE_", "NPM_CONFIG_", "npm_config_"];

/** Names that read like a credential, whatever else they say. */
const CREDENTIAL_NAME =
  /TOKEN|SECRET|PASSW|PASSPHRASE|PWD$|_PW$|_PASS$|(?:^|_)KEY(?:_|$)|APIKEY|API_KEY|ACCESS_KEY|PRIVATE|AUTH(?!OR)|CREDENTIAL|SESSION|COOKIE|SIGNATURE|CERT_?PASS|CONNECTION_STRING|DSN$|WEBHOOK/i;
/** verdict's own variables: its configuration and the keys it holds for its model calls. */
const VERDICT_OWN = /^(?:VERDICT_|TYPESAFE_)/;

function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

type ToolEnvOptions = {
  /** The variables that hold verdict's keys (task.key_env, the model's key_env): never passed. */
  keyEnvs: string[];
  /** Names the policy lets through as well (task.pass_env). */
  pass?: readonly string[];
  /** Variables the policy sets (task.env), then verdict's own additions (VERDICT_RUN_ID). */
  set?: Record<string, string>;
};

type ToolEnv = { env: Record<string, string>; withheld: string[] };

/** The environment a tool call runs with, and the names withheld that the policy asked for. */
export function toolEnvironment(env: Record<string, string | undefined>, options: ToolEnvOptions): ToolEnv {
  const keys = new Set(options.keyEnvs.filter(Boolean));
  const passed = new Set(options.pass ?? []);
  const refusedByName = (name: string): boolean => VERDICT_OWN.test(name) || keys.has(name) || isCredentialName(name);
  const out: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const wanted = ALLOWED.has(name) || ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix)) || passed.has(name);
    if (!wanted) continue;
    // A value that carries a credential (https_proxy=http://user:pw@proxy) stays behind too.
    if (refusedByName(name) || redact(value) !== value) {
      if (passed.has(name)) withheld.push(name);
      continue;
    }
    out[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) {
    if (refusedByName(name) && !name.startsWith("VERDICT_RUN_")) {
      withheld.push(name);
      continue;
    }
    out[name] = value;
  }
  return { env: out, withheld };
}

/**
 * A live copy of a tool's output with secrets redacted: whole lines are redacted and written; a line
 * longer than `maxLine` is redacted and written in pieces of that size. `flush` writes what is left.
 */
export function redactingWriter(write: (text: string) => void, maxLine = 64 * 1024): { push(chunk: Uint8Array): void; flush(): void } {
  const decoder = new TextDecoder();
  let pending = "";
  return {
    push(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      const end = pending.lastIndexOf("\n");
      if (end >= 0) {
        write(redact(pending.slice(0, end + 1)));
        pending = pending.slice(end + 1);
      }
      while (pending.length > maxLine) {
        write(redact(pending.slice(0, maxLine)));
        pending = pending.slice(maxLine);
      }
    },
    flush() {
      pending += decoder.decode();
      if (pending) write(redact(pending));
      pending = "";
    },
  };
}
