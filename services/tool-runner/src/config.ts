import { baseEnvSchema, envInt, runLimitCeilingMs, scriptTimeoutDefaultMs } from "@agent-orchestrator/shared/runtime";
import { z } from "zod";
import { conversionQueueDefaults } from "./convert/index.js";

const mebibyte = 1024 * 1024;

/** The tool-runner's environment (docs/configuration.md "tool-runner"). Sizes are bytes. */
export const toolRunnerEnvSchema = baseEnvSchema.extend({
  BMAD_ROOT: z
    .string()
    .min(1)
    .default(".")
    .describe(
      "the BMAD project (`{project-root}`): the folder where BMAD's installer ran, holding `_bmad/`, `.bmad-core/` or `bmad/` and the tool folders' skills, or this repository for its sample bundle; only its installed BMAD trees and skill folders are visible, read-only",
    ),
  OUTPUT_ROOT: z
    .string()
    .min(1)
    .default("./data/agent-outputs")
    .describe(
      "where sessions were written before projects (`<OUTPUT_ROOT>/<session-id>/`): when the folder exists, its chats' files are moved into the file store once at start (docs/projects.md \"Moving an existing deployment\"); nothing is written there any more",
    ),
  JS_REPLICAS: envInt(1, 1, 5).describe(
    "copies of the file store's `file_index`, `file_revisions` and `tool_calls` buckets and the `file_contents` Object Store, at creation; 3 on a three-server cluster",
  ),
  READ_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte).describe("largest file `read_file` reads"),
  WRITE_MAX_BYTES: envInt(mebibyte, 1, 64 * mebibyte).describe("largest file `save_output` and `edit_file` write"),
  LIST_MAX_ENTRIES: envInt(1000, 1, 100_000).describe(
    "entries one `list_files` call returns; a longer listing is cut and marked `truncated`",
  ),
  SESSION_MAX_BYTES: envInt(50 * mebibyte, 1, 64 * 1024 * mebibyte).describe(
    "bytes of the files one chat's scratch space (`{session-folder}`) may hold; a write that adds more is QUOTA_EXCEEDED",
  ),
  SESSION_MAX_FILES: envInt(500, 1, 100_000).describe(
    "files one chat's scratch space may hold; a new file beyond it is QUOTA_EXCEEDED, rewriting an existing one is allowed",
  ),
  PROJECT_MAX_BYTES: envInt(1024 * mebibyte, 1, 1024 * 1024 * mebibyte).describe(
    "bytes of the latest revisions of one project's files; a write that adds more is QUOTA_EXCEEDED (docs/file-tools.md \"Quotas\")",
  ),
  PROJECT_MAX_FILES: envInt(2000, 1, 20_000).describe(
    "files one project may hold (its index is one KV value, so this also bounds that value's size, which must fit the server's max_payload)",
  ),
  SOURCE_MAX_BYTES: envInt(256 * mebibyte, 1, 64 * 1024 * mebibyte).describe(
    "bytes one code snapshot or import archive may inflate to in all; a larger one is refused whole (ARCHIVE_REFUSED), nothing stored (docs/uploads.md)",
  ),
  SOURCE_MAX_FILES: envInt(20_000, 1, 1_000_000).describe(
    "entries (files and folders) one code snapshot or import archive may hold; past it the archive is refused whole",
  ),
  ARCHIVE_ENTRY_MAX_BYTES: envInt(16 * mebibyte, 1, 1024 * mebibyte).describe(
    "bytes one file of a code snapshot or import archive may inflate to; a larger one refuses the archive (each file is stored from memory)",
  ),
  ARCHIVE_MAX_RATIO: envInt(200, 2, 100_000).describe(
    "how many times its compressed size a file of an archive over 1 MiB (and a tar.gz as a whole) may inflate to; past it the archive is refused as a bomb",
  ),
  CONVERT_MAX_BYTES: envInt(32 * mebibyte, 1, 1024 * mebibyte).describe(
    "largest PDF, DOCX or HTML upload converted to Markdown; a larger one is stored with the reason it was not converted",
  ),
  CONVERT_OUTPUT_MAX_BYTES: envInt(mebibyte, 1024, 64 * mebibyte).describe(
    "largest Markdown form of a document; a longer one is cut there with a note. Keep it at most READ_MAX_BYTES, the largest file the model can read",
  ),
  CONVERT_TIMEOUT_MS: envInt(60_000, 100, 10 * 60_000).describe(
    "wall time of one document's conversion, in a worker thread that is stopped after it; the document is then stored with the reason",
  ),
  CONVERT_HEAP_MB: envInt(512, 64, 16 * 1024).describe("MiB of heap the conversion worker may use; past it the conversion fails and the document is stored unconverted"),
  CONVERT_QUEUE_MAX: envInt(conversionQueueDefaults.maxWaiting, 0, 1000).describe(
    "documents waiting for their conversion in one tool-runner, all users together (one converts at a time, users take turns); past it a document is stored unconverted with the reason `conversion queue full`. At the default CONVERT_TIMEOUT_MS the last of three waiting still ends within the gateway's default UPLOAD_TIMEOUT_MS",
  ),
  CONVERT_QUEUE_PER_USER: envInt(conversionQueueDefaults.perUser, 1, 1000).describe(
    "documents one user may have converting or waiting in one tool-runner; past it their next is stored unconverted with the reason `conversion queue full`",
  ),
  FILE_CACHE_MB: envInt(64, 0, 16 * 1024).describe(
    "MiB of file contents one tool-runner keeps in memory by sha256 (never stale: a new revision has another sha256)",
  ),
  TOOL_CONCURRENCY: envInt(64, 1, 10_000).describe("tool calls in flight per tool-runner process; above it a call is answered BUSY at once"),
  REPOSITORY_CACHE_DIR: z
    .string()
    .default("")
    .describe(
      "where a tool-runner keeps its cache of projects' repositories (their packs, and checkouts for commands), a folder of its own made in it at start and removed at stop; empty: the system's temporary folder. Nothing there is durable (docs/repositories.md)",
    ),
  REPOSITORY_MAX_BYTES: envInt(2048 * mebibyte, mebibyte, 1024 * 1024 * mebibyte).describe(
    "a repository's objects as a bundle or clone brings them, and a working tree's files in all; past it an attach is REPOSITORY_REFUSED and a change QUOTA_EXCEEDED",
  ),
  REPOSITORY_MAX_FILES: envInt(100_000, 1, 10_000_000).describe("files of one working tree (and of the default branch an attach brings)"),
  REPOSITORY_MAX_REFS: envInt(1000, 1, 100_000).describe("branches and tags of one repository; a bundle or remote with more is refused"),
  REPOSITORY_PERSIST_MAX_BYTES: envInt(256 * mebibyte, mebibyte, 64 * 1024 * mebibyte).describe(
    "new git objects one command or file write may add (compressed); past it nothing of it is kept (QUOTA_EXCEEDED)",
  ),
  REPOSITORY_LEASE_MS: envInt(60_000, 5_000, 10 * 60_000).describe(
    "how long a command's hold on its working tree lasts without renewal (renewed every third of it while the command runs); a replica that died frees it after this",
  ),
  REPOSITORY_CHECKOUTS: envInt(8, 1, 1000).describe(
    "working trees one tool-runner keeps checked out on disk for commands; the least recently used beyond it are removed (never one a command is running in)",
  ),
  REPOSITORY_CACHE_MAX_BYTES: envInt(16 * 1024 * mebibyte, 64 * mebibyte, 64 * 1024 * 1024 * mebibyte).describe(
    "disk one tool-runner's cache of repositories may take (every project's packs and checkouts); past it the least recently used are removed, never a checkout a command runs in nor a project's packs used in the last minute, and made again from JetStream when next needed (docs/repositories.md \"A tool-runner's cache\")",
  ),
  REPOSITORY_CLONE_TIMEOUT_MS: envInt(10 * 60_000, 1000, 60 * 60_000).describe("wall time of one clone from a remote, or of one push of a branch to it"),
  REPOSITORY_REMOTE_HOSTS: z
    .string()
    .default("")
    .transform((text) => text.split(",").map((host) => host.trim().toLowerCase()).filter((host) => host !== ""))
    .describe("hosts a repository may be cloned from, separated by commas (`github.com,gitlab.example.com`); empty: any host over https"),
  REPOSITORY_ALLOW_HTTP: z
    .enum(["true", "false"])
    .default("false")
    .transform((text) => text === "true")
    .describe("`true` lets a clone use plain `http://` (a remote on a private network); the credential then travels unencrypted"),
  SUBJECT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?)?$/, "expected subject tokens separated by dots")
    .default("")
    .describe(
      "put before every subject served (`t1.tool.read_file`) and every bucket name, so isolated instances can share one NATS server; the tests use it",
    ),
  SCRIPTS: z
    .enum(["auto", "on", "off"])
    .default("auto")
    .describe(
      "`run_script` (BMAD's Python scripts in a bubblewrap sandbox): `auto` turns it on when a trivial sandboxed run works at start (else off, with one warning saying why), `on` refuses to start without a working sandbox, `off` answers every call SCRIPTS_DISABLED",
    ),
  SCRIPT_TIMEOUT_MS: envInt(scriptTimeoutDefaultMs, 1000, runLimitCeilingMs).describe(
    "wall time of one script; the whole sandbox is killed after it (SCRIPT_TIMEOUT). The orchestrator reads it too and waits this plus its TOOL_TIMEOUT_MS for a script: give both services the same value",
  ),
  SCRIPT_MEMORY_MB: envInt(512, 64, 16 * 1024).describe(
    "MiB of memory of one script's sandbox: its processes together where cgroups are available (the bounds in force are logged at start), else each process's address space (RLIMIT_AS)",
  ),
  SCRIPT_PROCESSES: envInt(64, 4, 4096).describe("processes (and threads) of one script's sandbox together; a fork past it fails"),
  SCRIPT_DISK_MB: envInt(64, 1, 4096).describe(
    "MiB one script may write into each writable place of its sandbox (a memory file system of this size above what it starts with); past it the run keeps nothing",
  ),
  SCRIPT_CONCURRENCY_PER_USER: envInt(2, 1, 256).describe(
    "scripts one user may have running or waiting in one tool-runner at once; past it the next is refused (BUSY)",
  ),
  SCRIPT_UID_BASE: envInt(64_100, 1000, 2_000_000_000).describe(
    "when the tool-runner runs as root, each slot's sandbox runs as the unprivileged host user SCRIPT_UID_BASE + slot (up to SCRIPT_UID_BASE + SCRIPT_CONCURRENCY - 1), never as root; nothing else on the host may use these uids",
  ),
  SCRIPT_OUTPUT_MAX_BYTES: envInt(64 * 1024, 1024, 512 * 1024).describe(
    "stdout and stderr of a script are each cut to this many bytes (head and tail kept, with a marker)",
  ),
  SCRIPT_CONCURRENCY: envInt(4, 1, 256).describe(
    "scripts one tool-runner runs at once; four times as many wait for a slot, beyond that a call is answered BUSY",
  ),
  COMMANDS: z
    .enum(["auto", "on", "off"])
    .default("auto")
    .describe(
      "`run_command` (the model's shell commands in a project's working tree, in a bubblewrap sandbox; docs/commands.md): `auto` turns it on when a sandboxed git commit works at start (else off, with one warning saying why), `on` refuses to start without a working sandbox, `off` answers every call COMMANDS_DISABLED",
    ),
  COMMAND_TIMEOUT_MS: envInt(scriptTimeoutDefaultMs, 1000, runLimitCeilingMs).describe(
    "wall time of a command that names no timeout_ms, cut to COMMAND_TIMEOUT_MAX_MS; the whole sandbox is killed after it (COMMAND_TIMEOUT)",
  ),
  COMMAND_TIMEOUT_MAX_MS: envInt(scriptTimeoutDefaultMs, 1000, runLimitCeilingMs).describe(
    "the longest timeout_ms a command may ask for (a longer one is cut to it). The orchestrator reads it too and waits a command's own timeout, at most this, plus its TOOL_TIMEOUT_MS (docs/commands.md): give both services the same value",
  ),
  COMMAND_MEMORY_MB: envInt(2048, 64, 64 * 1024).describe(
    "MiB of memory of one command's sandbox, its processes together, where cgroups are available (past it the kernel kills a process, and the result names the limit); without cgroups, each process's address space (RLIMIT_AS)",
  ),
  COMMAND_PROCESSES: envInt(256, 8, 16_384).describe(
    "processes and threads of one command's sandbox together (a cgroup's pids.max; without cgroups RLIMIT_NPROC of the sandbox's user); the sandbox is stopped when it runs into it",
  ),
  COMMAND_FILE_MB: envInt(1024, 1, 1024 * 1024).describe("the largest file a command may write, in MiB (RLIMIT_FSIZE)"),
  COMMAND_DISK_MB: envInt(2048, 16, 1024 * 1024).describe(
    "MiB one command may write to disk in all, counted by the kernel's I/O accounting of its cgroup (the sandbox is stopped past it; without cgroups only COMMAND_FILE_MB holds), and the size of its private /tmp",
  ),
  COMMAND_OUTPUT_MAX_BYTES: envInt(64 * 1024, 1024, 512 * 1024).describe(
    "stdout and stderr of a command are each cut to this many bytes (head and tail kept, with a marker; the result says truncated)",
  ),
  COMMAND_CONCURRENCY: envInt(2, 1, 64).describe(
    "commands one tool-runner runs at once; four times as many wait for a slot, beyond that a call is answered BUSY",
  ),
  COMMAND_CONCURRENCY_PER_USER: envInt(1, 1, 64).describe(
    "commands one user may have running or waiting in one tool-runner at once; past it the next is refused (BUSY)",
  ),
  COMMAND_UID_BASE: envInt(64_400, 1000, 2_000_000_000).describe(
    "when the tool-runner runs as root, each slot's command sandbox runs as the unprivileged host user COMMAND_UID_BASE + slot, never as root (the working tree is bound for it as an idmapped mount); nothing else on the host may use these uids, nor may they meet SCRIPT_UID_BASE's",
  ),
});

/** The tool-runner's parsed configuration. */
export type ToolRunnerConfig = z.infer<typeof toolRunnerEnvSchema>;
