import { baseEnvSchema, envInt, scriptTimeoutDefaultMs } from "@agent-orchestrator/shared";
import { z } from "zod";

const mebibyte = 1024 * 1024;

/** The tool-runner's environment (README "Configuration"). Sizes are bytes. */
export const toolRunnerEnvSchema = baseEnvSchema.extend({
  /** the BMAD project: the folder that holds `_bmad/`, `.bmad-core/`, `bmad/` and the tool folders' skills; becomes `{project-root}` */
  BMAD_ROOT: z.string().min(1).default("."),
  /**
   * where sessions were written before projects (`<OUTPUT_ROOT>/<session-id>/`): when the folder exists, its
   * chats' files are moved into the store once at start (docs/projects.md "Moving an existing deployment")
   */
  OUTPUT_ROOT: z.string().min(1).default("./data/agent-outputs"),
  /** copies of each bucket and object store of files in a NATS cluster (1, 3 or 5) */
  JS_REPLICAS: envInt(1, 1, 5),
  READ_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte),
  WRITE_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte),
  LIST_MAX_ENTRIES: envInt(1000, 1, 100_000),
  /** bytes of the files one chat's scratch space (`{session-folder}`) may hold; a write that adds more is QUOTA_EXCEEDED */
  SESSION_MAX_BYTES: envInt(50 * mebibyte, 1, 64 * 1024 * mebibyte),
  /** files one chat's scratch space may hold; a new file beyond it is QUOTA_EXCEEDED, rewriting an existing one is not */
  SESSION_MAX_FILES: envInt(500, 1, 100_000),
  /** bytes of the files one project may hold (latest revisions); a write that adds more is QUOTA_EXCEEDED */
  PROJECT_MAX_BYTES: envInt(200 * mebibyte, 1, 1024 * 1024 * mebibyte),
  /** files one project may hold (its index is one KV value, so this also bounds that value's size) */
  PROJECT_MAX_FILES: envInt(2000, 1, 20_000),
  /** file contents a tool-runner keeps in memory by sha256, in MiB (content-addressed: never stale) */
  FILE_CACHE_MB: envInt(64, 0, 16 * 1024),
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
   * wall time of one script; the whole sandbox is killed after it (SCRIPT_TIMEOUT). Its default is below the
   * orchestrator's default TOOL_TIMEOUT_MS (shared's nats-wait-budgets.ts), so a script at its limit is
   * answered before its caller stops waiting.
   */
  SCRIPT_TIMEOUT_MS: envInt(scriptTimeoutDefaultMs, 1000, 10 * 60_000),
  /**
   * memory of one script's whole sandbox, in MiB: its processes together where cgroups are available (the
   * bounds in force are logged at start), else each process's address space (RLIMIT_AS)
   */
  SCRIPT_MEMORY_MB: envInt(512, 64, 16 * 1024),
  /** processes (and threads) of one script's sandbox together; a fork past it fails */
  SCRIPT_PROCESSES: envInt(64, 4, 4096),
  /**
   * bytes one script may write, in MiB: each writable place of its sandbox (its session folder, BMAD's scratch
   * folders) is a memory file system of this size above what it starts with, so no depth or width gets round it
   */
  SCRIPT_DISK_MB: envInt(64, 1, 4096),
  /** scripts one user may have running or waiting in one tool-runner at once; past it their next is refused (BUSY) */
  SCRIPT_CONCURRENCY_PER_USER: envInt(2, 1, 256),
  /**
   * when the tool-runner runs as root, script sandboxes run as the unprivileged host users SCRIPT_UID_BASE …
   * SCRIPT_UID_BASE + SCRIPT_CONCURRENCY - 1, one per slot, never as root; nothing else on the host may use them
   */
  SCRIPT_UID_BASE: envInt(64_100, 1000, 2_000_000_000),
  /** stdout and stderr of a script are each cut to this many bytes, with a marker */
  SCRIPT_OUTPUT_MAX_BYTES: envInt(64 * 1024, 1024, 512 * 1024),
  /** scripts running at once per process; a few more wait for a slot, beyond that a call is answered BUSY */
  SCRIPT_CONCURRENCY: envInt(4, 1, 256),
});

/** The tool-runner's parsed configuration. */
export type ToolRunnerConfig = z.infer<typeof toolRunnerEnvSchema>;
