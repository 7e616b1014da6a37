/**
 * The `bun build --compile` flags that decide how the executable starts, in one place: build.ts compiles
 * verdict with them, and the benchmarks build their print-a-line floor with them too, so the floor is the
 * same runtime start.
 *
 * - No autoloading of `.env` or `bunfig.toml`. A compiled Bun executable loads both from its working
 *   directory by default, and the hosts run verdict's hooks in the project's directory: a repository's
 *   `.env` would set verdict's own environment (VERDICT_MODE, the model's address and key), and a
 *   `bunfig.toml` with `preload = ["./x.ts"]` would run the repository's code inside the hook. Looking
 *   for `.env` also read every folder above the working directory at every start.
 * - The JIT's tier-up thresholds raised 100× at start. A hook runs for milliseconds, and compiling code
 *   it runs a few hundred times costs more than it saves (about 2 ms a hook, docs/latency.md); commands
 *   whose work is not bounded restore the normal policy (src/cli/jit.ts).
 */
export const START_FLAGS: readonly string[] = ["--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", "--compile-jit-policy=100"];
