/**
 * The layer cache (src/policy/layer-cache.ts): the hook's loads give what the loader gives, a cached
 * entry is used only while every file it depends on is unchanged, and a corrupt, foreign or
 * loosely-permitted entry is ignored and rebuilt.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_FILE as LOADER_DEFAULT_FILE, loadPolicy, type LoadResult } from "../../src/policy/load.ts";
import { DEFAULT_FILE, lastOutcome, loadPolicyCached, policyCacheDir } from "../../src/policy/layer-cache.ts";
import { DEFAULT_DIGEST, DEFAULT_POLICY } from "../../src/policy/generated/default-policy.ts";
import { judgeCommand } from "../../src/judge/judge.ts";
import { ruleIndexFor } from "../../src/answerers/rules/compile.ts";

const USER_LAYER = `judge:
  thresholds:
    ask_at_undo: 1.4
rules:
  - id: house-deploy
    match: { program: deployer, subcommand: prod }
    act: remote
    undo: 3
    decision: deny
    reason: Production deploys go through the pipeline.
  - id: git-read-only
    match: { program: git, subcommand: [status] }
    act: read
    undo: 0
    reason: Replaced by the user.
`;

const REPO_LAYER = `judge:
  answerer: rules
rules:
  - id: repo-deny
    match: { program: terraform, subcommand: apply }
    act: remote
    undo: 3
    decision: deny
    reason: Applies go through CI.
hosts:
  on_error:
    claude: deny
`;

function place() {
  const dir = mkdtempSync(join(tmpdir(), "verdict-layer-cache-"));
  const home = join(dir, "home");
  const repo = join(dir, "repo");
  mkdirSync(join(home, ".config", "verdict"), { recursive: true });
  mkdirSync(join(repo, ".git"), { recursive: true });
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".state"),
  };
  return { dir, home, repo, env, user: join(home, ".config", "verdict", "policy.yaml") };
}

const same = (a: LoadResult, b: LoadResult) => {
  if (!a.ok || !b.ok) throw new Error(`not loaded: ${!a.ok ? a.error.message : ""} ${!b.ok ? b.error.message : ""}`);
  expect(JSON.stringify(a.loaded.policy)).toBe(JSON.stringify(b.loaded.policy));
  expect(a.loaded.digest).toBe(b.loaded.digest);
  expect(a.loaded.layers).toEqual(b.loaded.layers);
  expect(a.loaded.warnings).toEqual(b.loaded.warnings);
  expect(a.loaded.repositoryRoot).toBe(b.loaded.repositoryRoot);
};

const entries = (env: Record<string, string>) => readdirSync(policyCacheDir(env)).filter((name) => name.endsWith(".json"));

test("names the embedded default as the loader does", () => {
  expect(DEFAULT_FILE).toBe(LOADER_DEFAULT_FILE);
});

test("with no layer, the embedded default as built, without a cache entry", () => {
  const { repo, env } = place();
  const result = loadPolicyCached({ cwd: repo, env });
  expect(lastOutcome).toBe("none");
  if (!result.ok) throw result.error;
  expect(result.loaded.policy).toBe(DEFAULT_POLICY);
  expect(result.loaded.digest).toBe(DEFAULT_DIGEST);
  same(result, loadPolicy({ cwd: repo, env }));
});

describe("a user layer", () => {
  test("is loaded afresh once, then read from the cache, the same as the loader's result", () => {
    const { repo, env, user } = place();
    writeFileSync(user, USER_LAYER);
    const fresh = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    const [entry] = entries(env);
    expect(entry).toBeDefined();
    expect(statSync(join(policyCacheDir(env), entry!)).mode & 0o777).toBe(0o600);
    const cached = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
    same(cached, fresh);
    same(cached, loadPolicy({ cwd: repo, env }));
  });

  test("judges through the cache as through the loader", async () => {
    const { repo, env, user } = place();
    writeFileSync(user, USER_LAYER);
    loadPolicyCached({ cwd: repo, env });
    const cached = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
    const fresh = loadPolicy({ cwd: repo, env });
    if (!cached.ok || !fresh.ok) throw new Error("not loaded");
    for (const command of ["deployer prod", "git status", "git push --force", "rm -rf /", "ls -la", "frobnicate"]) {
      const input = { command, cwd: repo, rulesOnly: true, log: false, env };
      const a = await judgeCommand(input, cached.loaded);
      const b = await judgeCommand(input, fresh.loaded);
      expect([command, a.verdict, a.line, a.rule?.id, a.policyDigest]).toEqual([command, b.verdict, b.line, b.rule?.id, b.policyDigest]);
    }
  });

  test("is used by size and mtime, and by digest when those changed but the content did not", () => {
    const { repo, env, user } = place();
    writeFileSync(user, USER_LAYER);
    const old = new Date(Date.now() - 60_000);
    utimesSync(user, old, old);
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
    const newer = new Date(Date.now() - 30_000);
    utimesSync(user, newer, newer);
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
  });

  test("is loaded afresh when its content changes, at the same size", () => {
    const { repo, env, user } = place();
    writeFileSync(user, USER_LAYER);
    const old = new Date(Date.now() - 60_000);
    utimesSync(user, old, old);
    loadPolicyCached({ cwd: repo, env });
    const changed = USER_LAYER.replace("ask_at_undo: 1.4", "ask_at_undo: 1.3");
    expect(changed.length).toBe(USER_LAYER.length);
    writeFileSync(user, changed);
    // The same size, a new mtime: the digest tells.
    const result = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    if (!result.ok) throw result.error;
    expect(result.loaded.policy.judge.thresholds.ask_at_undo).toBe(1.3);
    same(result, loadPolicy({ cwd: repo, env }));
  });

  test("a layer that fails to load is reported as the loader reports it, and not cached", () => {
    const { repo, env, user } = place();
    writeFileSync(user, "rules: [ { id: x } ]\n");
    const cached = loadPolicyCached({ cwd: repo, env });
    const fresh = loadPolicy({ cwd: repo, env });
    expect(cached.ok).toBe(false);
    expect(!cached.ok && cached.error.message).toBe(!fresh.ok && fresh.error.message);
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
  });
});

describe("an entry that cannot be trusted", () => {
  const prepare = () => {
    const where = place();
    writeFileSync(where.user, USER_LAYER);
    loadPolicyCached({ cwd: where.repo, env: where.env });
    return { ...where, entry: join(policyCacheDir(where.env), entries(where.env)[0]!) };
  };

  test("a corrupt entry is ignored and rewritten", () => {
    const { repo, env, entry } = prepare();
    const text = readFileSync(entry, "utf8");
    writeFileSync(entry, text.replace("Production deploys", "Production deplows"));
    const result = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    same(result, loadPolicy({ cwd: repo, env }));
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
    writeFileSync(entry, "{ not json");
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
  });

  test("an entry of another build or format is ignored", () => {
    const { repo, env, entry } = prepare();
    const parsed = JSON.parse(readFileSync(entry, "utf8"));
    writeFileSync(entry, JSON.stringify({ ...parsed, build: "0.0.1+other" }));
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
  });

  test("an entry others could have written is ignored", () => {
    const { repo, env, entry } = prepare();
    chmodSync(entry, 0o666);
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    expect(statSync(entry).mode & 0o777).toBe(0o600);
  });
});

describe("a repository layer", () => {
  test("its trust is read again when the trust store changes", async () => {
    const { repo, env } = place();
    mkdirSync(join(repo, ".verdict"));
    const file = join(repo, ".verdict", "policy.yaml");
    writeFileSync(file, REPO_LAYER);
    const untrusted = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
    if (!untrusted.ok) throw untrusted.error;
    expect(untrusted.loaded.layers.find((layer) => layer.name === "repo")?.trusted).toBe(false);
    expect(untrusted.loaded.warnings.length).toBeGreaterThan(0);
    const { trust } = await import("../../src/policy/trust.ts");
    const chain = untrusted.loaded.layers.find((layer) => layer.name === "repo")!;
    trust(env, chain.file, chain.digest);
    const trusted = loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("miss");
    if (!trusted.ok) throw trusted.error;
    expect(trusted.loaded.layers.find((layer) => layer.name === "repo")?.trusted).toBe(true);
    expect(trusted.loaded.policy.hosts.on_error.claude).toBe("deny");
    expect(untrusted.loaded.policy.judge.answerer).toBe("auto");
    expect(trusted.loaded.policy.judge.answerer).toBe("rules");
    same(trusted, loadPolicy({ cwd: repo, env }));
    loadPolicyCached({ cwd: repo, env });
    expect(lastOutcome).toBe("hit");
  });
});

describe("whether the hook's watchdog is needed (the unbounded callback)", () => {
  const loadCounting = (options: { cwd: string; env: Record<string, string> }) => {
    let calls = 0;
    const result = loadPolicyCached(options, () => calls++);
    return { result, calls, outcome: lastOutcome };
  };

  test("not with no layer; before a fresh load; not on a hit whose patterns are linear", () => {
    const { repo, env, user } = place();
    expect(loadCounting({ cwd: repo, env })).toMatchObject({ calls: 0, outcome: "none" });
    writeFileSync(user, USER_LAYER.replace("subcommand: prod", "args_any: ['*prod*', 'deploy-*']"));
    expect(loadCounting({ cwd: repo, env })).toMatchObject({ calls: 1, outcome: "miss" });
    expect(loadCounting({ cwd: repo, env })).toMatchObject({ calls: 0, outcome: "hit" });
  });

  test("on every hit whose layer repeats inside a regular expression or a many-star glob", () => {
    for (const pattern of ["'/^(ab|cd)+x$/'", "'*a*b*c'"]) {
      const { repo, env, user } = place();
      writeFileSync(user, USER_LAYER.replace("subcommand: prod", `args_any: [${pattern}]`));
      expect(loadCounting({ cwd: repo, env })).toMatchObject({ calls: 1, outcome: "miss" });
      expect(loadCounting({ cwd: repo, env })).toMatchObject({ calls: 1, outcome: "hit" });
    }
  });

  test("an entry of the previous format (no bounded flag) is not used", () => {
    const { repo, env, user } = place();
    writeFileSync(user, USER_LAYER);
    loadPolicyCached({ cwd: repo, env });
    const [entry] = entries(env);
    const path = join(policyCacheDir(env), entry!);
    const stored = JSON.parse(readFileSync(path, "utf8"));
    const payload = JSON.parse(stored.payload);
    delete payload.bounded;
    stored.payload = JSON.stringify(payload);
    stored.sum = new Bun.CryptoHasher("sha256").update(stored.payload).digest("hex");
    writeFileSync(path, JSON.stringify(stored), { mode: 0o600 });
    expect(loadCounting({ cwd: repo, env })).toMatchObject({ calls: 1, outcome: "miss" });
  });
});

test("an untrusted layer's added rules stay tightening-only when read from the cache", async () => {
  const { repo, env } = place();
  mkdirSync(join(repo, ".verdict"), { recursive: true });
  writeFileSync(
    join(repo, ".verdict", "policy.yaml"),
    [
      "rules:",
      "  - id: ask-uv",
      "    match: { program: uv }",
      "    act: build",
      "    undo: 0",
      "    decision: ask",
      "    reason: asked here.",
      "",
    ].join("\n"),
  );
  loadPolicyCached({ cwd: repo, env });
  expect(lastOutcome).toBe("miss");
  const cached = loadPolicyCached({ cwd: repo, env });
  expect(lastOutcome).toBe("hit");
  const fresh = loadPolicy({ cwd: repo, env });
  if (!cached.ok || !fresh.ok) throw new Error("not loaded");
  expect(ruleIndexFor(cached.loaded.policy).tightening).toBe(1);
  expect(ruleIndexFor(cached.loaded.policy).tightening).toBe(ruleIndexFor(fresh.loaded.policy).tightening);
  for (const command of ["uv run rm -rf ~", "uv run pytest -q", "uv --version", "ls"]) {
    const input = { command, cwd: repo, rulesOnly: true, log: false, env };
    const a = await judgeCommand(input, cached.loaded);
    const b = await judgeCommand(input, fresh.loaded);
    expect([command, a.verdict, a.line, a.rule?.id]).toEqual([command, b.verdict, b.line, b.rule?.id]);
  }
});
