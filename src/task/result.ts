/**
 * What a tool message says back to the model. A call that ran is reported in
 * the shell-harness envelope Formal AI reads by its exit code (`Command:`,
 * `Directory:`, `Output:`, `Error:`, `Exit Code:`); text on stderr next to
 * exit 0 is still a success there. A call that did not run is a JSON status
 * (`refused`, `cancelled`), which Formal AI reads as an expected stop rather
 * than a failure: it carries no `error` or `stderr` field on purpose.
 */
import type { Receipt } from "./runner.ts";

export function formatReceipt(command: string, cwd: string, receipt: Receipt): string {
  const errorParts: string[] = [];
  if (receipt.spawnError) errorParts.push(receipt.spawnError);
  if (receipt.timedOut) errorParts.push("the call passed its time limit and was stopped");
  if (receipt.cancelled) errorParts.push("the call was cancelled");
  const stderr = trimEnd(receipt.stderr.text);
  if (stderr) errorParts.push(stderr);
  const lines = [
    `Command: ${command}`,
    `Directory: ${cwd}`,
    `Output: ${trimEnd(receipt.stdout.text) || "(empty)"}`,
    `Error: ${errorParts.join("\n") || "(none)"}`,
    `Exit Code: ${receipt.status}`,
  ];
  if (receipt.signal) lines.push(`Signal: ${receipt.signal}`);
  return lines.join("\n");
}

type NotRun = { status: "refused" | "cancelled"; reason: string; message: string; command: string };

export function formatNotRun(notRun: NotRun): string {
  return JSON.stringify({ status: notRun.status, reason: notRun.reason, message: notRun.message, command: notRun.command });
}

function trimEnd(text: string): string {
  return text.replace(/\s+$/, "");
}
