import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ToolRunnerConfig } from "../config.js";
import { detectSandboxCgroups, type SandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { refusedSyscalls, seccompArchitecture, seccompFilter } from "../os-sandbox/seccomp-filter.js";
import { nodeFolderOutsideUsr } from "./command-bwrap.js";
import { checkCommandSandbox, type CommandSandboxCheck } from "./command-sandbox-check.js";
import { CommandRunner, type CommandRunnerOptions } from "./command-runner.js";

/** The COMMAND_* settings a runner is made from (and the script slots' uids, which command slots must not meet). */
export type CommandSettings = Pick<
  ToolRunnerConfig,
  | "COMMANDS"
  | "COMMAND_TIMEOUT_MS"
  | "COMMAND_TIMEOUT_MAX_MS"
  | "COMMAND_MEMORY_MB"
  | "COMMAND_PROCESSES"
  | "COMMAND_FILE_MB"
  | "COMMAND_DISK_MB"
  | "COMMAND_OUTPUT_MAX_BYTES"
  | "COMMAND_CONCURRENCY"
  | "COMMAND_CONCURRENCY_PER_USER"
  | "COMMAND_UID_BASE"
  | "SCRIPT_UID_BASE"
  | "SCRIPT_CONCURRENCY"
>;

/**
 * The command runner of a tool-runner, or undefined when commands are off. `COMMANDS=auto` checks the sandbox once
 * and turns commands off with one WARN line when it does not work; `on` throws instead (the process does not
 * start); `off` never checks. The bounds actually in force (root or not, cgroups or not, the architecture's seccomp
 * table) are logged once.
 */
export async function startCommandRunner(options: {
  settings: CommandSettings;
  logger: Logger;
  /** the sandbox check; tests replace it to see a failing one */
  check?: typeof checkCommandSandbox;
  /** the cgroup probe; tests replace it to see a host without cgroups */
  detectCgroups?: () => Promise<SandboxCgroups | undefined>;
}): Promise<CommandRunner | undefined> {
  const { settings, logger } = options;
  if (settings.COMMANDS === "off") {
    logger.info("run_command is off (COMMANDS=off)");
    return undefined;
  }
  const root = process.getuid?.() === 0;
  const commandUids = [settings.COMMAND_UID_BASE, settings.COMMAND_UID_BASE + settings.COMMAND_CONCURRENCY - 1] as const;
  const scriptUids = [settings.SCRIPT_UID_BASE, settings.SCRIPT_UID_BASE + settings.SCRIPT_CONCURRENCY - 1] as const;
  if (root && commandUids[0] <= scriptUids[1] && scriptUids[0] <= commandUids[1]) {
    throw new Error(`COMMAND_UID_BASE's uids (${commandUids.join("-")}) meet SCRIPT_UID_BASE's (${scriptUids.join("-")}): a command's sandbox could signal a script's`);
  }
  const architecture = seccompArchitecture();
  const runnerOptions: CommandRunnerOptions = {
    timeoutMs: Math.min(settings.COMMAND_TIMEOUT_MS, settings.COMMAND_TIMEOUT_MAX_MS),
    maxTimeoutMs: settings.COMMAND_TIMEOUT_MAX_MS,
    memoryMb: settings.COMMAND_MEMORY_MB,
    processes: settings.COMMAND_PROCESSES,
    fileMb: settings.COMMAND_FILE_MB,
    diskMb: settings.COMMAND_DISK_MB,
    outputMaxBytes: settings.COMMAND_OUTPUT_MAX_BYTES,
    concurrency: settings.COMMAND_CONCURRENCY,
    perUser: settings.COMMAND_CONCURRENCY_PER_USER,
    spawnAs: root ? (slot) => ({ uid: settings.COMMAND_UID_BASE + slot, gid: settings.COMMAND_UID_BASE + slot }) : undefined,
    cgroups: await (options.detectCgroups ?? detectSandboxCgroups)(),
    seccomp: architecture ? seccompFilter(architecture) : undefined,
    nodeFolder: nodeFolderOutsideUsr(),
  };
  const check: CommandSandboxCheck = await (options.check ?? checkCommandSandbox)(runnerOptions);
  if (!check.ok) {
    if (settings.COMMANDS === "on") throw new Error(`COMMANDS=on but the command sandbox does not work: ${check.reason}`);
    logger.warn({ reason: check.reason }, `run_command is off: the command sandbox does not work here (${check.reason}); set COMMANDS=off to silence this`);
    return undefined;
  }
  const mechanism = runnerOptions.cgroups ? `cgroup ${runnerOptions.cgroups.version}` : undefined;
  logger.info(
    {
      user: root ? `host uids ${commandUids.join("-")}, one per slot, the working tree bound for each as an idmapped mount` : "the tool-runner's own uid",
      processes: mechanism
        ? `${settings.COMMAND_PROCESSES} per sandbox (${mechanism}; the sandbox is stopped at it)`
        : root
          ? `${settings.COMMAND_PROCESSES} per sandbox (RLIMIT_NPROC of its slot's uid)`
          : `${settings.COMMAND_PROCESSES} per uid, shared with the tool-runner and its other sandboxes (RLIMIT_NPROC)`,
      memory: mechanism ? `${settings.COMMAND_MEMORY_MB} MiB per sandbox (${mechanism})` : `${settings.COMMAND_MEMORY_MB} MiB per process only (RLIMIT_AS): no cgroup to hold a whole sandbox`,
      disk: mechanism
        ? `${settings.COMMAND_DISK_MB} MiB written per sandbox (${mechanism} I/O accounting; the sandbox is stopped past it), ${settings.COMMAND_FILE_MB} MiB per file`
        : `${settings.COMMAND_FILE_MB} MiB per file only (RLIMIT_FSIZE): no cgroup to count a whole sandbox's writes`,
      wall: `${runnerOptions.timeoutMs} ms unless asked, at most ${settings.COMMAND_TIMEOUT_MAX_MS} ms`,
      seccomp: check.seccomp && architecture ? `on (${architecture}: ${refusedSyscalls(architecture).length} calls refused, setuid/setgid chmod refused)` : "off: no filter for this architecture",
      node: runnerOptions.nodeFolder === undefined ? "from /usr" : "its own folder, read-only at /opt/node",
    },
    "run_command is on; command sandbox bounds in force",
  );
  return new CommandRunner(runnerOptions);
}
