import { z } from "zod";

/** A text field that may be written as a string or a list of strings (TOML `principles = [ … ]`). */
const Text = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()]))])
  .transform((value) => (Array.isArray(value) ? value.map(String) : String(value)))
  .optional()
  .catch(undefined);

/** A list of instructions or facts: anything other than text is shown as JSON rather than dropped. */
const Lines = z
  .array(z.unknown())
  .transform((values) => values.map((value) => (typeof value === "string" ? value : JSON.stringify(value))))
  .catch([]);

/** A `[[agent.menu]]` entry: a code, a description and one of `skill` or `prompt`. */
export const CustomizedMenuItem = z.object({
  code: z.string().min(1),
  description: z.string().catch(""),
  skill: z.string().optional().catch(undefined),
  prompt: z.string().optional().catch(undefined),
});
export type CustomizedMenuItem = z.infer<typeof CustomizedMenuItem>;

/**
 * The merged `[agent]` table of a 6.5+ skill agent (customize.toml and its team and user layers), as far as the
 * prompt uses it. A field of an unexpected type is left out rather than failing the start: the table is what
 * the user wrote, and BMAD itself tolerates it.
 */
export const AgentCustomization = z.object({
  name: Text,
  title: Text,
  icon: Text,
  role: Text,
  identity: Text,
  communication_style: Text,
  principles: Text,
  activation_steps_prepend: Lines,
  activation_steps_append: Lines,
  /** the items that have a code; an entry without one cannot be chosen and is left out */
  menu: z
    .array(z.unknown())
    .transform((items) => items.flatMap((item) => CustomizedMenuItem.safeParse(item).data ?? []))
    .optional()
    .catch(undefined),
});
export type AgentCustomization = z.infer<typeof AgentCustomization>;
