// Which target package holds this machine's verdict binary, and where it is. Shared by install.cjs (the
// postinstall that puts the native binary on PATH) and the bin/verdict stand-in. Plain CommonJS: it runs on
// any Node that npm runs on.
"use strict";
const path = require("path");
const targets = require("./targets.json");

function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report && process.report.getReport();
    return !(report && report.header && report.header.glibcVersionRuntime);
  } catch {
    return false;
  }
}

/** The target for this machine, or undefined. */
function hostTarget() {
  const musl = isMusl();
  return targets.find((t) => t.os === process.platform && t.cpu === process.arch && (t.os !== "linux" || (t.libc === "musl") === musl));
}

/** The native binary's path, or throws with what to do. */
function binaryPath() {
  const target = hostTarget();
  if (!target)
    throw new Error(
      `verdict has no build for ${process.platform}-${process.arch}${isMusl() ? " (musl)" : ""}; build it from source (see the verdict README)`,
    );
  try {
    return require.resolve(`${target.package}/bin/${target.exe}`);
  } catch {
    throw new Error(
      `the package ${target.package}, which holds verdict for this machine, is not installed: npm may have left it out (--omit=optional, --no-optional). Install again with optional dependencies, or use the install script (see the verdict README).`,
    );
  }
}

module.exports = { hostTarget, binaryPath, isMusl, path };
