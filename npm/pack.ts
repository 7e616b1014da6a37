/**
 * Packs verdict for release, from binaries build.ts made:
 *
 *   bun npm/pack.ts [--targets all|host|NAME,...] [--binary NAME=PATH]... [--out DIR] [--npm-only]
 *
 * into DIR (default dist/release):
 *   npm/<target>/    one npm package per target (@verdict-cli/<target>), carrying that target's binary,
 *                    with os / cpu / libc so npm installs only the one for the machine
 *   npm/verdict/     the main package (@verdict-cli/verdict): every target package as an optional
 *                    dependency, and a postinstall that puts the native binary itself where npm links
 *                    `verdict` onto PATH (install.cjs)
 *   verdict-<version>-<target>.tar.gz   one archive per target, holding the binary `verdict`
 *   SHA256SUMS       the archives' SHA-256 sums, as sha256sum prints them
 *   install.sh       the install script for machines without npm (verifies SHA256SUMS)
 *
 * A target's binary is dist/<out> from `bun build.ts --target NAME` (built here when missing); the host's
 * may be given as dist/verdict (`--binary linux-x64=dist/verdict`), which is the same build.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { hostTarget, MAIN_PACKAGE, packageName, TARGETS, type Target } from "./targets.ts";

const root = resolve(import.meta.dir, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; license: string; description: string };
const version = pkg.version;

function option(name: string): string[] {
  const out: string[] = [];
  for (let i = 2; i < process.argv.length; i++) {
    const arg = process.argv[i]!;
    if (arg === name && process.argv[i + 1]) out.push(process.argv[++i]!);
    else if (arg.startsWith(`${name}=`)) out.push(arg.slice(name.length + 1));
  }
  return out;
}

function selected(): Target[] {
  const wanted = option("--targets")[0] ?? "all";
  if (wanted === "all") return TARGETS;
  if (wanted === "host") return [hostTarget()];
  return wanted.split(",").map((name) => {
    const target = TARGETS.find((t) => t.name === name);
    if (!target) throw new Error(`unknown target ${name}; choose from ${TARGETS.map((t) => t.name).join(", ")}, host, all`);
    return target;
  });
}

function binaryOf(target: Target, given: Map<string, string>): string {
  const explicit = given.get(target.name);
  if (explicit) return resolve(explicit);
  const built = join(root, "dist", target.out);
  if (!existsSync(built)) {
    const run = spawnSync(process.execPath, [join(root, "build.ts"), "--target", target.name], { cwd: root, stdio: "inherit" });
    if (run.status !== 0) throw new Error(`bun build.ts --target ${target.name} failed`);
  }
  return built;
}

function run(argv: string[], cwd: string): void {
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) throw new Error(`${argv.join(" ")} failed (${result.status})`);
}

const README = (title: string) => `# ${title}

verdict judges an AI coding assistant's shell commands and turn endings as a hook of Claude Code, Codex
CLI, Gemini CLI and Cursor. See the project's README for what it does and how to configure it.

    npm install -g ${MAIN_PACKAGE}
    verdict install claude      # or codex, gemini, cursor
    verdict doctor
`;

export function pack(targets: Target[], given: Map<string, string>, out: string, archives = true): void {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, "npm"), { recursive: true });
  const sums: string[] = [];
  for (const target of targets) {
    const binary = binaryOf(target, given);
    // the npm package of this target
    const dir = join(out, "npm", target.name);
    mkdirSync(join(dir, "bin"), { recursive: true });
    copyFileSync(binary, join(dir, "bin", target.exe));
    chmodSync(join(dir, "bin", target.exe), 0o755);
    const manifest: Record<string, unknown> = {
      name: packageName(target),
      version,
      description: `verdict's binary for ${target.name}; install ${MAIN_PACKAGE}, which picks it.`,
      license: pkg.license,
      os: [target.os],
      cpu: [target.cpu],
      ...(target.libc ? { libc: [target.libc] } : {}),
      files: [`bin/${target.exe}`],
      preferUnplugged: true,
    };
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(dir, "README.md"), README(packageName(target)));
    if (!archives) continue;
    // the release archive of this target
    const stage = join(out, ".stage", target.name);
    mkdirSync(stage, { recursive: true });
    copyFileSync(binary, join(stage, target.exe));
    chmodSync(join(stage, target.exe), 0o755);
    const archive = `verdict-${version}-${target.name}.tar.gz`;
    run(["tar", "-czf", join(out, archive), "-C", stage, target.exe], root);
    const sum = new Bun.CryptoHasher("sha256").update(readFileSync(join(out, archive))).digest("hex");
    sums.push(`${sum}  ${archive}`);
  }
  if (archives) {
    rmSync(join(out, ".stage"), { recursive: true, force: true });
    writeFileSync(join(out, "SHA256SUMS"), `${sums.join("\n")}\n`);
    copyFileSync(join(root, "install.sh"), join(out, "install.sh"));
    chmodSync(join(out, "install.sh"), 0o755);
  }

  // the main package: every target as an optional dependency (npm installs the one matching os/cpu/libc)
  const main = join(out, "npm", "verdict");
  mkdirSync(join(main, "bin"), { recursive: true });
  const templates = join(root, "npm", "main");
  copyFileSync(join(templates, "install.cjs"), join(main, "install.cjs"));
  copyFileSync(join(templates, "platform.cjs"), join(main, "platform.cjs"));
  copyFileSync(join(templates, "verdict.cjs"), join(main, "bin", "verdict"));
  chmodSync(join(main, "bin", "verdict"), 0o755);
  const table = TARGETS.map((t) => ({ package: packageName(t), os: t.os, cpu: t.cpu, ...(t.libc ? { libc: t.libc } : {}), exe: t.exe }));
  writeFileSync(join(main, "targets.json"), `${JSON.stringify(table, null, 2)}\n`);
  const manifest = {
    name: MAIN_PACKAGE,
    version,
    description: pkg.description,
    license: pkg.license,
    bin: { verdict: "bin/verdict" },
    scripts: { postinstall: "node install.cjs" },
    optionalDependencies: Object.fromEntries(TARGETS.map((t) => [packageName(t), version])),
    files: ["bin/verdict", "install.cjs", "platform.cjs", "targets.json"],
  };
  writeFileSync(join(main, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(main, "README.md"), README(MAIN_PACKAGE));
}

if (import.meta.main) {
  const given = new Map(
    option("--binary").map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) throw new Error(`--binary wants NAME=PATH (got ${pair})`);
      return [pair.slice(0, eq), pair.slice(eq + 1)] as [string, string];
    }),
  );
  const out = resolve(option("--out")[0] ?? join(root, "dist", "release"));
  const targets = selected();
  pack(targets, given, out, !process.argv.includes("--npm-only"));
  console.log(`packed ${targets.map((t) => t.name).join(", ")} into ${out}`);
}
