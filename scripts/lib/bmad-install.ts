/**
 * Installs a published BMAD Method release with its official installer (`npx bmad-method@<version> install`),
 * non-interactively, into a cache folder kept between runs, and returns the folder. Tests and manual checks
 * run the system against these real installs; nothing of BMAD is copied into this repository.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";

export interface BmadInstallRequest {
  /** a published version of the `bmad-method` package, e.g. `6.12.0` or `4.44.3` */
  version: string;
  /** the installer's tool (IDE) target: `claude-code`, `codex`, `cursor`, … */
  tool: string;
  /** the user name the installer writes into the config (6.x only; 4.x asks for none) */
  userName?: string;
}

/**
 * Where installs are kept: `BMAD_INSTALL_CACHE`, or `~/.cache/agent-orchestrator/bmad-installs`; for root
 * `/var/cache/agent-orchestrator/bmad-installs`, because a root tool-runner's script sandboxes run as
 * unprivileged users, who must be able to reach the install they read (root's home is private).
 */
export function installCacheRoot(): string {
  const fallback = process.getuid?.() === 0 ? "/var/cache/agent-orchestrator" : join(homedir(), ".cache", "agent-orchestrator");
  return process.env["BMAD_INSTALL_CACHE"] ?? join(fallback, "bmad-installs");
}

/** The user name our installs are made with (the tests check that agents greet with it). */
export const defaultInstallUserName = "Ada";

/** The cached install's folder (its BMAD_ROOT), installing it first when it is not there yet. */
export async function ensureBmadInstall(request: BmadInstallRequest): Promise<string> {
  const userName = request.userName ?? defaultInstallUserName;
  const folder = join(installCacheRoot(), `${request.version}-${request.tool}-${userName}`);
  if (existsSync(join(folder, ".installed"))) return folder;

  // install into a private folder of the same name and rename it into place, so a concurrent test never sees
  // half an install (the installer names the project after its folder, so the name must already be the final one)
  const stagingParent = join(installCacheRoot(), `.staging-${process.pid}-${Date.now()}`);
  const staging = join(stagingParent, basename(folder));
  await mkdir(staging, { recursive: true });
  try {
    await runInstaller(installerArguments(request.version, request.tool, userName, staging), staging);
    await writeFile(join(staging, ".installed"), `${request.version} ${request.tool} ${new Date().toISOString()}\n`);
    await rename(staging, folder).catch(async (error: unknown) => {
      // another process finished the same install first: keep theirs
      if (existsSync(join(folder, ".installed"))) return;
      throw error;
    });
  } finally {
    await rm(stagingParent, { recursive: true, force: true });
  }
  return folder;
}

/** The installer's command line: 4.x takes `--full --ide`, 6.x `--modules --tools --yes`. */
export function installerArguments(version: string, tool: string, userName: string, directory: string): string[] {
  const major = Number.parseInt(version, 10);
  if (major < 6) return ["-y", `bmad-method@${version}`, "install", "--full", "--ide", tool, "--directory", directory];
  return ["-y", `bmad-method@${version}`, "install", "--directory", directory, "--modules", "bmm", "--tools", tool, "--yes", "--user-name", userName];
}

function runInstaller(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "1", NO_COLOR: "1" } });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(chunk.toString("utf8"));
      if (output.length > 400) output.splice(0, output.length - 400);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`npx ${args.join(" ")} exited with ${code}:\n${output.join("").slice(-4000)}`));
    });
  });
}
