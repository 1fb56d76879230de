import { z } from "zod";

/**
 * `repository` of a project's settings document: how the model's commands meet the project's git repository
 * (docs/commands.md). `network`: whether `run_command`'s sandbox may use the network (off unless set).
 */
export const RepositorySettings = z.strictObject({
  network: z.boolean().optional(),
});
export type RepositorySettings = z.infer<typeof RepositorySettings>;
