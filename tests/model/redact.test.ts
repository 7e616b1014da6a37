import { describe, expect, test } from "bun:test";
import { REDACTED, redact } from "../../src/core/redact.ts";

const SECRETS: [string, string][] = [
  ["GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh release create v1", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
  ["export OPENAI_API_KEY='sk-proj-abcdefghijklmnopqrstuvwx'", "sk-proj-abcdefghijklmnopqrstuvwx"],
  ['curl -H "Authorization: Bearer abc123def456ghi789" https://api.example.com', "abc123def456ghi789"],
  ["curl -H 'authorization: token 0123456789abcdef' https://x", "0123456789abcdef"],
  ["git clone https://bob:hunter2pass@github.com/acme/app.git", "hunter2pass"],
  ["psql postgres://admin:s3cr3tP4ss@db.internal:5432/app -c 'select 1'", "s3cr3tP4ss"],
  ["PASSWORD=hunter2 ./deploy.sh", "hunter2"],
  ['DB_PASSWORD="correct horse battery" npm run migrate', "correct horse battery"],
  ["aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
  ["echo AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"],
  ["mysql --password=hunter2 -u root", "hunter2"],
  ["docker login --password s3cretvalue --username me", "s3cretvalue"],
  ['curl -d \'{"password": "pa55word!"}\' https://x', "pa55word!"],
  ["curl 'https://x.com/api?access_token=abcdef123456&user=bob'", "abcdef123456"],
  ["TYPESAFE_API_KEY=apikey_0123456789abcdef verdict doctor", "apikey_0123456789abcdef"],
  ["npm config set //registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789"],
  ["curl -H 'x-api-key: 9f8e7d6c5b4a' https://x", "9f8e7d6c5b4a"],
  ["SLACK_BOT=xoxb-1234567890-abcdefghij ./notify", "xoxb-1234567890-abcdefghij"],
  [
    "echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  ],
  ["cat <<EOF > key.pem\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nEOF", "MIIEowIBAAKCAQEA7"],
];

describe("redact", () => {
  test.each(SECRETS)("removes the secret from %p", (text, secret) => {
    const out = redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });

  test("keeps what is not a secret", () => {
    for (const text of [
      "rm -rf build/cache",
      "GIT_AUTHOR_NAME=bob git commit -m 'fix the token parser'",
      "cd $PWD && ls",
      "TOKEN=$GH_TOKEN ./release.sh",
      "grep -rn password src/",
      "let token: string = ''",
      "curl https://example.com/api?page=2",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  test("keeps the name a secret was assigned to, so the command reads the same", () => {
    expect(redact("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh pr list")).toBe(`GITHUB_TOKEN=${REDACTED} gh pr list`);
    expect(redact("git push https://bob:pw12345@host/r.git")).toBe(`git push https://bob:${REDACTED}@host/r.git`);
  });
});
