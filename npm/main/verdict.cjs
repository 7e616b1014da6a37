#!/usr/bin/env node
// Stands in for the native binary until the package's postinstall replaces this file with it (it does not
// run under `npm install --ignore-scripts`, and on Windows this file stays): runs the binary of this
// machine's target package with the same arguments, standard streams and exit status.
"use strict";
const { spawnSync } = require("child_process");
const { binaryPath } = require("../platform.cjs");

let binary;
try {
  binary = binaryPath();
} catch (error) {
  console.error(`verdict: ${error.message}`);
  process.exit(1);
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`verdict: cannot run ${binary}: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status === null ? 1 : result.status);
