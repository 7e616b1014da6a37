/** Small zod pieces shared by every section of the policy schema. */
import { z } from "zod";
import { DURATION_PATTERN, MEMORY_PATTERN } from "../core/units.ts";

export const Duration = z
  .string()
  .regex(new RegExp(DURATION_PATTERN), { message: "a duration with a unit, such as 1500ms, 2s, 5m or 1h" })
  .describe("A duration with its unit: 1500ms, 2s, 5m, 1h, 7d.");

export const Memory = z
  .string()
  .regex(new RegExp(MEMORY_PATTERN), { message: "a memory size with a unit, such as 500MB or 3GB" })
  .describe("A memory size with its unit: 0MB, 500MB, 3GB.");

export const Probability = z.number().min(0).max(1);

/** A label a model answers with: short, lowercase, one token where possible. */
export const Label = z.string().regex(/^[a-z][a-z0-9-]*$/, { message: "a lowercase label such as delete or stopped-early" });

/** An http(s) URL. A plain pattern, so the JSON Schema needs no format plugin. */
export const HttpUrl = z.string().regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: "an http:// or https:// URL" });
