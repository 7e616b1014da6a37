/**
 * Everyday developer commands stay allowed, their destructive counterparts
 * are asked about or denied, and the misses found while going through the
 * corpus (docs/corpus.md) stay fixed. All on the embedded default policy.
 */
import { describe, expect, test } from "bun:test";
import { judge } from "./helpers.ts";

const flagged = (verdict: string) => verdict === "ask" || verdict === "deny";

describe("everyday developer commands are allowed", () => {
  const everyday = [
    "git status",
    "git diff HEAD~1",
    "git log --oneline -20",
    "git add -A",
    'git commit -m "fix: thing"',
    "git pull",
    "git fetch origin",
    "git checkout -b feature/x",
    "git switch main",
    "git stash",
    "git merge main",
    "git clone https://github.com/x/y",
    "git clone --depth 1 -b main https://github.com/x/y",
    "npm install",
    "npm ci",
    "npm run build",
    "npm test",
    "npx tsc --noEmit",
    "pnpm install",
    "pnpm run dev",
    "pnpm test",
    "yarn",
    "yarn build",
    "bun install",
    "bun test",
    "bun run build",
    "cargo build --release",
    "cargo test",
    "cargo clippy -- -D warnings",
    "cargo fmt",
    "go build ./...",
    "go test ./...",
    "go vet ./...",
    "go mod tidy",
    "make",
    "make test",
    "make -j8",
    "pytest -x tests/",
    "python -m pytest",
    "docker ps",
    "docker ps -a",
    "docker logs -f web",
    "docker build -t app .",
    "docker images",
    "kubectl get pods",
    "kubectl get pods -n kube-system -o wide",
    "kubectl describe pod web-1",
    "kubectl logs deploy/web",
    "terraform plan",
    "terraform plan -out tfplan",
    "terraform validate",
    "aws s3 ls",
    "gcloud compute instances list",
    'psql -c "SELECT count(*) FROM users"',
    "redis-cli GET key",
  ];
  for (const line of everyday) test(line, () => expect(judge(line).verdict).toBe("allow"));
});

describe("destructive counterparts are asked about or denied", () => {
  const destructive = [
    "terraform destroy",
    "terraform destroy -auto-approve",
    "terraform apply -auto-approve",
    "terraform -chdir=infra destroy -auto-approve",
    "terraform apply -destroy -auto-approve",
    "tofu destroy -auto-approve",
    "kubectl delete pod web-1",
    "kubectl delete ns prod",
    "kubectl -n prod delete deployment web",
    "kubectl delete pods --all -A",
    "helm uninstall web",
    "docker system prune -a",
    "docker system prune -af --volumes",
    "docker volume prune -f",
    "docker compose down -v",
    "aws s3 rm s3://bucket --recursive",
    "aws --profile prod s3 rm s3://b --recursive",
    "aws s3 rb s3://bucket --force",
    "aws ec2 terminate-instances --instance-ids i-123",
    "gcloud compute instances delete vm-1 --zone us-central1-a --quiet",
    "gcloud projects delete my-proj",
    "gcloud sql instances delete db",
    "gcloud storage rm -r gs://bucket",
    "az group delete -n rg --yes",
    'psql -c "DROP DATABASE prod"',
    "PGPASSWORD=x psql -h prod -c 'DROP DATABASE app'",
    "psql mydb <<'SQL'\nDROP DATABASE prod;\nSQL",
    'mysql -e "DROP DATABASE prod"',
    "mysql -u root -p -e 'drop database app'",
    'docker exec db psql -U postgres -c "DROP DATABASE app"',
    "dropdb app",
    "redis-cli FLUSHALL",
    "redis-cli -h cache flushall",
    "redis-cli -n 0 FLUSHDB",
    'mongosh --eval "db.dropDatabase()"',
  ];
  for (const line of destructive) test(line, () => expect(flagged(judge(line).verdict)).toBe(true));
});

describe("misses fixed", () => {
  test("git checkout: --unified and --conflict take a value; -m while switching keeps local changes", () => {
    for (const line of [
      "git checkout --unified 3 main",
      "git checkout -U3 main",
      "git checkout --conflict merge main",
      "git checkout --conflict=merge main",
      "git checkout -m main",
    ]) {
      expect(judge(line)).toMatchObject({ verdict: "allow", rule: "git-switch-branch" });
    }
    // Paths are still overwritten.
    expect(judge("git checkout -m main file.txt").verdict).toBe("ask");
    expect(judge("git checkout -m -- file.txt").verdict).toBe("ask");
    expect(judge("git checkout --conflict=merge -- file.txt").verdict).toBe("ask");
  });

  test("git clone/ls-remote -u and --template run programs here", () => {
    for (const line of [
      "git clone -u 'touch /tmp/pwned' /srv/repo.git x",
      "git ls-remote -u 'sh -c id' /srv/repo.git",
      "git clone --template=/tmp/evil https://github.com/a/b",
      "git init --template /tmp/evil",
    ]) {
      expect(judge(line)).toMatchObject({ verdict: "ask", rule: "git-clone-runs-programs" });
    }
    expect(judge("git clone --config core.hooksPath=/tmp/h https://github.com/a/b")).toMatchObject({
      verdict: "ask",
      rule: "git-config-option-runs-programs",
    });
    expect(judge("git push -u origin main").rule).toBe("git-push");
    expect(judge("git fetch -u origin").verdict).toBe("allow");
    expect(judge("git clone --config user.name=x https://github.com/a/b").verdict).toBe("allow");
  });

  test("redis-cli deleting keys, the command and its key as separate words", () => {
    for (const line of [
      "redis-cli DEL key",
      "redis-cli -h cache -p 6380 DEL session:1",
      "redis-cli UNLINK a b",
      "redis-cli --scan --pattern 'user:*' | xargs redis-cli del",
    ]) {
      expect(judge(line)).toMatchObject({ verdict: "ask", rule: "redis-deletes-keys" });
    }
    expect(flagged(judge("redis-cli GET del").verdict)).toBe(false);
  });

  test("gsutil rm is a deletion, not a copy", () => {
    expect(judge("gsutil rm -r gs://bucket")).toMatchObject({ verdict: "ask", rule: "bucket-tools-delete" });
    expect(judge("gsutil -m rm gs://b/file")).toMatchObject({ verdict: "ask", rule: "bucket-tools-delete" });
  });
});
