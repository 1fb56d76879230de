import { z } from "zod";
import { ErrorReply } from "./error-code.js";

/**
 * One entry of the install's help catalogue as the registry serves it (shared/src/bmad/help-catalogue.ts reads
 * it): a workflow or skill of the method, with the agent whose menu offers it when one does.
 */
export const HelpCatalogueEntry = z.object({
  module: z.string(),
  skill: z.string(),
  workflow: z.string().optional(),
  name: z.string(),
  code: z.string(),
  description: z.string(),
  phase: z.string(),
  required: z.boolean(),
  after: z.array(z.string()),
  outputLocation: z.string(),
  outputs: z.string(),
  agent: z.string().optional(),
  sequence: z.number().optional(),
  /** the id of the agent whose menu runs it (`bmm/analyst`), when one does */
  agent_id: z.string().optional(),
});
export type HelpCatalogueEntry = z.infer<typeof HelpCatalogueEntry>;

/** gateway → registry on `registry.help.get`: the install's help catalogue (empty when the release ships none). */
export const HelpCatalogueRequest = z.object({});
export const HelpCatalogueReply = z.union([z.object({ success: z.literal(true), entries: z.array(HelpCatalogueEntry), source: z.string().nullable() }), ErrorReply]);
export type HelpCatalogueReply = z.infer<typeof HelpCatalogueReply>;
