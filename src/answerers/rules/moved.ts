/**
 * Paths a line makes stand for other places before a later part uses them:
 * `ln -s ~ build/home && rm -rf build/home/` (a link made on the line leads
 * to the home), `mv local.toml /tmp/ && rm -f /tmp/local.toml` (the file in
 * temp holds data nothing regenerates). The disk cannot tell: the hook runs
 * before the line does. So the probe is overlaid with what the line itself
 * links and moves, and a path is classified by where it really leads (a
 * link's target) or by where its contents came from (a move's source),
 * exactly as a symlink already on disk is.
 *
 * Copies are not recorded: removing a copy loses nothing.
 */
import { posix } from "node:path";
import { parseArgs } from "./args.ts";
import type { Probe, View } from "./match.ts";
import { resolveWord } from "./paths.ts";

/** The options of ln and mv that take a value (the same for both). */
const TAKES_VALUE = new Set(["-t", "--target-directory", "-S", "--suffix"]);

export class LineMoves {
  /** Each place the line made, newest last: `from` (the new path) now stands for `to`. */
  private readonly made: { from: string; to: string; moved: boolean }[] = [];

  constructor(private readonly base: Probe) {}

  /** The probe the rest of the line is judged with: the disk, with the line's own links and moves laid over it. */
  readonly probe: Probe = {
    // A path the line made exists whatever the disk says; any other is looked up.
    exists: (path) => this.lead(path) !== undefined || this.base.exists(path),
    tracked: (path, root) => this.base.tracked(path, root),
    realpath: (path) => {
      const led = this.lead(path);
      const real = this.base.realpath ?? ((p: string) => p);
      return led === undefined ? real(path) : real(led);
    },
    isDirectory: (path) => this.base.isDirectory?.(this.lead(path) ?? path) ?? false,
  };

  /** Where a path leads through the line's links and moves, or undefined when the line made nothing there. */
  private lead(path: string): string | undefined {
    for (let i = this.made.length - 1; i >= 0; i--) {
      const { from, to } = this.made[i] as { from: string; to: string; moved: boolean };
      if (path === from) return to;
      if (path.startsWith(`${from}/`)) return posix.join(to, path.slice(from.length + 1));
    }
    return undefined;
  }

  /**
   * What the line moved into a folder (not onto it): removing `/tmp/keep` after `mv notes.db
   * /tmp/keep/` removes notes.db. Where each such path came from, newest first.
   */
  movedInto(path: string): string[] {
    const prefix = path.endsWith("/") ? path : `${path}/`;
    return this.made
      .filter((m) => m.moved && m.from.startsWith(prefix))
      .map((m) => m.to)
      .reverse();
  }

  /** Records the links (ln -s) and moves (mv) one command makes. */
  record(view: View): void {
    const ln = view.name === "ln" || view.name === "gln";
    const mv = view.name === "mv" || view.name === "gmv";
    if ((!ln && !mv) || view.command.dynamic) return;
    const parsed = parseArgs(view.args, TAKES_VALUE);
    const into = parsed.values.find(([option]) => option === "-t" || option === "--target-directory")?.[1];
    const operands = parsed.operands;
    const sources = into === undefined ? operands.slice(0, -1) : operands;
    const destWord = into ?? operands[operands.length - 1];
    if (destWord === undefined || sources.length === 0) return;
    // ln without -s makes hard links: the same file under another name, which the disk check already sees as a write.
    if (ln && !parsed.letters.has("s") && !parsed.longs.has("--symbolic")) return;
    const dest = resolveWord(destWord, view.ctx);
    if (dest === undefined) return;
    const noTarget = parsed.letters.has("T") || parsed.longs.has("--no-target-directory") || (ln && parsed.letters.has("n"));
    const intoFolder =
      into !== undefined || sources.length > 1 || destWord.endsWith("/") || (!noTarget && this.probe.isDirectory?.(dest) === true);
    for (const word of sources) {
      const base = word.replace(/\/+$/, "").split("/").pop() ?? "";
      const from = intoFolder ? posix.join(dest, base) : dest;
      // A symlink's relative target is read from the link's own folder; a moved path from the working directory.
      const to =
        ln && !word.startsWith("/") && !word.startsWith("~") && !word.startsWith("$")
          ? posix.normalize(posix.join(posix.dirname(from), word))
          : resolveWord(word, view.ctx);
      if (to === undefined || base === "") continue;
      this.made.push({ from, to, moved: mv });
    }
  }
}
