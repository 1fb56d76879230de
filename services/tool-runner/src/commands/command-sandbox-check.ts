import { constants } from "node:fs";
import { access, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { sandboxPrograms } from "../os-sandbox/sandbox-programs.js";
import { CommandRunner, type CommandRunnerOptions } from "./command-runner.js";

/** Whether commands can run here, and if not, why (for the operator's log). */
export type CommandSandboxCheck = { ok: true; seccomp: boolean } | { ok: false; reason: string };

const installHint: Record<keyof typeof sandboxPrograms, string> = {
  bwrap: "install Debian's bubblewrap package",
  prlimit: "install util-linux",
  python: "install python3 (a root tool-runner binds the working tree with it)",
};

// what every working tree needs: git, a commit with the caller's authorship; and the filter's refusal of a setuid bit
const probe = "git init -q . && echo probe > probe && git add probe && git commit -q -m probe && git log --format=%an && (chmod u+s probe 2>/dev/null && echo setuid allowed || echo setuid refused)";

/**
 * Runs a git commit in a throw-away working tree, in the very sandbox commands get (same user, idmapped tree,
 * cgroup, filter), once at start. It fails where bwrap or git is missing, where user namespaces are refused, where a
 * root tool-runner cannot bind the tree for its sandbox user (no idmapped mounts on the temporary folder's file
 * system), where the file the command wrote is not the tool-runner's on the disk, or where a filter was given and a
 * setuid chmod still went through. What fails is said with what to change.
 */
export async function checkCommandSandbox(options: CommandRunnerOptions): Promise<CommandSandboxCheck> {
  for (const [name, program] of Object.entries(sandboxPrograms) as Array<[keyof typeof sandboxPrograms, string]>) {
    const found = await access(program, constants.X_OK).then(() => true, () => false);
    if (!found) return { ok: false, reason: `${program} not found: ${installHint[name]}` };
  }
  const base = await mkdtemp(path.join(tmpdir(), "ao-command-check-"));
  try {
    const runner = new CommandRunner({ ...options, timeoutMs: 20_000, maxTimeoutMs: 20_000, concurrency: 1, perUser: 1 });
    const run = await runner.run({
      place: { directory: base },
      command: probe,
      network: false,
      gitEnvironment: { GIT_AUTHOR_NAME: "probe", GIT_AUTHOR_EMAIL: "probe@sandbox", GIT_COMMITTER_NAME: "probe", GIT_COMMITTER_EMAIL: "probe@sandbox" },
      chat: "check",
      user: "check",
    });
    if (run.exitCode !== 0 || !run.stdout.startsWith("probe\n")) {
      const why = run.limits.length > 0 ? `it went past its ${run.limits.join(", ")} limit` : (run.stderr.trim().split("\n")[0] ?? "") || `exit code ${run.exitCode}`;
      return { ok: false, reason: `a sandboxed git commit failed: ${why}` };
    }
    const owner = (await stat(path.join(base, "probe"))).uid;
    if (owner !== process.getuid?.()) return { ok: false, reason: `a file the sandbox wrote is owned by host uid ${owner}, not by the tool-runner` };
    const refused = run.stdout.trim().endsWith("setuid refused");
    if (options.seccomp && !refused) return { ok: false, reason: "the seccomp filter did not apply: a setuid chmod went through" };
    return { ok: true, seccomp: refused };
  } catch (error) {
    const detail = AppError.is(error) ? JSON.stringify(error.detail ?? {}) : "";
    return { ok: false, reason: `a sandboxed git commit failed: ${error instanceof Error ? error.message : String(error)} ${detail}`.trim() };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
