import { constants } from "node:fs";
import { access, chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDirectory } from "../sandbox/descriptor-path.js";
import { bwrapArguments, sandboxPrograms } from "./bwrap-arguments.js";
import { runSandboxProcess } from "./sandbox-process.js";
import { insideSession } from "./sandbox-view.js";

/** Whether scripts can run here, and if not, why (for the operator's log). */
export type ScriptSandboxCheck = { ok: true } | { ok: false; reason: string };

const installHint: Record<keyof typeof sandboxPrograms, string> = {
  bwrap: "install Debian's bubblewrap package",
  prlimit: "install util-linux",
  python: "install python3 (3.11+; BMAD's scripts need only its standard library)",
};

/**
 * Runs a trivial python program in the same sandbox scripts get (namespaces, binds by descriptor, limits), once
 * at start. It fails where bwrap is missing or the kernel or container refuses unprivileged user namespaces
 * (a container without them, or with a seccomp profile that blocks `unshare`/`clone` of namespaces).
 */
export async function checkScriptSandbox(options: { spawnAs?: { uid: number; gid: number } | undefined } = {}): Promise<ScriptSandboxCheck> {
  for (const [name, program] of Object.entries(sandboxPrograms) as Array<[keyof typeof sandboxPrograms, string]>) {
    const found = await access(program, constants.X_OK).then(() => true, () => false);
    if (!found) return { ok: false, reason: `${program} not found: ${installHint[name]}` };
  }
  const folder = await mkdtemp(path.join(tmpdir(), "ao-script-check-"));
  try {
    // mkdtemp makes it private to the tool-runner's user; bwrap may run as another (spawnAs)
    await chmod(folder, 0o755);
    const handle = await openDirectory(folder);
    try {
      const exit = await runSandboxProcess({
        args: bwrapArguments({
          readOnly: [],
          hidden: [],
          descriptors: [{ fd: 3, inside: insideSession, writable: true }],
          cwd: insideSession,
          limits: { memoryBytes: 256 * 1024 * 1024, cpuSeconds: 10, processes: 16, fileBytes: 1024, openFiles: 64, tmpBytes: 1024 * 1024 },
          command: [sandboxPrograms.python, "-B", "-s", "-c", "print('sandbox ok')"],
        }),
        descriptors: [handle.fd],
        timeoutMs: 10_000,
        outputMaxBytes: 4096,
        spawnAs: options.spawnAs,
        bwrapPath: sandboxPrograms.bwrap,
      });
      if (exit.exitCode === 0 && exit.stdout.trim() === "sandbox ok") return { ok: true };
      const why = exit.timedOut ? "it did not finish within 10 s" : (exit.stderr.trim().split("\n")[0] ?? "") || `exit code ${exit.exitCode}`;
      return { ok: false, reason: `a sandboxed test run failed: ${why}` };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { ok: false, reason: `a sandboxed test run failed: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
