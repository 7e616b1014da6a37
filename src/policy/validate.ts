/**
 * Validation with the precompiled ajv validators, and ajv's errors turned
 * into problems a person can act on: what was expected, what was found, the
 * nearest valid key for a misspelt one.
 */
import schemaText from "../../policy/schema.json" with { type: "text" };
import type { PolicyProblem } from "./errors.ts";
import { nearest } from "./suggest.ts";

/** The part of an ajv error this module reads. */
type AjvError = {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
};

type SchemaNode = { description?: string; properties?: Record<string, unknown>; pattern?: string };

/** The error with the schema node it came from and the value it was about, found only on this error path. */
type Explained = AjvError & { parentSchema?: SchemaNode; data?: unknown };

let schema: unknown;
function schemaAt(pointer: string): SchemaNode | undefined {
  // A text import: Bun gives the file's text, whatever TypeScript infers for .json.
  schema ??= JSON.parse(schemaText as unknown as string);
  let node: unknown = schema;
  for (const part of segmentsOf(pointer.replace(/^#/, "")))
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
  return node && typeof node === "object" ? (node as SchemaNode) : undefined;
}

function dataAt(root: unknown, segments: string[]): unknown {
  let node = root;
  for (const part of segments) node = node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/** A problem without its file and position yet: the loader adds those. */
type SchemaProblem = Omit<PolicyProblem, "file"> & { segments: (string | number)[]; atKey: boolean };

/** The precompiled validator, loaded on first use: a run with no policy layer (most hooks) never needs it. */
let validateLayer: Validator | undefined;

export function checkLayer(data: unknown): SchemaProblem[] {
  validateLayer ??= (require("./generated/validators.js") as typeof import("./generated/validators.js")).validateLayer as Validator;
  const validate = validateLayer;
  if (validate(data)) return [];
  const errors = (validate.errors ?? []).map(
    (error): Explained => ({
      ...error,
      parentSchema: schemaAt(error.schemaPath.split("/").slice(0, -1).join("/")),
      data: dataAt(data, segmentsOf(error.instancePath)),
    }),
  );
  // Unions (a string or a list) report every branch; keep the most specific.
  const problems = errors.filter((error) => error.keyword !== "anyOf" && error.keyword !== "oneOf").map(describe);
  return dedupe(problems.length > 0 ? problems : errors.map(describe));
}

function dedupe(problems: SchemaProblem[]): SchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function segmentsOf(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(error: Explained): SchemaProblem {
  const segments: (string | number)[] = segmentsOf(error.instancePath);
  const description = error.parentSchema?.description;
  const base = { segments, path: segments.join("."), atKey: false };
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(error.params.additionalProperty);
      const allowed = Object.keys(error.parentSchema?.properties ?? {});
      const suggestion = nearest(key, allowed);
      return {
        ...base,
        segments: [...segments, key],
        path: [...segments, key].join("."),
        atKey: true,
        message: `unknown key ${JSON.stringify(key)}`,
        expected: allowed.length > 0 ? `one of ${allowed.join(", ")}` : undefined,
        hint: suggestion ? `did you mean ${JSON.stringify(suggestion)}?` : "remove it, or check the policy schema (verdict policy schema)",
      };
    }
    case "required": {
      const key = String(error.params.missingProperty);
      return {
        ...base,
        message: `missing key ${JSON.stringify(key)}`,
        hint: `add ${key}: (see policy/default.yaml for its meaning and an example)`,
      };
    }
    case "type": {
      const isDuration = /\(ms\|s\|m\|h\|d\)/.test(error.parentSchema?.pattern ?? "");
      const isMemory = /MB\|GB/.test(error.parentSchema?.pattern ?? "");
      const unitHint =
        typeof error.data === "number" && isDuration
          ? `write it with a unit: ${error.data}ms, or ${error.data / 1000}s`
          : typeof error.data === "number" && isMemory
            ? `write it with a unit: ${error.data}MB`
            : description;
      return {
        ...base,
        message: "wrong type",
        expected: isDuration ? "a duration with a unit" : isMemory ? "a memory size with a unit" : String(error.params.type),
        found: shown(error.data),
        hint: unitHint,
      };
    }
    case "enum": {
      const allowed = (error.params.allowedValues as unknown[]) ?? [];
      const suggestion = typeof error.data === "string" ? nearest(error.data, allowed.map(String)) : undefined;
      return {
        ...base,
        message: "not one of the allowed values",
        expected: `one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}`,
        found: shown(error.data),
        hint: suggestion ? `did you mean ${JSON.stringify(suggestion)}?` : description,
      };
    }
    case "const":
      return { ...base, message: "wrong value", expected: JSON.stringify(error.params.allowedValue), found: shown(error.data) };
    case "pattern":
      return {
        ...base,
        message: "wrong format",
        expected: description ?? `text matching ${String(error.params.pattern)}`,
        found: shown(error.data),
        hint: /duration/i.test(description ?? "") ? "write a number and a unit, such as 1500ms, 2s or 5m" : undefined,
      };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return {
        ...base,
        message: "out of range",
        expected: `${error.keyword === "minimum" ? "at least" : error.keyword === "maximum" ? "at most" : error.keyword === "exclusiveMinimum" ? "more than" : "less than"} ${String(error.params.limit)}`,
        found: shown(error.data),
        hint: description,
      };
    case "minItems":
    case "maxItems":
    case "minLength":
      return { ...base, message: error.message ?? "wrong size", found: shown(error.data), hint: description };
    default:
      return { ...base, message: error.message ?? error.keyword, found: shown(error.data) };
  }
}

/**
 * Entries that a layer added to a map of definitions (a new act or ending)
 * must be complete: each has every key the embedded default's entries have.
 * Everything else in the effective policy comes whole from a validated layer.
 */
export function checkComplete(effective: Record<string, unknown>, defaults: Record<string, unknown>): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const section of ["acts", "endings"]) {
    const template = Object.values((defaults[section] ?? {}) as Record<string, Record<string, unknown>>)[0];
    if (!template) continue;
    for (const [name, entry] of Object.entries((effective[section] ?? {}) as Record<string, Record<string, unknown>>)) {
      for (const key of Object.keys(template)) {
        if (entry[key] === undefined) {
          problems.push({
            segments: [section, name],
            path: `${section}.${name}`,
            atKey: false,
            message: `missing key ${JSON.stringify(key)}`,
            hint: `add ${key}: (see the other ${section} in policy/default.yaml)`,
          });
        }
      }
    }
  }
  return problems;
}
