/**
 * The option parser of verdict's commands. node:util's parseArgs does the
 * same job, but loading node:util costs about 2.5 ms at every start of the
 * compiled binary (docs/startup.md).
 *
 * Accepts `--name`, `--name=value`, `--name value`, single-letter aliases,
 * and `--` to end the options. Unknown options are errors that name the
 * nearest known one ("did you mean --policy?").
 */
import { nearest } from "../policy/suggest.ts";

export type OptionSpec = Record<string, { type: "boolean" | "string"; short?: string }>;

export type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

export function parseOptions(args: readonly string[], spec: OptionSpec): Parsed | { error: string } {
  const values: Record<string, string | boolean | undefined> = {};
  const positionals: string[] = [];
  const byShort = new Map(Object.entries(spec).flatMap(([name, option]) => (option.short ? [[option.short, name] as const] : [])));
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "--") {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const raw = arg.startsWith("--") ? arg.slice(2, equals === -1 ? undefined : equals) : arg.slice(1);
    const name = arg.startsWith("--") ? raw : byShort.get(raw);
    const option = name === undefined ? undefined : spec[name];
    if (name === undefined || option === undefined) return { error: unknownOption(arg.split("=")[0] as string, spec) };
    if (option.type === "boolean") {
      if (equals !== -1) return { error: `option --${name} takes no value` };
      values[name] = true;
      continue;
    }
    if (equals !== -1) {
      values[name] = arg.slice(equals + 1);
      continue;
    }
    const value = args[index + 1];
    if (value === undefined) return { error: `option --${name} needs a value` };
    values[name] = value;
    index++;
  }
  return { values, positionals };
}

/** `unknown option "--polcy"`, with the nearest known option when one is close. */
function unknownOption(written: string, spec: OptionSpec): string {
  const known = Object.keys(spec).map((name) => `--${name}`);
  const suggestion = written.startsWith("--") ? nearest(written, known) : undefined;
  return `unknown option ${JSON.stringify(written)}${suggestion ? `; did you mean ${suggestion}?` : ""}`;
}
