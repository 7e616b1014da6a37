/**
 * Which program a command runs, as rules name it. A name or a path in a
 * place programs are installed to is known by its basename (/usr/bin/rm is
 * rm); a path anywhere else (/tmp/git, ./git, a home directory outside the
 * tool managers' bin folders) is not trusted to be what its basename says,
 * so it keeps the path as written and only rules naming that path match it.
 */
import { posix } from "node:path";
import type { ExecutedCommand } from "../../shell/index.ts";
import { classifyPath, type PathContext } from "./paths.ts";

const SYSTEM_BIN =
  /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$|^\/usr\/(?:local\/)?libexec\/|^\/opt\/homebrew\/(?:s?bin|opt\/[^/]+\/bin)\/[^/]+$|^\/opt\/local\/s?bin\/[^/]+$|^\/snap\/bin\/[^/]+$|^\/nix\/(?:store\/[^/]+|var\/nix\/profiles\/[^/]+)\/s?bin\/[^/]+$|^\/run\/current-system\/sw\/bin\/[^/]+$|^\/usr\/lib\/jvm\/[^/]+\/bin\/[^/]+$/;

/** Tool managers' bin folders under a home directory. */
const HOME_BIN =
  /^(?:\.local\/bin|\.cargo\/bin|go\/bin|\.bun\/bin|\.deno\/bin|\.volta\/bin|\.pyenv\/shims|\.pyenv\/versions\/[^/]+\/bin|\.rbenv\/shims|\.asdf\/shims|\.nvm\/versions\/node\/[^/]+\/bin|\.nix-profile\/bin|\.npm-global\/bin|\.yarn\/bin|\.rustup\/toolchains\/[^/]+\/bin|\.sdkman\/candidates\/[^/]+\/current\/bin|\.elan\/bin|\.ghcup\/bin|\.foundry\/bin|\.local\/share\/pnpm|Library\/pnpm)\/[^/]+$/;

/** A project's own tool folders: dependencies' binaries and virtual environments. */
const PROJECT_BIN = /(?:^|\/)(?:node_modules\/\.bin|\.venv\/bin|venv\/bin|\.tox\/[^/]+\/bin|vendor\/bin)\/[^/]+$/;

export type Program = {
  /** The name rules match: a basename for a trusted program, else the program as written. */
  name: string;
  /** Why the basename is not trusted, when it is not. */
  untrusted?: string;
};

export function programOf(command: ExecutedCommand, ctx: PathContext): Program {
  const { program } = command;
  if (command.dynamic) return { name: program, untrusted: "the program's name comes from an expansion" };
  if (!program.includes("/")) return { name: program };
  const base = posix.basename(program);
  const cls = classifyPath(program, ctx);
  if (cls === "system") {
    if (SYSTEM_BIN.test(posix.normalize(program))) return { name: base };
    return { name: program, untrusted: `${program} is not in a folder programs are installed to` };
  }
  if (cls === "home-files") {
    const home = ctx.home.endsWith("/") ? ctx.home : `${ctx.home}/`;
    const resolved = program.startsWith("~/") ? program.slice(2) : program.startsWith(home) ? program.slice(home.length) : undefined;
    if (resolved !== undefined && HOME_BIN.test(resolved)) return { name: base };
    return { name: program, untrusted: `${program} is outside the folders programs are installed to` };
  }
  if ((cls === "build" || cls === "repo") && PROJECT_BIN.test(program)) return { name: base };
  if (cls === "temp") return { name: program, untrusted: `${program} runs from a temp folder, so it is not trusted to be ${base}` };
  return { name: program, untrusted: `${program} is not trusted to be ${base}` };
}
