// postinstall of the main verdict package: replaces bin/verdict (a Node stand-in) with the native binary of
// this machine's target package, so the `verdict` npm links onto PATH is the binary itself and no Node
// start-up sits in front of every hook (the way esbuild ships). On Windows the stand-in stays (npm's .cmd
// shim runs it). Nothing is fetched: the binary comes from the optional dependency npm already installed.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { binaryPath } = require("./platform.cjs");

function main() {
  let source;
  try {
    source = binaryPath();
  } catch (error) {
    console.error(`verdict: ${error.message}`);
    process.exit(1);
  }
  if (process.platform === "win32") return;
  const target = path.join(__dirname, "bin", "verdict");
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    fs.linkSync(source, temporary);
  } catch {
    fs.copyFileSync(source, temporary);
  }
  fs.chmodSync(temporary, 0o755);
  // The binary must run here before it replaces the stand-in.
  const version = execFileSync(temporary, ["--version"], { encoding: "utf8", timeout: 30000 });
  if (!version.startsWith("verdict ")) throw new Error(`${source} --version printed ${JSON.stringify(version)}`);
  fs.renameSync(temporary, target);
}

main();
