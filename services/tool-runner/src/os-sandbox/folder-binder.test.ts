import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDirectory } from "../sandbox/descriptor-path.js";
import { testSpawnAs } from "../testing/script-fixture.js";
import { bwrapArguments } from "../scripts/bwrap-arguments.js";
import { runSandboxProcess, type SandboxExit } from "../scripts/sandbox-process.js";
import { sandboxEntry } from "./folder-binder.js";
import { sandboxPrograms } from "./sandbox-programs.js";

// A root tool-runner binds the install for sandbox users who cannot walk to it (docs/scripts.md "A private
// `BMAD_ROOT`"): only ever the folder it opened and checked.
let base: string;
beforeAll(async () => {
  // mkdtemp's 0700: the sandbox's users cannot walk into it
  base = await mkdtemp(path.join(tmpdir(), "ao-binder-"));
  for (const name of ["checked", "swapped"]) {
    await mkdir(path.join(base, name, "_bmad"), { recursive: true, mode: 0o755 });
    await writeFile(path.join(base, name, "_bmad", "which.txt"), `${name}\n`, { mode: 0o644 });
  }
});
afterAll(() => rm(base, { recursive: true, force: true }));

/** Runs `cat /sandbox/project/_bmad/which.txt` as the first slot's user with `host` bound, `opened` handed over. */
async function catThrough(opened: string, host: string): Promise<SandboxExit> {
  const folder = await openDirectory(opened);
  const entry = await sandboxEntry([{ host, inside: "/sandbox/project" }], testSpawnAs?.(0), true);
  const staging = await mkdtemp(path.join(tmpdir(), "ao-binder-report-"));
  try {
    return await runSandboxProcess({
      args: bwrapArguments({ readOnly: entry.binds, places: [], tmpBytes: 1024 * 1024, cwd: "/", command: ["/usr/bin/cat", "/sandbox/project/_bmad/which.txt"] }),
      inputs: [],
      descriptors: [folder.fd],
      staging,
      reportMaxBytes: 1024,
      reportMaxFrames: 10,
      timeoutMs: 10_000,
      outputMaxBytes: 4096,
      spawnAs: entry.spawnAs,
      entry: entry.entry,
      bwrapPath: sandboxPrograms.bwrap,
    });
  } finally {
    await entry.remove();
    await folder.close();
    await rm(staging, { recursive: true, force: true });
  }
}

describe("sandboxEntry binding the install first", () => {
  it.runIf(testSpawnAs !== undefined)("gives the sandbox's user the folder it could not walk to", async () => {
    const exit = await catThrough(path.join(base, "checked"), path.join(base, "checked"));
    expect({ exitCode: exit.exitCode, stdout: exit.stdout, stderr: exit.stderr }).toEqual({ exitCode: 0, stdout: "checked\n", stderr: "" });
  });

  it.runIf(testSpawnAs !== undefined)("fails the run when the folder at the path is no longer the one opened", async () => {
    const exit = await catThrough(path.join(base, "checked"), path.join(base, "swapped"));
    expect({ exitCode: exit.exitCode, stdout: exit.stdout, stderr: exit.stderr }).toEqual({
      exitCode: 125,
      stdout: "",
      stderr: "folder binder: a folder changed after it was checked\n",
    });
  });
});
