import path from "node:path";
import { AppError } from "@agent-orchestrator/shared";
import type { Sandbox } from "../sandbox/index.js";
import { detectProjectLayout } from "../sandbox/project-layout.js";
import { callRecordFolderName } from "../sandbox/protected-names.js";
import { bwrapArguments, sandboxPrograms, type ScriptLimits } from "./bwrap-arguments.js";
import { runSandboxProcess } from "./sandbox-process.js";
import { argumentInside, insideSession, planSandboxView, virtualizeText } from "./sandbox-view.js";
import { parseScriptCommand } from "./script-command.js";
import { locateScript } from "./script-location.js";
import { ScriptSlots } from "./script-slots.js";
import { changedFiles, snapshotSession } from "./session-snapshot.js";
import { openSessionDescriptors } from "./session-descriptors.js";

/** What a script runner is configured with (SCRIPT_* settings). */
export interface ScriptRunnerOptions {
  sandbox: Sandbox;
  timeoutMs: number;
  memoryMb: number;
  outputMaxBytes: number;
  concurrency: number;
  /** start bwrap as this host user; tests running as root use it to get the process-count limit, which the kernel never applies to root */
  spawnAs?: { uid: number; gid: number } | undefined;
}

/** One finished run, paths virtual. */
export interface ScriptRun {
  /** null when the run was stopped at the time limit */
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** regular files of the session folder the run created (`created`) or changed, `{session-folder}/…` */
  filesWritten: Array<{ path: string; size: number; created: boolean }>;
  /** the listing of the session folder hit its bound: files beyond it are not reported */
  filesWrittenTruncated: boolean;
  durationMs: number;
}

// Fixed limits: a fork bomb stops at `processes`; no BMAD script writes files anywhere near these sizes.
const fixedLimits = { processes: 64, fileBytes: 64 * 1024 * 1024, openFiles: 256, tmpBytes: 64 * 1024 * 1024 };
// the system's own files in the session folder (the manifest, the call records): never reported as written by a script
const isSystemFile = (relative: string) => /^manifest\.json/i.test(relative) || relative.startsWith(`${callRecordFolderName}/`);

/**
 * Runs BMAD's Python scripts for the model (issue 12): the command is parsed without a shell, the script must
 * be one of the install's, and it runs in a bubblewrap sandbox that sees the BMAD trees and skill folders
 * read-only, its session folder read-write and nothing else of the host. What it prints comes back with
 * virtual paths.
 */
export class ScriptRunner {
  private readonly slots: ScriptSlots;
  private readonly limits: ScriptLimits;

  constructor(private readonly options: ScriptRunnerOptions) {
    this.slots = new ScriptSlots(options.concurrency);
    this.limits = {
      ...fixedLimits,
      memoryBytes: options.memoryMb * 1024 * 1024,
      cpuSeconds: Math.ceil(options.timeoutMs / 1000),
    };
  }

  /** The time limit of one run, for messages. */
  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Checks and runs one command line in the session's sandbox. Refusals are thrown as AppErrors. */
  async run(sessionId: string, command: string): Promise<ScriptRun> {
    const parsed = parseScriptCommand(command);
    const { sandbox } = this.options;
    return this.slots.run(sessionId, async () => {
      const sessionFolder = await sandbox.sessionFolder(sessionId);
      const outputRoot = path.dirname(sessionFolder);
      const roots = (await sandbox.roots({ session_id: sessionId })).lexical;
      const layout = await detectProjectLayout(sandbox.projectRoot);
      const view = await planSandboxView({ projectRoot: sandbox.projectRoot, outputRoot, sessionFolder, layout });
      const script = await locateScript({ view, roots, outputRoot, script: parsed.script });
      const args = parsed.args.map((word) => argumentInside(view, roots, word));
      const descriptors = await openSessionDescriptors(view);
      try {
        const before = await snapshotSession(sessionFolder);
        const spec = {
          readOnly: view.readOnly,
          hidden: view.hidden,
          descriptors: descriptors.binds,
          cwd: insideSession,
          limits: this.limits,
          command: [sandboxPrograms.python, "-B", "-s", script, ...args],
        };
        const exit = await runSandboxProcess({
          args: bwrapArguments(spec),
          descriptors: descriptors.fds,
          timeoutMs: this.options.timeoutMs,
          outputMaxBytes: this.options.outputMaxBytes,
          spawnAs: this.options.spawnAs,
          bwrapPath: sandboxPrograms.bwrap,
        });
        if (exit.exitCode !== 0 && exit.stderr.startsWith("bwrap: ")) {
          throw new AppError("SERVICE_UNAVAILABLE", "The script sandbox could not start; do this step by hand as the skill's fallback says", {
            detail: { stderr: exit.stderr.slice(0, 1000) },
          });
        }
        const after = await snapshotSession(sessionFolder);
        const written = changedFiles(before, after).filter((file) => !isSystemFile(file.path));
        return {
          exitCode: exit.exitCode,
          timedOut: exit.timedOut,
          stdout: virtualizeText(view, exit.stdout),
          stderr: virtualizeText(view, exit.stderr),
          filesWritten: written.map((file) => ({ ...file, path: `{session-folder}/${file.path}` })),
          filesWrittenTruncated: before.truncated || after.truncated,
          durationMs: exit.durationMs,
        };
      } finally {
        await descriptors.close();
      }
    });
  }
}

