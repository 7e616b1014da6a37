/**
 * A labelled set of secrets and near-misses for the redactor (src/core/redact.ts).
 *
 * Each secret case is a realistic line holding one credential (`secret`), tagged with its class; the
 * redactor must remove every one (recall is asserted at 100% in tests/secrets/redact-set.test.ts and
 * reported by bench/secrets). Each near-miss is a line with something secret-shaped that is not a secret
 * (a git SHA, a UUID that is an id, a base64 test fixture, a type annotation); changing one is a false
 * positive, counted and reported in docs/secrets.md rather than asserted, since redaction errs toward
 * removing. Every value is made up here from a fixed seed.
 */

/** A deterministic generator, so the set is the same on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const random = seeded(12);
function body(length: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}
const HEX = "0123456789abcdef";
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const uuid = (): string => `${body(8, HEX)}-${body(4, HEX)}-4${body(3, HEX)}-a${body(3, HEX)}-${body(12, HEX)}`;

export type SecretCase = { class: string; text: string; secret: string };
export type NearMiss = { kind: string; text: string };

function s(cls: string, secret: string, make: (secret: string) => string): SecretCase {
  return { class: cls, secret, text: make(secret) };
}

export const SECRETS: SecretCase[] = [
  // The nine missed classes, several forms each.
  s(
    "slack-webhook",
    `T0${body(8)}/B0${body(8)}/${body(24)}`,
    (v) => `curl -X POST -d '{"text":"done"}' https://hooks.slack.com/services/${v}`,
  ),
  s("slack-webhook", `T0${body(8)}/B0${body(8)}/${body(24)}`, (v) => `SLACK_URL=https://hooks.slack.com/services/${v} ./notify.sh`),
  s("slack-webhook", `${body(10)}/${body(20)}`, (v) => `curl https://hooks.slack.com/workflows/${v} -d @msg.json`),
  s("google-api-key", `AIza${body(34, URLSAFE)}-`, (v) => `curl "https://maps.googleapis.com/maps/api/geocode/json?address=x&key=${v}"`),
  s("google-api-key", `AIza${body(34, URLSAFE)}-`, (v) => `gcloud config set api_key ${v} --quiet`),
  s("google-api-key", `AIza${body(34, URLSAFE)}_`, (v) => `echo ${v} > key.txt`),
  s("google-api-key", `AIza${body(35, URLSAFE)}`, (v) => `export FIREBASE_KEY=${v}`),
  s("npm-legacy-token", uuid(), (v) => `echo "//registry.npmjs.org/:_authToken=${v}" >> ~/.npmrc`),
  s("npm-legacy-token", uuid(), (v) => `printf '//npm.pkg.github.com/:_authToken=${v}\\n' > .npmrc`),
  s("npm-legacy-token", uuid(), (v) => `npm config set //registry.npmjs.org/:_authToken=${v}`),
  s("npm-legacy-token", body(40, B64), (v) => `echo '_auth=${v}' >> .npmrc`),
  s("curl-user", `p${body(14)}`, (v) => `curl -u deploy:${v} https://ci.example.com/api/jobs`),
  s("curl-user", `p${body(14)}!`, (v) => `curl --user 'admin:${v}' https://x.example.com`),
  s("curl-user", `p${body(10)}`, (v) => `curl -uadmin:${v} https://x.example.com/status`),
  s("curl-user", `p${body(10)}`, (v) => `curl -s --proxy-user bob:${v} -x http://proxy:3128 https://x.example.com`),
  s("mysql-password", `p${body(12)}`, (v) => `mysql -uroot -p${v} -h db.internal app < dump.sql`),
  s("mysql-password", `p${body(12)}`, (v) => `mysqldump -u backup -p${v} --all-databases > all.sql`),
  s("mysql-password", `p${body(12)}`, (v) => `docker exec db mysql -uroot -p'${v}' -e 'show databases'`),
  s("mysql-password", `p${body(12)}`, (v) => `mariadb -h 127.0.0.1 -u app -p${v} appdb`),
  s("sshpass", `p${body(12)}`, (v) => `sshpass -p ${v} ssh deploy@10.0.0.5 uptime`),
  s("sshpass", `p${body(12)}`, (v) => `sshpass -p'${v}' scp build.tgz ops@host:/srv`),
  s("sshpass", `p${body(12)}`, (v) => `sshpass -p "${v}" rsync -a dist/ web@host:/var/www`),
  s("docker-login", `p${body(16)}`, (v) => `docker login -u ci -p ${v} registry.example.com`),
  s("docker-login", `p${body(16)}`, (v) => `docker login registry.gitlab.com -u me -p ${v}`),
  s("docker-login", `p${body(16)}`, (v) => `podman login -u me -p '${v}' quay.io`),
  s("docker-login", `p${body(16)}`, (v) => `helm registry login ghcr.io -u me -p ${v}`),
  s(
    "azure-account-key",
    `${body(86, B64)}==`,
    (v) =>
      `export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${v};EndpointSuffix=core.windows.net"`,
  ),
  s("azure-account-key", `${body(86, B64)}==`, (v) => `az storage blob list --connection-string 'AccountName=acme;AccountKey=${v}'`),
  s(
    "azure-account-key",
    `${body(43, B64)}=`,
    (v) => `SB="Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${v}"`,
  ),
  s("azure-sas", `${body(43, B64)}%3D`, (v) => `azcopy copy x "https://acme.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=${v}"`),
  s("netrc-password", `p${body(12)}`, (v) => `echo "machine api.example.com login bot password ${v}" >> ~/.netrc`),
  s("netrc-password", `p${body(12)}`, (v) => `printf 'machine github.com\\n  login me\\n  password ${v}\\n' > ~/.netrc`),
  s("netrc-password", `p${body(12)}`, (v) => `cat > ~/.netrc <<EOF\nmachine ftp.example.com login anon password ${v}\nEOF`),
  // Provider token formats.
  s("github", `ghp_${body(36)}`, (v) => `GITHUB_TOKEN=${v} gh release create v1`),
  s("github", `gho_${body(36)}`, (v) => `git clone https://${v}@github.com/acme/app.git`),
  s("github", `ghs_${body(36)}`, (v) => `echo ${v} | gh auth login --with-token`),
  s("github", `github_pat_${body(22)}_${body(59)}`, (v) => `gh api user -H "Authorization: token ${v}"`),
  s("github", `ghr_${body(36)}`, (v) => `echo ${v}`),
  s("gitlab", `glpat-${body(20, URLSAFE)}`, (v) => `curl --header "PRIVATE-TOKEN: ${v}" https://gitlab.example.com/api/v4/projects`),
  s("gitlab", `glpat-${body(20, URLSAFE)}`, (v) => `git remote add origin https://oauth2:${v}@gitlab.com/acme/app.git`),
  s("gitlab", `glrt-${body(20, URLSAFE)}`, (v) => `gitlab-runner register --token ${v}`),
  s("openai", `sk-proj-${body(48, URLSAFE)}`, (v) => `export OPENAI_API_KEY='${v}'`),
  s("openai", `sk-${body(48)}`, (v) => `curl https://api.openai.com/v1/models -H "Authorization: Bearer ${v}"`),
  s("openai", `sk-svcacct-${body(40, URLSAFE)}`, (v) => `python app.py ${v}`),
  s("anthropic", `sk-ant-api03-${body(80, URLSAFE)}`, (v) => `ANTHROPIC_API_KEY=${v} claude -p hi`),
  s("anthropic", `sk-ant-api03-${body(80, URLSAFE)}`, (v) => `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${v}"`),
  s("stripe", `sk_live_${body(24)}`, (v) => `curl https://api.stripe.com/v1/charges -u ${v}:`),
  s("stripe", `rk_live_${body(24)}`, (v) => `stripe listen --api-key ${v}`),
  s("stripe", `whsec_${body(32)}`, (v) => `echo STRIPE_WH=${v}`),
  s(
    "slack",
    `xoxb-${body(11, "0123456789")}-${body(12, "0123456789")}-${body(24)}`,
    (v) => `curl -H "Authorization: Bearer ${v}" https://slack.com/api/chat.postMessage`,
  ),
  s("slack", `xoxp-${body(11, "0123456789")}-${body(24)}`, (v) => `node post.js ${v}`),
  s("slack", `xapp-1-${body(11)}-${body(13, "0123456789")}-${body(32)}`, (v) => `echo ${v}`),
  s("aws", `AKIA${body(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`, (v) => `aws configure set aws_access_key_id ${v}`),
  s("aws", `${body(40, B64)}`, (v) => `aws configure set aws_secret_access_key ${v}`),
  s("aws", `${body(40, B64)}`, (v) => `AWS_SECRET_ACCESS_KEY=${v} aws s3 ls`),
  s("aws", `${body(40, B64)}`, (v) => `printf '[default]\\naws_secret_access_key = ${v}\\n' >> ~/.aws/credentials`),
  s("aws", `ASIA${body(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`, (v) => `echo ${v}`),
  s("npm", `npm_${body(36)}`, (v) => `NPM_TOKEN=${v} npm publish`),
  s("npm", `npm_${body(36)}`, (v) => `npm config set //registry.npmjs.org/:_authToken ${v}`),
  s("huggingface", `hf_${body(34)}`, (v) => `huggingface-cli login --token ${v}`),
  s("huggingface", `hf_${body(34)}`, (v) => `git clone https://user:${v}@huggingface.co/acme/model`),
  s("pypi", `pypi-${body(60, URLSAFE)}`, (v) => `twine upload -u __token__ -p ${v} dist/*`),
  s("pypi", `pypi-${body(60, URLSAFE)}`, (v) => `TWINE_PASSWORD=${v} twine upload dist/*`),
  s(
    "jwt",
    `eyJhbGciOiJIUzI1NiJ9.eyJ${body(40, URLSAFE)}.${body(43, URLSAFE)}`,
    (v) => `curl -H "Cookie: session=${v}" https://app.example.com`,
  ),
  s("jwt", `eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${body(60, URLSAFE)}.${body(86, URLSAFE)}`, (v) => `echo ${v} | jwt decode -`),
  s(
    "pem",
    `MII${body(60, B64)}`,
    (v) => `cat > id_rsa <<'EOF'\n-----BEGIN OPENSSH PRIVATE KEY-----\n${v}\n-----END OPENSSH PRIVATE KEY-----\nEOF`,
  ),
  s("pem", `MII${body(60, B64)}`, (v) => `echo "-----BEGIN PRIVATE KEY-----\\n${v}\\n-----END PRIVATE KEY-----" > key.pem`),
  s("pem", `MII${body(60, B64)}`, (v) => `printf -- '-----BEGIN EC PRIVATE KEY-----\n${v}`),
  s("sendgrid", `SG.${body(22, URLSAFE)}.${body(43, URLSAFE)}`, (v) => `SENDGRID=${v} node mail.js`),
  s("sendgrid", `SG.${body(22, URLSAFE)}.${body(43, URLSAFE)}`, (v) => `node mail.js ${v}`),
  s("mailgun", `key-${body(32, HEX)}`, (v) => `curl -s --user 'api:${v}' https://api.mailgun.net/v3/x/messages`),
  s("shopify", `shpat_${body(32, HEX)}`, (v) => `curl -H "X-Shopify-Access-Token: ${v}" https://shop.myshopify.com/admin`),
  s("digitalocean", `dop_v1_${body(64, HEX)}`, (v) => `doctl auth init -t ${v}`),
  s("databricks", `dapi${body(32, HEX)}`, (v) => `databricks configure --host https://x --token ${v}`),
  s("atlassian", `ATATT3xFfGF0${body(180, URLSAFE)}`, (v) => `curl -u me@acme.com:${v} https://acme.atlassian.net/rest/api/3/myself`),
  s("linear", `lin_api_${body(40)}`, (v) => `echo ${v}`),
  s("notion", `secret_${body(43)}`, (v) => `node sync.js ${v}`),
  s("notion", `ntn_${body(46)}`, (v) => `node sync.js ${v}`),
  s("postman", `PMAK-${body(24, HEX)}-${body(34, HEX)}`, (v) => `newman run c.json --postman-api-key ${v}`),
  s("vault", `hvs.${body(90, URLSAFE)}`, (v) => `vault login ${v}`),
  s("vault", `hvs.${body(24, URLSAFE)}`, (v) => `curl -H "X-Vault-Token: ${v}" https://vault:8200/v1/secret/x`),
  s("pulumi", `pul-${body(40, HEX)}`, (v) => `pulumi login --cloud-url x ${v}`),
  s(
    "terraform",
    `${body(14)}.atlasv1.${body(67, URLSAFE)}`,
    (v) => `echo 'credentials "app.terraform.io" { token = "${v}" }' > ~/.terraformrc`,
  ),
  s("grafana", `glsa_${body(32)}_${body(8, HEX)}`, (v) => `grafana-cli ${v}`),
  s("sentry", `sntrys_${body(120, URLSAFE)}`, (v) => `sentry-cli releases new v1 ${v}`),
  s("docker", `dckr_pat_${body(27, URLSAFE)}`, (v) => `echo ${v} | docker login -u me --password-stdin`),
  s("age", `AGE-SECRET-KEY-1${body(58, "ACDEFGHJKLMNPQRSTUVWXYZ023456789")}`, (v) => `echo ${v} > key.txt`),
  s("telegram", `${body(10, "0123456789")}:AA${body(33, URLSAFE)}`, (v) => `curl https://api.telegram.org/bot${v}/getMe`),
  s("supabase", `sbp_${body(40, HEX)}`, (v) => `supabase login ${v}`),
  s("doppler", `dp.st.${body(43)}`, (v) => `doppler run --token ${v} -- node app.js`),
  s("square", `sq0atp-${body(22, URLSAFE)}`, (v) => `node pay.js ${v}`),
  s("google-oauth", `ya29.${body(100, URLSAFE)}`, (v) => `curl -H "Authorization: Bearer ${v}" https://www.googleapis.com/drive/v3/files`),
  s("google-oauth", `GOCSPX-${body(28, URLSAFE)}`, (v) => `node auth.js ${v}`),
  s("azure-ad", `${body(3, URLSAFE)}8Q~${body(34, URLSAFE)}`, (v) => `az login --service-principal -u app -p ${v} --tenant t`),
  s(
    "discord-webhook",
    `${body(18, "0123456789")}/${body(68, URLSAFE)}`,
    (v) => `curl -d 'content=hi' https://discord.com/api/webhooks/${v}`,
  ),
  // Generic forms.
  s("env-assignment", `p${body(12)}`, (v) => `DB_PASSWORD=${v} npm run migrate`),
  s("env-assignment", `correct horse ${body(6)}`, (v) => `DB_PASSWORD="${v}" npm run migrate`),
  s("env-assignment", `${body(30)}`, (v) => `export API_KEY=${v}`),
  s("env-assignment", `${body(24)}`, (v) => `echo "CLIENT_SECRET=${v}" >> .env`),
  s("env-assignment", `${body(16)}`, (v) => `SECRET_KEY_BASE=${v} rails s`),
  s("env-assignment", `${body(16)}`, (v) => `docker run -e POSTGRES_PASSWORD=${v} postgres:16`),
  s("env-assignment", `${body(20)}`, (v) => `kubectl create secret generic db --from-literal=password=${v}`),
  s("url-password", `p${body(12)}`, (v) => `psql postgres://admin:${v}@db.internal:5432/app -c 'select 1'`),
  s("url-password", `p${body(12)}`, (v) => `DATABASE_URL=mysql://app:${v}@localhost/app rails db:migrate`),
  s("url-password", `p${body(12)}`, (v) => `redis-cli -u redis://default:${v}@cache:6379 ping`),
  s("url-password", `p${body(12)}`, (v) => `pip install --index-url https://u:${v}@pypi.example.com/simple pkg`),
  s("auth-header", `${body(32)}`, (v) => `curl -H "Authorization: Basic ${v}" https://x.example.com`),
  s("auth-header", `${body(32)}`, (v) => `http GET x.example.com 'Authorization:Bearer ${v}'`),
  s("auth-header", `${body(20)}`, (v) => `curl -H 'X-Api-Key: ${v}' https://x.example.com`),
  s("json-field", `p${body(12)}!`, (v) => `curl -d '{"username":"me","password":"${v}"}' https://x.example.com/login`),
  s("json-field", `${body(24)}`, (v) => `echo '{"client_secret": "${v}"}' > creds.json`),
  s("secret-option", `${body(20)}`, (v) => `vercel deploy --token ${v}`),
  s("secret-option", `${body(20)}`, (v) => `gh secret set X --body x --api-key=${v}`),
  s("secret-option", `p${body(12)}`, (v) => `openssl pkcs12 -in c.p12 -passin pass:${v} -out c.pem`),
  s("query-token", `${body(24)}`, (v) => `curl 'https://x.example.com/api?access_token=${v}&user=bob'`),
  s("query-token", `${body(24)}`, (v) => `wget "https://x.example.com/dl?token=${v}"`),
];

export const NEAR_MISSES: NearMiss[] = [
  { kind: "git-sha", text: `git checkout ${body(40, HEX)}` },
  { kind: "git-sha", text: `git revert ${body(12, HEX)} --no-edit` },
  { kind: "git-sha", text: `git diff ${body(7, HEX)}..${body(7, HEX)}` },
  { kind: "git-sha", text: `git cherry-pick ${body(40, HEX)}` },
  { kind: "uuid-id", text: `kubectl get pod ${uuid()}` },
  { kind: "uuid-id", text: `curl https://api.example.com/orders/${uuid()}` },
  { kind: "uuid-id", text: `az group show --subscription ${uuid()}` },
  { kind: "uuid-id", text: `REQUEST_ID=${uuid()} ./replay.sh` },
  { kind: "base64-fixture", text: `echo aGVsbG8gd29ybGQ= | base64 -d` },
  { kind: "base64-fixture", text: `echo '${body(44, B64)}=' > tests/fixtures/blob.b64` },
  { kind: "base64-fixture", text: `python -c "import base64; print(base64.b64decode('${body(24, B64)}'))"` },
  { kind: "sha256", text: `echo "${body(64, HEX)}  dist/app.tgz" | sha256sum -c` },
  { kind: "sha256", text: `docker pull node@sha256:${body(64, HEX)}` },
  { kind: "integrity", text: `grep 'integrity sha512-${body(86, B64)}==' package-lock.json` },
  { kind: "type-annotation", text: `let token: string = ''` },
  { kind: "type-annotation", text: `grep -n "password: str" app/models.py` },
  { kind: "variable", text: `TOKEN=$GH_TOKEN ./release.sh` },
  { kind: "variable", text: `curl -H "Authorization: Bearer $API_TOKEN" https://x.example.com` },
  { kind: "variable", text: `mysql -u root -p"$MYSQL_PWD" app` },
  { kind: "variable", text: `curl -u "$USER:$PASS" https://x.example.com` },
  { kind: "prompting", text: `mysql -u root -p app` },
  { kind: "prompting", text: `docker login -u me --password-stdin ghcr.io` },
  { kind: "prompting", text: `curl -u admin https://x.example.com` },
  { kind: "other-option", text: `mkdir -p src/components/button` },
  { kind: "other-option", text: `ssh -p 2222 deploy@host uptime` },
  { kind: "other-option", text: `docker run -p 8080:80 -u 1000:1000 nginx` },
  { kind: "other-option", text: `git add -u && sort -u names.txt` },
  { kind: "other-option", text: `ps -u root -o pid,cmd` },
  { kind: "other-option", text: `python -m pytest -p no:cacheprovider` },
  { kind: "name-only", text: `grep -rn password src/` },
  { kind: "name-only", text: `GIT_AUTHOR_NAME=bob git commit -m 'fix the token parser'` },
  { kind: "name-only", text: `echo "enter your password below"` },
  { kind: "name-only", text: `MAX_TOKENS=4096 python gen.py` },
  { kind: "name-only", text: `PASSWORD_FILE=/run/secrets/db ./start.sh` },
  { kind: "name-only", text: `AWS_ACCESS_KEY_ID_FILE=/run/secrets/id ./start.sh` },
  { kind: "prose", text: `git commit -m "rotate the password handling in login"` },
  { kind: "prose", text: `echo "the token expired: log in again"` },
  { kind: "url", text: `curl https://example.com/api?page=2&sort=name` },
  { kind: "url", text: `git clone git@github.com:acme/app.git` },
  { kind: "url", text: `curl http://localhost:8080/health` },
  { kind: "url", text: `open https://hooks.slack.com/` },
  { kind: "path", text: `cat src/auth/token_store.ts` },
  { kind: "path", text: `rm -rf build/cache` },
  { kind: "path", text: `cd $PWD && ls` },
  { kind: "random-id", text: `npx prisma migrate resolve --applied 20240101120000_${body(8)}` },
  { kind: "random-id", text: `gcloud compute instances describe vm-${body(10, HEX)} --zone us-central1-a` },
  { kind: "random-id", text: `echo ${body(32, HEX)}` },
  { kind: "word-prefix", text: `pip install scikit-learn sk-video` },
  { kind: "word-prefix", text: `npm install key-mirror ghost` },
  { kind: "placeholder", text: `echo "GITHUB_TOKEN=" >> .env.example` },
];

// Near-misses that the shape rules do change (kept in the set so the figure is honest).
NEAR_MISSES.push(
  { kind: "name-only", text: `SESSION_TOKEN_HEADER=X-Session ./serve` },
  { kind: "config-name", text: `yq '.model.jev.key_env: TYPESAFE_API_KEY_NAME' policy.yaml` },
  { kind: "id", text: `OAUTH_CLIENT=web-app-7f3a9c ./login.sh` },
  { kind: "other-option", text: `ps -u www-data:www-data` },
);
