import { baseEnvSchema, envInt } from "@agent-orchestrator/shared";
import { z } from "zod";

const mebibyte = 1024 * 1024;

/** The tool-runner's environment (README "Configuration"). Sizes are bytes. */
export const toolRunnerEnvSchema = baseEnvSchema.extend({
  /** the BMAD project: the folder that holds `_bmad/`, `.bmad-core/`, `bmad/` and the tool folders' skills; becomes `{project-root}` */
  BMAD_ROOT: z.string().min(1).default("."),
  /** sessions are written to `<OUTPUT_ROOT>/<session-id>/` */
  OUTPUT_ROOT: z.string().min(1).default("./data/agent-outputs"),
  READ_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte),
  WRITE_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte),
  LIST_MAX_ENTRIES: envInt(1000, 1, 100_000),
  /** bytes of the files one session may hold (its manifest's sum); a write that adds more is QUOTA_EXCEEDED */
  SESSION_MAX_BYTES: envInt(50 * mebibyte, 1, 64 * 1024 * mebibyte),
  /** files one session may hold; a new file beyond it is QUOTA_EXCEEDED, rewriting an existing one is not */
  SESSION_MAX_FILES: envInt(500, 1, 100_000),
  /** calls in flight per process; above it a call is answered BUSY at once */
  TOOL_CONCURRENCY: envInt(64, 1, 10_000),
  /** put before every subject served (`t1.tool.read_file`), to run isolated instances on one NATS; tests use it */
  SUBJECT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?)?$/, "expected subject tokens separated by dots")
    .default(""),
  /**
   * `run_script` (BMAD's Python scripts in a bubblewrap sandbox): `auto` turns it on when a trivial sandboxed
   * run works at start (else off, with one WARN line saying why), `on` refuses to start without a working
   * sandbox, `off` answers every call SCRIPTS_DISABLED
   */
  SCRIPTS: z.enum(["auto", "on", "off"]).default("auto"),
  /**
   * wall time of one script; the whole sandbox is killed after it (SCRIPT_TIMEOUT). Below the orchestrator's
   * TOOL_TIMEOUT_MS (30 s), so a script at its limit is answered before its caller stops waiting.
   */
  SCRIPT_TIMEOUT_MS: envInt(25_000, 1000, 10 * 60_000),
  /** address space of each process of a script (RLIMIT_AS), in MiB */
  SCRIPT_MEMORY_MB: envInt(512, 64, 16 * 1024),
  /** stdout and stderr of a script are each cut to this many bytes, with a marker */
  SCRIPT_OUTPUT_MAX_BYTES: envInt(64 * 1024, 1024, 512 * 1024),
  /** scripts running at once per process; a few more wait for a slot, beyond that a call is answered BUSY */
  SCRIPT_CONCURRENCY: envInt(4, 1, 256),
});

/** The tool-runner's parsed configuration. */
export type ToolRunnerConfig = z.infer<typeof toolRunnerEnvSchema>;
