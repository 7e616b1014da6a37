/**
 * verdict resident: the resident judges, one process per kind of hook process, that answer hooks
 * without a start of their own (docs/resident.md).
 *
 *   verdict resident            list the judges running for this user (status)
 *   verdict resident stop       end them all
 *   verdict resident serve      be one (started by a hook, in the background; not for people):
 *                               src/resident/serve.ts
 */
import { existsSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { processFacts, residentAddress, residentDir, runtimeResidentDir } from "../resident/address.ts";
import { askJudge } from "../resident/ask.ts";
import { CliError, usageError } from "./common.ts";

const HELP = `Usage: verdict resident [status|stop]

A hook hands its payload to a resident judge when one runs for the same kind of hook process (the same
verdict build, environment and user), and judges in its own process otherwise; a hook that found none
starts one in the background for the next hook. A judge ends after 15 minutes without a request
(VERDICT_RESIDENT_IDLE), and VERDICT_RESIDENT=off keeps hooks from using or starting one.

  status   list the judges running for this user (the default)
  stop     end them all (a hook starts a new one when it needs it)`;

export async function main(argv: string[]): Promise<number> {
  const [what = "status", ...rest] = argv;
  if (what === "--help" || what === "-h") {
    console.log(HELP);
    return 0;
  }
  if (rest.length > 0) return usageError(`resident takes one word (status, stop); got ${argv.join(" ")}`, HELP);
  if (what === "status") return status(false);
  if (what === "stop") return status(true);
  if (what === "serve") {
    const { serve, CannotServe } = await import("../resident/serve.ts");
    try {
      return await serve();
    } catch (error) {
      if (error instanceof CannotServe) throw new CliError(error.message, { exit: 1 });
      throw error;
    }
  }
  return usageError(`resident: unknown ${JSON.stringify(what)}; use status or stop`, HELP);
}

/** Each judge's socket in the folder, asked for its status (and told to stop). */
async function status(stop: boolean): Promise<number> {
  const dir = residentDir(process.env);
  const dirs = [dir, runtimeResidentDir(process.env)].filter((d): d is string => !!d && existsSync(d));
  const sockets = dirs.flatMap((d) =>
    readdirSync(d)
      .filter((name) => name.endsWith(".sock"))
      .map((name) => join(d, name)),
  );
  const mine = residentAddress(processFacts());
  const lines: string[] = [];
  for (const path of sockets) {
    const frame = await askJudge(path, stop ? "stop" : "status");
    if (frame === "none") {
      // Nobody listens: a judge that was killed. Its socket is only litter.
      try {
        unlinkSync(path);
      } catch {}
      continue;
    }
    if (frame === "silent") {
      lines.push(`not answering: ${path} (busy, or stopped by a signal)`);
      continue;
    }
    const here = "socket" in mine && mine.socket === path ? " (this environment's)" : "";
    lines.push(
      `${stop ? "stopped" : "running"}: pid ${frame.pid}, build ${frame.build}, since ${frame.started}, ${frame.served} answered, ${frame.deferred} handed back, ${frame.meanMs} ms a hook${here}`,
    );
  }
  if (lines.length === 0) console.log(`no resident judge is running (${dir})`);
  else console.log(lines.join("\n"));
  if (!stop && "off" in mine) console.log(`hooks started from this environment do not use one: ${mine.off}`);
  return 0;
}
