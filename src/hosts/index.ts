/** The hook adapters: one small adapter per host, and the shared flow that judges and answers. */
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { gemini } from "./gemini.ts";
import type { Adapter, HostName } from "./types.ts";

export const ADAPTERS: Record<HostName, Adapter> = { claude, codex, gemini, cursor };

export * from "./types.ts";
export { runHook, fallbackReply, sniffKind, type HookDeps, type HookOutcome } from "./hook.ts";
