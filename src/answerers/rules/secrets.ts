/**
 * Secrets do not leave: a credential (ssh keys, cloud credentials, .env
 * files, .netrc, kube config, gnupg, keychains, browser profiles) read
 * anywhere in a line from which something goes to the network is
 * exfiltration, whichever command reads it and however it reaches the
 * sender (a pipe, `$( )` in a URL or a header, a variable, an upload option,
 * a DNS name). The finding names the file.
 *
 * Not counted: a key handed to a client to authenticate with (ssh -i KEY,
 * curl --cert/--key, --netrc-file, --kubeconfig), public keys, .env
 * templates, and sourcing a .env into the shell.
 */
import type { ExecutedCommand } from "../../shell/index.ts";
import { resolveWord, type PathContext } from "./paths.ts";

/** Credential files under a home folder, relative to it. */
const HOME_SECRETS =
  /^(\.ssh\/(?!.*\.pub$)(?!known_hosts)(?!config$).+|\.ssh$|\.aws\/(credentials|config)|\.aws$|\.config\/gh\/hosts\.ya?ml|\.config\/gh$|\.netrc|\.kube\/config|\.kube$|\.gnupg(\/.*)?|\.docker\/config\.json|\.npmrc|\.pypirc|\.git-credentials|\.config\/gcloud(\/.*)?|\.azure(\/.*)?|Library\/Keychains(\/.*)?|\.password-store(\/.*)?|\.mozilla(\/.*)?|\.config\/(google-chrome|chromium|BraveSoftware)(\/.*)?|Library\/Application Support\/(Google\/Chrome|Firefox|BraveSoftware)(\/.*)?|\.vault-token|\.terraform\.d\/credentials\.tfrc\.json|\.cargo\/credentials(\.toml)?|\.gem\/credentials|\.config\/hub|\.composer\/auth\.json|\.m2\/settings\.xml|\.gradle\/gradle\.properties|\.config\/op(\/.*)?|\.local\/share\/keyrings(\/.*)?|\.(bash|zsh|sh|python|node_repl|psql|mysql|sqlite)_history|\.local\/share\/fish\/fish_history)$/;

/** The machine's own secrets. */
const SYSTEM_SECRETS = /^\/etc\/(shadow|gshadow|sudoers|master\.passwd)(-|$)|^\/etc\/ssh\/ssh_host_\w+_key$/;

/** Credential files wherever they are, by name. */
const NAMED_SECRETS =
  /^(\.env(\.(?!example$|sample$|template$|dist$|defaults$)[\w.-]+)?|\.envrc|id_(rsa|dsa|ecdsa|ed25519)(_[\w-]+)?|.+\.(pem|key|p12|pfx|keystore|jks)|credentials\.json|service-account.*\.json|\.htpasswd|secrets?\.(ya?ml|json|toml))$/;

/** Credential paths inside a longer text (inline code, a quoted header). */
const IN_TEXT =
  /(?:~|\$HOME|\$\{HOME\}|\/home\/[\w.-]+|\/Users\/[\w.-]+|\/root)\/(?:\.ssh\/[\w.-]+|\.aws\/\w+|\.netrc|\.kube\/config|\.gnupg[\w/.-]*|\.docker\/config\.json|\.npmrc|\.pypirc|\.git-credentials|\.config\/gh\/hosts\.ya?ml)|(?:^|[\s'"(=,])(?:\.\/)?\.env(?:\.[\w-]+)?(?=$|[\s'")\],;])/g;

/** Commands that print a secret from a store. */
const SECRET_COMMANDS: { name: string; args: RegExp; what: string }[] = [
  { name: "security", args: /^find-(generic|internet)-password$|^dump-keychain$|^export$/, what: "the keychain" },
  { name: "gpg", args: /^--export-secret-(sub)?keys?$/, what: "gnupg secret keys" },
  { name: "gpg2", args: /^--export-secret-(sub)?keys?$/, what: "gnupg secret keys" },
  { name: "gh", args: /^token$/, what: "the gh auth token" },
  { name: "op", args: /^read$/, what: "a 1Password item" },
  { name: "pass", args: /^show$/, what: "a password-store entry" },
  { name: "aws", args: /^(get-session-token|export-credentials|get-secret-value|get-parameter)$/, what: "aws credentials or secrets" },
  { name: "gcloud", args: /^(print-access-token|print-identity-token)$/, what: "a gcloud access token" },
  { name: "az", args: /^get-access-token$/, what: "an az access token" },
  { name: "kubectl", args: /^--raw$/, what: "the kube config" },
  { name: "vault", args: /^(read|get)$/, what: "a vault secret" },
  { name: "heroku", args: /^auth:token$/, what: "the heroku token" },
];

/** Programs that send to the network; rsync, scp and sftp only with a host: operand. */
const SENDERS = new Set([
  "curl",
  "curlie",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "ssh",
  "telnet",
  "ftp",
  "sftp",
  "dig",
  "nslookup",
  "host",
  "drill",
  "ping",
  "ping6",
  "traceroute",
  "http",
  "https",
  "xh",
  "httpie",
  "aria2c",
  "axel",
  "openssl",
  "websocat",
  "grpcurl",
  "mail",
  "sendmail",
  "mutt",
  "gh",
  "s3cmd",
  "gsutil",
  "rclone",
  "ftp",
  "tftp",
  "lftp",
  "smbclient",
]);
const HOST_SENDERS = new Set(["scp", "rsync", "sftp"]);
/** Clients whose commands (put, mput, send) name local files to send. */
const TRANSFER_CLIENTS = new Set(["sftp", "ftp", "lftp", "tftp", "smbclient"]);
/** Inline code that talks to the network. */
const NETWORK_CODE =
  /\b(requests\.(get|post|put|patch)|urllib|http\.client|socket\.|fetch\s*\(|http\.request|https\.request|net::http|Net::HTTP|LWP::|IO::Socket|open-uri|axios|XMLHttpRequest|WebSocket)/;
const INTERPRETERS = new Set(["python", "python2", "python3", "node", "nodejs", "perl", "ruby", "php", "deno", "bun", "osascript", "pwsh"]);

/** Option values that hand a key to a client to authenticate with, not to send. */
const IDENTITY_ANY = new Set([
  "--shared-credentials-file",
  "--kubeconfig",
  "--identity",
  "--identity-file",
  "--private-key",
  "--key-file",
  "--ssh-key",
  "--credentials-file",
  "--env-file",
  "--netrc-file",
]);
const IDENTITY_OPTIONS: Record<string, Set<string>> = {
  ssh: new Set(["-i", "-F"]),
  scp: new Set(["-i", "-F"]),
  sftp: new Set(["-i", "-F"]),
  "ssh-add": new Set(["-d"]),
  curl: new Set(["--cert", "-E", "--key", "--cacert", "--capath"]),
  wget: new Set(["--certificate", "--ca-certificate"]),
  openssl: new Set(["-key", "-cert", "-CAfile", "-in"]),
};
const identityOption = (program: string, option: string) => IDENTITY_ANY.has(option) || (IDENTITY_OPTIONS[program]?.has(option) ?? false);

function secretPath(path: string, ctx: PathContext): boolean {
  const home = ctx.home.replace(/\/+$/, "");
  const homes = [home, ...(/^\/(home|Users)\/[^/]+|^\/root/.exec(path) ?? [])];
  for (const h of homes) {
    if (path.startsWith(`${h}/`) && HOME_SECRETS.test(path.slice(h.length + 1))) return true;
  }
  if (SYSTEM_SECRETS.test(path)) return true;
  const base = path.slice(path.lastIndexOf("/") + 1);
  return NAMED_SECRETS.test(base);
}

/** The credential a word names, as written, if it names one. */
function secretIn(word: string, ctx: PathContext): string | undefined {
  const candidates = [word];
  const at = word.lastIndexOf("@");
  if (at !== -1) candidates.push(word.slice(at + 1).replace(/[;,].*$/, ""));
  const eq = word.indexOf("=");
  if (eq !== -1) candidates.push(word.slice(eq + 1));
  for (const candidate of candidates) {
    if (candidate === "" || candidate.includes(" ")) continue;
    const path = resolveWord(candidate, ctx);
    if (path !== undefined && secretPath(path, ctx)) return candidate;
  }
  if (/[\s'"(]/.test(word)) {
    IN_TEXT.lastIndex = 0;
    const m = IN_TEXT.exec(word);
    if (m) return m[0].replace(/^[\s'"(=,]/, "");
  }
  return undefined;
}

/** What a command reads of the secrets: a credential file among its words or input, or a secret store it prints. */
function secretsRead(command: ExecutedCommand, ctx: PathContext): { stores: string[]; files: string[] } {
  if (command.name === "source" || command.name === ".") return { stores: [], files: [] };
  const stores: string[] = [];
  const found: string[] = [];
  const args = command.argv.slice(1);
  for (const store of SECRET_COMMANDS) {
    if (command.name === store.name && args.some((arg) => store.args.test(arg)) && (store.name !== "gh" || args[0] === "auth"))
      stores.push(store.what);
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (identityOption(command.name, word)) {
      i++;
      continue;
    }
    if (/^--?[\w-]+=/.test(word) && identityOption(command.name, word.slice(0, word.indexOf("=")))) continue;
    if (/IdentityFile[= ]/i.test(word)) continue;
    const secret = secretIn(word, ctx);
    if (secret !== undefined) found.push(secret);
  }
  // A file-transfer client's commands on its input name local files (sftp host <<< 'put ~/.ssh/id_rsa').
  if (TRANSFER_CLIENTS.has(command.name) && command.stdinScript !== undefined) {
    const secret = secretIn(` ${command.stdinScript}`, ctx);
    if (secret !== undefined) found.push(secret);
  }
  for (const redirect of command.redirects) {
    if (redirect.op !== "<") continue;
    const secret = secretIn(redirect.target, ctx);
    if (secret !== undefined) found.push(secret);
  }
  return { stores, files: found };
}

/** Whether a command sends something to another machine. */
function sends(command: ExecutedCommand): boolean {
  // openssl talks to the network only as a client or a server; req, genrsa, x509 and the like work on local files.
  if (command.name === "openssl")
    return command.argv.some((arg) => /^(s_client|s_server|s_time|ocsp)$/.test(arg)) && !loopbackOnly(command);
  if (SENDERS.has(command.name)) return !loopbackOnly(command);
  const args = command.argv.slice(1);
  // git push sends what was committed; aws sends what it is given to a bucket or an API.
  if (command.name === "git" && args.includes("push")) return true;
  if (command.name === "aws" && args.some((arg) => /^(s3|fileb?):\/\//.test(arg))) return true;
  // Code run on another machine (ssh host 'cat > x') reads what this line sends it.
  if (command.via.some((label) => /^(ssh|scp|sftp)\b/.test(label))) return true;
  if (HOST_SENDERS.has(command.name)) return command.argv.slice(1).some((arg) => /^[^/=-][^/=]*:/.test(arg));
  // A file server (python -m http.server, php -S) hands its folder to whoever connects.
  if (
    INTERPRETERS.has(command.name) &&
    (command.argv.includes("http.server") || command.argv.includes("SimpleHTTPServer") || command.argv.includes("-S"))
  )
    return true;
  if (INTERPRETERS.has(command.name))
    return (
      command.argv.some((arg) => NETWORK_CODE.test(arg)) || (command.stdinScript !== undefined && NETWORK_CODE.test(command.stdinScript))
    );
  return false;
}

/** A request whose every address is this machine (curl localhost:3000/health): nothing leaves. */
function loopbackOnly(command: ExecutedCommand): boolean {
  const addresses = command.argv
    .slice(1)
    .filter(
      (arg) =>
        /^(https?|wss?|ftp):\/\//.test(arg) || /^[\w.-]+:\d+(\/|$)/.test(arg) || /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/.test(arg),
    );
  return (
    addresses.length > 0 &&
    addresses.every((arg) => /^(?:[a-z]+:\/\/)?(?:[^@/]*@)?(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)(?:[:/]|$)/.test(arg))
  );
}

/** `kind`: a credential file or store (deny), or a variable whose name says it holds a secret (ask: it may be going to its own service). */
type Leak = { command: ExecutedCommand; secret: string; sender: string; kind?: "variable" };

/** Variable names that say they hold a secret: GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, DB_PASSWORD. */
const SECRET_VARIABLE =
  /\$\{?([A-Za-z_][A-Za-z0-9_]*?(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_KEY(?:_ID)?|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)\}?/i;

/** Vendors whose variables are spelt otherwise than their domains. */
const VENDOR_DOMAIN: Record<string, string> = {
  gh: "github",
  aws: "amazonaws",
  gcp: "googleapis",
  google: "googleapis",
  hf: "huggingface",
  az: "azure",
};

/** The hosts of the URLs among a command's words. */
function hostsOf(command: ExecutedCommand): string[] {
  return command.argv.slice(1).flatMap((arg) => {
    const m = /^(?:https?|wss?):\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(arg);
    return m ? [(m[1] as string).toLowerCase()] : [];
  });
}

/**
 * A secret-named variable put into a sender's words (a URL, a header, a body), when the line did not
 * set it to literal text, and it does not go to its own vendor: $GITHUB_TOKEN to api.github.com is
 * how that token is used; $GITHUB_TOKEN to x.example is how it leaves.
 */
function secretVariable(sender: ExecutedCommand, assigned: ReadonlySet<string>): string | undefined {
  const hosts = hostsOf(sender);
  for (const word of sender.argv.slice(1)) {
    const m = SECRET_VARIABLE.exec(word);
    if (!m || assigned.has(m[1] as string)) continue;
    const prefix = (m[1] as string).split("_")[0]?.toLowerCase() ?? "";
    const vendor = VENDOR_DOMAIN[prefix] ?? prefix;
    const own =
      vendor.length >= 3 &&
      hosts.length > 0 &&
      hosts.every((host) => host.split(".").some((label) => label === vendor || label.startsWith(vendor)));
    if (!own) return `$${m[1]}`;
  }
  return undefined;
}

/** The first credential read on a line that also sends to the network, with what sends. */
/** A dump of the environment, where tokens live (env, printenv, export -p, declare -x). */
function dumpsEnvironment(command: ExecutedCommand): boolean {
  const args = command.argv.slice(1);
  if (command.name === "env" || command.name === "printenv") return args.every((arg) => arg.startsWith("-"));
  if (command.name === "export" || command.name === "declare" || command.name === "typeset")
    return args.length > 0 && args.every((arg) => /^-[px0]+$/.test(arg));
  return command.name === "set" && args.length === 0;
}

export function secretLeak(
  commands: readonly ExecutedCommand[],
  ctx: (command: ExecutedCommand) => PathContext,
  writersOf: (command: ExecutedCommand) => readonly ExecutedCommand[] = () => [],
  assigned: ReadonlySet<string> = new Set(),
): Leak | undefined {
  const senders = commands.filter(sends);
  if (senders.length === 0) return undefined;
  // The environment piped into a sender, or put into its words by $(env): every token it holds leaves.
  for (const sender of senders) {
    const dump = writersOf(sender).find(dumpsEnvironment);
    if (dump) return { command: dump, secret: "the environment (its tokens and keys)", sender: sender.name };
    if (sender.argv.some((arg) => /(\$\(|`)\s*(env|printenv|export\s+-p|declare\s+-x)\s*(\||\)|`)/.test(arg)))
      return { command: sender, secret: "the environment (its tokens and keys)", sender: sender.name };
  }
  const nameOf = (sender: ExecutedCommand) =>
    SENDERS.has(sender.name) ||
    HOST_SENDERS.has(sender.name) ||
    INTERPRETERS.has(sender.name) ||
    sender.name === "git" ||
    sender.name === "aws"
      ? sender.name
      : ((sender.via.find((label) => /^(ssh|scp|sftp)\b/.test(label)) ?? sender.name).split(" ")[0] as string);
  for (const command of commands) {
    // Code run on another machine (ssh host 'cat ~/.ssh/authorized_keys') reads that machine's files, not this one's.
    if (command.via.some((label) => /^(ssh|scp|sftp)\b/.test(label))) {
      // ...but ssh's own input (ssh host 'cat > k' < ~/.ssh/id_rsa) is read here and sent there.
      const local = command.redirects.find((r) => r.local && r.op === "<" && secretIn(r.target, ctx(command)) !== undefined);
      if (local) return { command, secret: local.target, sender: "ssh" };
      continue;
    }
    const { stores, files } = secretsRead(command, ctx(command));
    // A file the sender reads itself (curl -F f=@.env) leaves with it; a store's secret (gh auth token) leaves only through another command.
    if (files.length > 0) return { command, secret: files[0] as string, sender: nameOf(senders[0] as ExecutedCommand) };
    const other = senders.find((sender) => sender !== command);
    if (stores.length > 0 && other) return { command, secret: stores[0] as string, sender: nameOf(other) };
  }
  for (const sender of senders) {
    const variable = secretVariable(sender, assigned);
    if (variable) return { command: sender, secret: variable, sender: nameOf(sender), kind: "variable" };
    // printenv NAME, echo "$NAME" piped into the sender.
    for (const writer of writersOf(sender)) {
      const printed =
        writer.name === "printenv"
          ? writer.argv
              .slice(1)
              .map((name) => `$${name}`)
              .find((word) => SECRET_VARIABLE.test(word))
          : writer.name === "echo" || writer.name === "printf"
            ? secretVariable(writer, assigned)
            : undefined;
      if (printed) return { command: writer, secret: printed.replace(/^\$\$/, "$"), sender: nameOf(sender), kind: "variable" };
    }
  }
  return undefined;
}
