/**
 * Builds verdict.
 *
 *   npx bun build.ts                  dist/verdict for this machine
 *   npx bun build.ts --target <t>     one of linux-x64, linux-arm64, linux-x64-musl, darwin-arm64, darwin-x64, windows-x64
 *   npx bun build.ts --target all     every target above
 *
 * The targets are listed once, in npm/targets.ts; npm/pack.ts packs what this builds.
 *
 * Before compiling it regenerates the artifacts derived from the zod schema
 * (policy/schema.json and the precompiled validator), so they never go stale.
 * Foreign targets are built offline from the `@oven/bun-<target>` runtime
 * package, fetched once through npm into .cache/bun-runtimes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { policyDigest } from "./src/policy/digest.ts";
import { generateArtifacts } from "./src/policy/generate.ts";
import { START_FLAGS } from "./npm/start-flags.ts";
import { TARGETS as RELEASE_TARGETS } from "./npm/targets.ts";

const TARGETS: Record<string, { bun: string; pkg: string; out: string }> = Object.fromEntries(
  RELEASE_TARGETS.map((t) => [t.name, { bun: t.bun, pkg: t.runtime, out: t.out }]),
);

const root = import.meta.dir;
const version: string = (await Bun.file(join(root, "package.json")).json()).version;

function commit(): string {
  const result = spawnSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: root, encoding: "utf8" });
  if (result.status !== 0) return "unknown";
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8" }).stdout.trim();
  return result.stdout.trim() + (dirty ? "-dirty" : "");
}

/**
 * A digest of what is compiled (every file under src/ and policy/, the runtime's version and the build's
 * flags): a resident judge serves only hooks of the very same build (src/resident/address.ts), which a
 * version and a commit do not tell apart while the tree has changes. The same sources give the same digest.
 */
function buildDigest(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${Bun.version}\0${START_FLAGS.join(" ")}\0`);
  for (const top of ["src", "policy"]) {
    const files = (readdirSync(join(root, top), { recursive: true }) as string[])
      .filter((name) => statSync(join(root, top, name)).isFile())
      .sort();
    for (const name of files)
      hasher
        .update(`${top}/${name}\0`)
        .update(readFileSync(join(root, top, name)))
        .update("\0");
  }
  return hasher.digest("hex").slice(0, 16);
}

/** The runtime executable of a foreign target, unpacked from its npm package (offline once cached). */
function runtimeFor(pkg: string): string {
  const dir = join(root, ".cache", "bun-runtimes", `${pkg.replace("/", "+")}@${Bun.version}`);
  const find = () => ["bin/bun", "bin/bun.exe"].map((name) => join(dir, "package", name)).find(existsSync);
  const found = find();
  if (found) return found;
  mkdirSync(dir, { recursive: true });
  const packed = spawnSync("npm", ["pack", `${pkg}@${Bun.version}`, "--silent", "--pack-destination", dir], { encoding: "utf8" });
  if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${Bun.version} failed: ${packed.stderr.trim()}`);
  const tarball = readdirSync(dir).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack ${pkg} produced no tarball`);
  const untar = spawnSync("tar", ["xzf", join(dir, tarball), "-C", dir]);
  if (untar.status !== 0) throw new Error(`cannot unpack ${tarball}`);
  const unpacked = find();
  if (!unpacked) throw new Error(`${pkg} holds no bin/bun`);
  return unpacked;
}

/** What every target is compiled with: the version, the commit, the sources' and the default's digests. */
function defines(): string[] {
  return [
    `--define=VERDICT_VERSION=${JSON.stringify(version)}`,
    `--define=VERDICT_COMMIT=${JSON.stringify(commit())}`,
    `--define=VERDICT_BUILD=${JSON.stringify(buildDigest())}`,
    `--define=VERDICT_POLICY_DIGEST=${JSON.stringify(policyDigest(Bun.YAML.parse(readFileSync(join(root, "policy/default.yaml"), "utf8"))))}`,
  ];
}

function compile(outfile: string, defined: string[], target?: { bun: string; pkg: string }): void {
  const args = [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--sourcemap",
    // ESM split into chunks: each command's code, and what only some commands share, is its own
    // module, loaded by the import() that needs it. A start decodes and links only the chunks its
    // command reaches (the hook: 14 chunks, about 350 KB of the 1.2 MB), where one CommonJS bundle made
    // every start map and link all of it (-3.3 M instructions a hook, docs/latency.md). One unsplit ESM
    // bundle was worse than either: JSC decodes its whole bytecode before the first statement.
    "--format=esm",
    "--splitting",
    ...START_FLAGS,
    ...defined,
    "--outfile",
    outfile,
  ];
  if (target) args.push(`--target=${target.bun}`, `--compile-executable-path=${runtimeFor(target.pkg)}`);
  args.push(join(root, "src/cli/main.ts"));
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`bun build failed for ${outfile}`);
}

const at = process.argv.indexOf("--target");
const wanted = at >= 0 ? process.argv[at + 1] : undefined;
await generateArtifacts(root);
// The embedded default is proven here (every rule compiled, every example held by the engine), so a run
// with no layer of its own pays nothing for it. Imported after generating: it embeds the fresh default.
{
  const { loadPolicy } = await import("./src/policy/load.ts");
  const proven = loadPolicy({ cwd: root, env: {}, only: ["default"], proveDefault: true });
  if (!proven.ok) throw new Error(`policy/default.yaml is not proven:\n${proven.error.message}`);
}
// Each chunk's source map is written beside the executable (the executable embeds its own copy); their
// names carry a content hash, so the previous build's would pile up.
for (const name of existsSync(join(root, "dist")) ? readdirSync(join(root, "dist")) : []) {
  if (name.endsWith(".js.map")) rmSync(join(root, "dist", name));
}
// Once for every target, after the generated sources are written (they are part of the build's digest).
const defined = defines();
if (!wanted) {
  compile(join(root, "dist", "verdict"), defined);
} else {
  const names = wanted === "all" ? Object.keys(TARGETS) : [wanted];
  for (const name of names) {
    const target = TARGETS[name];
    if (!target) {
      console.error(`unknown target ${name}; choose one of: ${Object.keys(TARGETS).join(", ")}, all`);
      process.exit(2);
    }
    compile(join(root, "dist", target.out), defined, target);
    console.log(`built dist/${target.out}`);
  }
}
