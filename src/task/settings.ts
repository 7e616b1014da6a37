/**
 * A run's settings: the policy's `task:` section, then VERDICT_TASK_*
 * variables, then command-line flags, each overriding the one before. Each
 * value remembers where it came from, for the evidence.
 */
import type { TaskSettings } from "../policy/schema-task.ts";
import { DURATION_PATTERN, MEMORY_PATTERN, bytes, durationMs } from "../core/units.ts";
import type { EffectsMode } from "./effects.ts";
import type { TaskBounds } from "./state.ts";

type Mirror = "auto" | "on" | "off";

type RunSettings = {
  endpoint: string;
  model: string;
  keyEnv: string;
  mirror: Mirror;
  bounds: TaskBounds;
  /** Where each setting came from: `policy`, `env VERDICT_TASK_…` or `flag --…`. */
  from: Record<string, string>;
};

type Key = keyof Omit<TaskSettings, "env">;

/** Each setting: its policy key, its variable, its flag, and how to read a text value. */
const FIELDS: { key: Key; env: string; flag: string; read: (text: string) => string | number | undefined; expect: string }[] = [
  {
    key: "endpoint",
    env: "VERDICT_TASK_ENDPOINT",
    flag: "--endpoint",
    read: (t) => (/^https?:\/\/[^\s/]+(\/\S*)?$/.test(t) ? t : undefined),
    expect: "an http:// or https:// URL",
  },
  { key: "model", env: "VERDICT_TASK_MODEL", flag: "--model", read: (t) => (t ? t : undefined), expect: "a model name" },
  {
    key: "key_env",
    env: "VERDICT_TASK_KEY_ENV",
    flag: "--key-env",
    read: (t) => (t === "" || /^[A-Za-z_][A-Za-z0-9_]*$/.test(t) ? t : undefined),
    expect: "a variable name, or empty for no key",
  },
  {
    key: "max_tool_calls",
    env: "VERDICT_TASK_MAX_TOOL_CALLS",
    flag: "--max-tool-calls",
    read: integer(1, 10000),
    expect: "a whole number from 1 to 10000",
  },
  { key: "run_within", env: "VERDICT_TASK_RUN_WITHIN", flag: "--run-within", read: duration, expect: "a duration such as 90s or 10m" },
  { key: "call_within", env: "VERDICT_TASK_CALL_WITHIN", flag: "--call-within", read: duration, expect: "a duration such as 30s or 2m" },
  {
    key: "request_within",
    env: "VERDICT_TASK_REQUEST_WITHIN",
    flag: "--request-within",
    read: duration,
    expect: "a duration such as 30s or 1m",
  },
  { key: "grace", env: "VERDICT_TASK_GRACE", flag: "--grace", read: duration, expect: "a duration such as 500ms or 2s" },
  {
    key: "max_output",
    env: "VERDICT_TASK_MAX_OUTPUT",
    flag: "--max-output",
    read: (t) => (new RegExp(MEMORY_PATTERN).test(t) ? t : undefined),
    expect: "a size such as 64KB or 1MB",
  },
  {
    key: "max_fingerprint_entries",
    env: "VERDICT_TASK_MAX_FINGERPRINT_ENTRIES",
    flag: "--max-fingerprint-entries",
    read: integer(1, Number.MAX_SAFE_INTEGER),
    expect: "a whole number of at least 1",
  },
  {
    key: "effects",
    env: "VERDICT_TASK_EFFECTS",
    flag: "--effects",
    read: (t) => (["read-only", "workspace", "any"].includes(t) ? t : undefined),
    expect: "read-only, workspace or any",
  },
  {
    key: "mirror",
    env: "VERDICT_TASK_MIRROR",
    flag: "--mirror",
    read: (t) => (["auto", "on", "off"].includes(t) ? t : undefined),
    expect: "auto, on or off",
  },
];

export const SETTING_FLAGS = new Set(FIELDS.map((field) => field.flag));

function integer(min: number, max: number) {
  return (text: string) => {
    if (!/^[0-9]+$/.test(text)) return undefined;
    const value = Number(text);
    return value >= min && value <= max ? value : undefined;
  };
}

function duration(text: string): string | undefined {
  return new RegExp(DURATION_PATTERN).test(text) ? text : undefined;
}

type SettingsResult = { ok: true; settings: RunSettings } | { ok: false; error: string };

export function resolveSettings(task: TaskSettings, env: Record<string, string | undefined>, flags: Map<string, string>): SettingsResult {
  const values: Record<string, unknown> = { ...task };
  const from: Record<string, string> = Object.fromEntries(FIELDS.map((field) => [field.key, "policy"]));
  for (const field of FIELDS) {
    const fromEnv = env[field.env];
    if (fromEnv !== undefined && fromEnv !== "") {
      const value = field.read(fromEnv);
      if (value === undefined) return { ok: false, error: `${field.env}=${JSON.stringify(fromEnv)} is not ${field.expect}` };
      values[field.key] = value;
      from[field.key] = `env ${field.env}`;
    }
    const fromFlag = flags.get(field.flag);
    if (fromFlag !== undefined) {
      const value = field.read(fromFlag);
      if (value === undefined) return { ok: false, error: `${field.flag} ${JSON.stringify(fromFlag)} is not ${field.expect}` };
      values[field.key] = value;
      from[field.key] = `flag ${field.flag}`;
    }
  }
  const settled = values as TaskSettings;
  return {
    ok: true,
    settings: {
      endpoint: settled.endpoint,
      model: settled.model,
      keyEnv: settled.key_env,
      mirror: settled.mirror,
      bounds: {
        maxToolCalls: settled.max_tool_calls,
        runWithinMs: durationMs(settled.run_within),
        callWithinMs: durationMs(settled.call_within),
        requestWithinMs: durationMs(settled.request_within),
        graceMs: durationMs(settled.grace),
        maxOutputBytes: bytes(settled.max_output),
        maxFingerprintEntries: settled.max_fingerprint_entries,
        effects: settled.effects as EffectsMode,
      },
      from,
    },
  };
}
