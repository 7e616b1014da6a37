/**
 * The option parser of every verdict command. node:util's parseArgs does the
 * same job, but loading node:util costs about 2.5 ms at every start of the
 * compiled binary (docs/startup.md).
 *
 * Accepts `--name`, `--name=value`, `--name value`, single-letter aliases,
 * and `--` to end the options. Unknown options are errors that name the
 * nearest known one ("did you mean --policy?").
 */
import { nearest } from "../policy/suggest.ts";

/**
 * One option. `multiple`: the option may be repeated, its values are kept in
 * order (a string[]). `variadic` (with `multiple`): the option also takes the
 * words after it up to the next one that starts with `--`
 * (`--request one two`).
 */
export type OptionSpec = Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean; variadic?: boolean }>;

export type Parsed = {
  values: Record<string, string | string[] | boolean | undefined>;
  positionals: string[];
  /** Only when an option is `multiple`: every value of the repeatable options, in the order given. */
  ordered?: Array<{ name: string; value: string }>;
};

export function parseOptions(args: readonly string[], spec: OptionSpec): Parsed | { error: string } {
  const values: Parsed["values"] = {};
  const positionals: string[] = [];
  const repeatable = Object.values(spec).some((option) => option.multiple);
  const ordered: NonNullable<Parsed["ordered"]> = [];
  const byShort = new Map(Object.entries(spec).flatMap(([name, option]) => (option.short ? [[option.short, name] as const] : [])));
  const keep = (name: string, value: string, multiple: boolean | undefined): void => {
    if (!multiple) {
      values[name] = value;
      return;
    }
    values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    ordered.push({ name, value });
  };
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
      keep(name, arg.slice(equals + 1), option.multiple);
      continue;
    }
    if (option.variadic) {
      let taken = 0;
      while (index + 1 < args.length && !args[index + 1]!.startsWith("--")) {
        keep(name, args[++index]!, true);
        taken++;
      }
      if (taken === 0) return { error: `option --${name} needs a value` };
      continue;
    }
    const value = args[index + 1];
    if (value === undefined) return { error: `option --${name} needs a value` };
    keep(name, value, option.multiple);
    index++;
  }
  return repeatable ? { values, positionals, ordered } : { values, positionals };
}

/** `unknown option "--polcy"`, with the nearest known option when one is close. */
function unknownOption(written: string, spec: OptionSpec): string {
  const known = Object.keys(spec).map((name) => `--${name}`);
  const suggestion = written.startsWith("--") ? nearest(written, known) : undefined;
  return `unknown option ${JSON.stringify(written)}${suggestion ? `; did you mean ${suggestion}?` : ""}`;
}
