import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ToolRunnerConfig } from "../config.js";
import type { Sandbox } from "../sandbox/index.js";
import type { FileStore } from "../store/file-store.js";
import { detectSandboxCgroups, type SandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { checkScriptSandbox, type ScriptSandboxCheck } from "./script-sandbox-check.js";
import { ScriptRunner } from "./script-runner.js";
import { refusedSyscalls, seccompArchitecture, seccompFilter } from "../os-sandbox/seccomp-filter.js";

/** The SCRIPT_* settings a runner is made from. */
export type ScriptSettings = Pick<
  ToolRunnerConfig,
  | "SCRIPTS"
  | "SCRIPT_TIMEOUT_MS"
  | "SCRIPT_MEMORY_MB"
  | "SCRIPT_OUTPUT_MAX_BYTES"
  | "SCRIPT_CONCURRENCY"
  | "SCRIPT_CONCURRENCY_PER_USER"
  | "SCRIPT_PROCESSES"
  | "SCRIPT_DISK_MB"
  | "SCRIPT_UID_BASE"
>;

/** The host user of each slot when the tool-runner is root: its own unprivileged uid and gid, never root. */
export function slotUsers(base: number): (slot: number) => { uid: number; gid: number } {
  return (slot) => ({ uid: base + slot, gid: base + slot });
}

/**
 * The script runner of a tool-runner, or undefined when scripts are off. `SCRIPTS=auto` checks the sandbox
 * once and turns scripts off with one WARN line when it does not work; `on` throws instead (the process does
 * not start); `off` never checks. The bounds actually in force (which depend on the host: root or not,
 * cgroups or not, the architecture's seccomp table) are logged once.
 */
export async function startScriptRunner(options: {
  settings: ScriptSettings;
  sandbox: Sandbox;
  /** the projects' and chats' own files, which runs start from and store their changes in */
  files: FileStore;
  logger: Logger;
  /** the sandbox check; tests replace it to see a failing one */
  check?: typeof checkScriptSandbox;
  /** the cgroup probe; tests replace it to see a host without cgroups */
  detectCgroups?: () => Promise<SandboxCgroups | undefined>;
}): Promise<ScriptRunner | undefined> {
  const { settings, logger } = options;
  if (settings.SCRIPTS === "off") {
    logger.info("run_script is off (SCRIPTS=off)");
    return undefined;
  }
  const spawnAs = process.getuid?.() === 0 ? slotUsers(settings.SCRIPT_UID_BASE) : undefined;
  const cgroups = await (options.detectCgroups ?? detectSandboxCgroups)();
  const architecture = seccompArchitecture();
  const seccomp = architecture ? seccompFilter(architecture) : undefined;
  const check: ScriptSandboxCheck = await (options.check ?? checkScriptSandbox)({ spawnAs: spawnAs?.(0), cgroups, seccomp, projectRoot: options.sandbox.projectRoot });
  if (!check.ok) {
    if (settings.SCRIPTS === "on") throw new Error(`SCRIPTS=on but the script sandbox does not work: ${check.reason}`);
    logger.warn({ reason: check.reason }, `run_script is off: the script sandbox does not work here (${check.reason}); set SCRIPTS=off to silence this`);
    return undefined;
  }
  const last = settings.SCRIPT_UID_BASE + settings.SCRIPT_CONCURRENCY - 1;
  const mechanism = cgroups ? `cgroup ${cgroups.version}` : undefined;
  logger.info(
    {
      user: spawnAs
        ? `host uids ${settings.SCRIPT_UID_BASE}-${last}, one per slot${check.bindInstallFirst ? "; they cannot reach BMAD_ROOT, so the tool-runner binds the install for each run first" : ""}`
        : "the tool-runner's own uid",
      processes: mechanism
        ? `${settings.SCRIPT_PROCESSES} per sandbox (${mechanism})`
        : spawnAs
          ? `${settings.SCRIPT_PROCESSES} per sandbox (RLIMIT_NPROC of its slot's uid)`
          : `${settings.SCRIPT_PROCESSES} per uid, shared with the tool-runner and its other sandboxes (RLIMIT_NPROC)`,
      memory: mechanism
        ? `${settings.SCRIPT_MEMORY_MB} MiB per sandbox (${mechanism}), and per process (RLIMIT_AS)`
        : `${settings.SCRIPT_MEMORY_MB} MiB per process only (RLIMIT_AS): no cgroup to hold a whole sandbox`,
      cpu: `${Math.ceil(settings.SCRIPT_TIMEOUT_MS / 1000)} s per process (RLIMIT_CPU)${mechanism ? `, one CPU per sandbox (${mechanism})` : ""}`,
      disk: `${settings.SCRIPT_DISK_MB} MiB written per writable place (tmpfs)`,
      wall: `${settings.SCRIPT_TIMEOUT_MS} ms`,
      seccomp: check.seccomp && architecture ? `on (${architecture}: ${refusedSyscalls(architecture).length} calls refused, setuid/setgid chmod refused)` : "off: no filter for this architecture",
    },
    "run_script is on; script sandbox bounds in force",
  );
  return new ScriptRunner({
    sandbox: options.sandbox,
    files: options.files,
    timeoutMs: settings.SCRIPT_TIMEOUT_MS,
    memoryMb: settings.SCRIPT_MEMORY_MB,
    outputMaxBytes: settings.SCRIPT_OUTPUT_MAX_BYTES,
    concurrency: settings.SCRIPT_CONCURRENCY,
    perUser: settings.SCRIPT_CONCURRENCY_PER_USER,
    processes: settings.SCRIPT_PROCESSES,
    diskBytes: settings.SCRIPT_DISK_MB * 1024 * 1024,
    spawnAs,
    bindInstallFirst: check.bindInstallFirst,
    cgroups,
    seccomp,
  });
}
