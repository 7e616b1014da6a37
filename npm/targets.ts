/**
 * The release targets (the six build.ts makes) and how npm and the install script name them. One place:
 * build.ts compiles them, npm/pack.ts packs them, install.sh picks one by `uname`.
 */
export type Target = {
  /** build.ts --target name, and the suffix of the npm package and the release archive */
  name: string;
  /** bun --target */
  bun: string;
  /** the @oven/bun-* runtime package a foreign target is compiled against */
  runtime: string;
  /** what build.ts writes in dist/ */
  out: string;
  /** npm's os / cpu / libc fields, so npm installs only the matching package */
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  libc?: "glibc" | "musl";
  exe: string;
};

export const SCOPE = "@verdict-cli";
export const MAIN_PACKAGE = `${SCOPE}/verdict`;

export const TARGETS: Target[] = [
  {
    name: "linux-x64",
    bun: "bun-linux-x64",
    runtime: "@oven/bun-linux-x64",
    out: "verdict-linux-x64",
    os: "linux",
    cpu: "x64",
    libc: "glibc",
    exe: "verdict",
  },
  {
    name: "linux-arm64",
    bun: "bun-linux-arm64",
    runtime: "@oven/bun-linux-aarch64",
    out: "verdict-linux-arm64",
    os: "linux",
    cpu: "arm64",
    libc: "glibc",
    exe: "verdict",
  },
  {
    name: "linux-x64-musl",
    bun: "bun-linux-x64-musl",
    runtime: "@oven/bun-linux-x64-musl",
    out: "verdict-linux-x64-musl",
    os: "linux",
    cpu: "x64",
    libc: "musl",
    exe: "verdict",
  },
  {
    name: "darwin-arm64",
    bun: "bun-darwin-arm64",
    runtime: "@oven/bun-darwin-aarch64",
    out: "verdict-darwin-arm64",
    os: "darwin",
    cpu: "arm64",
    exe: "verdict",
  },
  {
    name: "darwin-x64",
    bun: "bun-darwin-x64",
    runtime: "@oven/bun-darwin-x64",
    out: "verdict-darwin-x64",
    os: "darwin",
    cpu: "x64",
    exe: "verdict",
  },
  {
    name: "windows-x64",
    bun: "bun-windows-x64",
    runtime: "@oven/bun-windows-x64",
    out: "verdict-windows-x64.exe",
    os: "win32",
    cpu: "x64",
    exe: "verdict.exe",
  },
];

export function packageName(target: Target): string {
  return `${SCOPE}/${target.name}`;
}

/** This machine's target (for building and testing only the host's package). */
export function hostTarget(): Target {
  const os = process.platform === "win32" ? "win32" : process.platform;
  const cpu = process.arch;
  let musl = false;
  if (os === "linux") {
    const report = (process as unknown as { report?: { getReport(): { header?: { glibcVersionRuntime?: string } } } }).report?.getReport();
    musl = !report?.header?.glibcVersionRuntime;
  }
  const found = TARGETS.find((t) => t.os === os && t.cpu === cpu && (t.os !== "linux" || (t.libc === "musl") === musl));
  if (!found) throw new Error(`no release target for ${os}-${cpu}${musl ? "-musl" : ""}`);
  return found;
}
