import { baseEnvSchema, envInt } from "@agent-orchestrator/shared";
import { z } from "zod";

const mebibyte = 1024 * 1024;

/** The tool-runner's environment (DESIGN §4). Sizes are bytes. */
export const toolRunnerEnvSchema = baseEnvSchema.extend({
  /** the folder that holds `bmad/`; becomes `{project-root}` */
  BMAD_ROOT: z.string().min(1).default("."),
  /** sessions are written to `<OUTPUT_ROOT>/<session-id>/` */
  OUTPUT_ROOT: z.string().min(1).default("./data/agent-outputs"),
  READ_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte),
  WRITE_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte),
  LIST_MAX_ENTRIES: envInt(1000, 1, 100_000),
  /** calls in flight per process; above it a call is answered BUSY at once */
  TOOL_CONCURRENCY: envInt(64, 1, 10_000),
  /** put before every subject served (`t1.tool.read_file`), to run isolated instances on one NATS; tests use it */
  SUBJECT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?)?$/, "expected subject tokens separated by dots")
    .default(""),
});

/** The tool-runner's parsed configuration. */
export type ToolRunnerConfig = z.infer<typeof toolRunnerEnvSchema>;
