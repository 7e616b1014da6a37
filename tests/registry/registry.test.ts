// verdict as a team gets it: the npm packages built from this tree (npm/pack.ts, the host's target only, to
// keep CI short) are published to a real registry on 127.0.0.1 (Verdaccio, offline), installed with
// `npm i -g` into an empty prefix with an empty HOME, and the installed `verdict` is the native binary
// itself (no Node in front of a hook). Then `verdict install claude` with it, and the real Claude Code runs
// the e2e scenario against the fake model: a denied command does not run, an allowed one does.
// The release archives and install.sh (for machines without npm) are checked from the same build.
// Skipped with VERDICT_E2E=0 (as every real-host test) or VERDICT_REGISTRY=0.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ensureHost, type InstalledHost } from "../e2e/lib/install.ts";
import { markerRules } from "../e2e/lib/markers.ts";
import { describe as summary, hostSetup, makeSandbox, runHost, type Sandbox } from "../e2e/lib/harness.ts";
import { hostTarget, MAIN_PACKAGE } from "../../npm/targets.ts";
import { ensureVerdaccio, startRegistry, type Registry } from "./verdaccio.ts";

const ROOT = resolve(import.meta.dir, "../..");
const VERDICT = join(ROOT, "dist", "verdict");
const skip = process.env.VERDICT_E2E === "0" || process.env.VERDICT_REGISTRY === "0";

const POLICY = markerRules("allowed", "denied");

function npm(args: string[], opts: { cwd: string; home: string; userconfig: string }): { code: number | null; out: string } {
  const node = Bun.which("node")!;
  const r = spawnSync(
    "npm",
    [...args, "--userconfig", opts.userconfig, "--cache", join(opts.home, ".npm-cache"), "--no-audit", "--no-fund", "--no-update-notifier"],
    {
      cwd: opts.cwd,
      encoding: "utf8",
      env: { PATH: `${dirname(node)}:/usr/local/bin:/usr/bin:/bin`, HOME: opts.home, TMPDIR: tmpdir() },
      timeout: 5 * 60_000,
    },
  );
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

function magic(file: string): string {
  const fd = openSync(file, "r");
  const buffer = Buffer.alloc(4);
  readSync(fd, buffer, 0, 4, 0);
  closeSync(fd);
  return buffer.toString("latin1");
}

(skip ? describe.skip : describe)("installed from a registry", () => {
  let registry: Registry | undefined;
  let claude: InstalledHost;
  const work = mkdtempSync(join(tmpdir(), "verdict-registry-"));
  const prefix = join(work, "prefix");
  const boxes: Sandbox[] = [];

  beforeAll(async () => {
    if (!existsSync(VERDICT)) throw new Error(`${VERDICT} is missing: build it first (npx bun build.ts)`);
    const [main, host] = await Promise.all([ensureVerdaccio(), ensureHost("claude")]);
    claude = host;
    const target = hostTarget();
    const packed = spawnSync(
      process.execPath,
      [join(ROOT, "npm", "pack.ts"), "--targets", target.name, "--binary", `${target.name}=${VERDICT}`, "--out", join(work, "release")],
      { encoding: "utf8" },
    );
    if (packed.status !== 0) throw new Error(`npm/pack.ts failed:\n${packed.stdout}\n${packed.stderr}`);
    registry = await startRegistry(main, join(work, "registry"));
    const publisher = join(work, "publisher");
    mkdirSync(publisher);
    const npmrc = join(publisher, ".npmrc");
    writeFileSync(npmrc, `//${registry.url.slice("http://".length)}:_authToken=${registry.token}\n`);
    for (const dir of [target.name, "verdict"]) {
      const published = npm(["publish", "--registry", registry.url, "--access", "public"], {
        cwd: join(work, "release", "npm", dir),
        home: publisher,
        userconfig: npmrc,
      });
      if (published.code !== 0) throw new Error(`npm publish ${dir} failed:\n${published.out}\n${registry.log()}`);
    }
  }, 20 * 60_000);

  afterAll(() => {
    registry?.stop();
    boxes.forEach((b) => b.cleanup());
    spawnSync("rm", ["-rf", work]);
  });

  test(
    "npm i -g into an empty prefix puts the native binary itself on PATH",
    () => {
      const home = join(work, "empty-home");
      mkdirSync(home);
      const userconfig = join(home, ".npmrc");
      writeFileSync(userconfig, "");
      const installed = npm(["install", "-g", MAIN_PACKAGE, "--prefix", prefix, "--registry", registry!.url], {
        cwd: home,
        home,
        userconfig,
      });
      expect(installed.code, installed.out).toBe(0);
      const bin = join(prefix, "bin", "verdict");
      // what PATH finds is the compiled binary, not a Node script
      expect(magic(realpathSync(bin)), realpathSync(bin)).toBe("\x7fELF");
      const version = spawnSync(bin, ["--version"], { encoding: "utf8" });
      expect(version.stdout).toStartWith("verdict ");
      expect(version.stdout).toContain(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    },
    5 * 60_000,
  );

  test(
    "verdict install claude with the installed binary, and the real Claude Code: a denied command does not run, an allowed one does",
    async () => {
      const bin = join(prefix, "bin");
      expect(existsSync(join(bin, "verdict"))).toBe(true);
      for (const [marker, ran] of [
        ["e2e-denied-marker", false],
        ["e2e-allowed-marker", true],
      ] as const) {
        const sb = makeSandbox("claude-registry");
        boxes.push(sb);
        const setup = hostSetup(claude, sb);
        setup.env.PATH = `${bin}:${setup.env.PATH}`;
        setup.files[join(sb.home, ".config", "verdict", "policy.yaml")] = POLICY;
        const o = await runHost(sb, setup, [{ command: `touch ${join(sb.project, marker)}` }, { text: "done" }], {
          timeoutMs: 90_000,
          pre: [["verdict", "install", "claude"]],
        });
        expect(o.pre[0]?.exitCode, summary(o)).toBe(0);
        expect(o.pre[0]?.stdout, summary(o)).toContain(`${join(bin, "verdict")} hook claude`);
        expect(existsSync(join(sb.project, marker)), summary(o)).toBe(ran);
        if (!ran)
          expect(
            o.followUps.some((f) => f.includes("E2E_DENIED")),
            summary(o),
          ).toBe(true);
      }
    },
    5 * 60_000,
  );

  test(
    "install.sh installs the release archive after checking SHA256SUMS, refuses a tampered one, and removes it again",
    () => {
      const release = join(work, "release");
      const target = hostTarget();
      const home = join(work, "script-home");
      mkdirSync(home);
      const env = { PATH: "/usr/bin:/bin", HOME: home };
      const script = join(release, "install.sh");
      const ok = spawnSync("sh", [script, "--from", release], { encoding: "utf8", env });
      expect(ok.status, ok.stderr).toBe(0);
      const installed = join(home, ".local", "bin", "verdict");
      expect(spawnSync(installed, ["--version"], { encoding: "utf8" }).stdout).toStartWith("verdict ");
      expect(ok.stdout).toContain("is not on PATH");
      // a tampered archive: its sum no longer matches, nothing is installed
      const tampered = join(work, "tampered");
      mkdirSync(tampered);
      const archive = readdirSync(release).find((name) => name.endsWith(`-${target.name}.tar.gz`))!;
      copyFileSync(join(release, "SHA256SUMS"), join(tampered, "SHA256SUMS"));
      writeFileSync(join(tampered, archive), Buffer.concat([readFileSync(join(release, archive)), Buffer.from("x")]));
      const other = join(work, "other-prefix");
      const bad = spawnSync("sh", [script, "--from", tampered, "--prefix", other], { encoding: "utf8", env });
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain("does not match SHA256SUMS");
      expect(existsSync(join(other, "bin", "verdict"))).toBe(false);
      const removed = spawnSync("sh", [script, "--uninstall"], { encoding: "utf8", env });
      expect(removed.status).toBe(0);
      expect(existsSync(installed)).toBe(false);
    },
    2 * 60_000,
  );
});
