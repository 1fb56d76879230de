import { z } from "zod";
import { FileAuthor } from "./file-entry.js";

/** BMAD's four phases, in the order the method runs them. */
export const MethodPhase = z.enum(["analysis", "planning", "solutioning", "implementation"]);
export type MethodPhase = z.infer<typeof MethodPhase>;

/** A document of the method the project already has (a product brief, a PRD, …), who wrote it and when. */
export const ProjectArtifact = z.object({
  kind: z.string(),
  label: z.string(),
  phase: MethodPhase,
  path: z.string(),
  author: FileAuthor,
  updated_at: z.string(),
});
export type ProjectArtifact = z.infer<typeof ProjectArtifact>;

/** The workflow the method recommends next, and the agent that runs it. */
export const NextStep = z.object({
  phase: MethodPhase,
  skill: z.string(),
  name: z.string(),
  code: z.string(),
  description: z.string(),
  agent_id: z.string().optional(),
  /** why this one, in a sentence for the page */
  reason: z.string(),
});
export type NextStep = z.infer<typeof NextStep>;

/** `GET /api/projects/:id/overview`: the method at a glance (docs/api.md). */
export const ProjectOverview = z.object({
  phases: z.array(z.object({ phase: MethodPhase, label: z.string(), artifacts: z.array(ProjectArtifact), done: z.boolean() })),
  current: MethodPhase,
  next: NextStep.nullable(),
  /** the install's help catalogue the next step comes from, or null when the release ships none */
  catalogue: z.string().nullable(),
});
export type ProjectOverview = z.infer<typeof ProjectOverview>;
