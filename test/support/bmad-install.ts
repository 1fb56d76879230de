/**
 * Installs a published BMAD Method release with its official installer (`npx bmad-method@<version> install`),
 * non-interactively, into a cache folder kept between runs, and returns the folder. Tests and manual checks
 * run the system against these real installs; nothing of BMAD is copied into this repository. The published
 * package itself (its sources, web bundles and test fixtures, as `npm pack` gives them) is cached the same way
 * by `ensureBmadPackage`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";

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
  const args = (staging: string) =>
    scriptedInstallReleases.has(request.version)
      ? scriptedInstallerArguments(request.version, request.tool, userName, staging)
      : installerArguments(request.version, request.tool, userName, staging);
  return fillCacheFolder(folder, `${request.version} ${request.tool}`, (staging) => run("npx", args(staging), staging));
}

/**
 * The published `bmad-method@<version>` package unpacked (the folder holding its package.json), fetched with
 * `npm pack` when it is not cached yet. It holds what no install has: the sources (the `*.agent.yaml` files
 * under `src/`), the built web bundles, 4.x's source layout (`bmad-core/`, `expansion-packs/`) and the
 * installer's own test fixtures.
 */
export async function ensureBmadPackage(version: string): Promise<string> {
  const folder = join(installCacheRoot(), "packages", `bmad-method-${version}`);
  const unpacked = await fillCacheFolder(folder, version, async (staging) => {
    await run("npm", ["pack", `bmad-method@${version}`, "--silent", "--pack-destination", staging], staging);
    await run("tar", ["-xzf", `bmad-method-${version}.tgz`, "-C", staging], staging);
    await rm(join(staging, `bmad-method-${version}.tgz`));
  });
  return join(unpacked, "package");
}

/**
 * Makes `folder` by filling a private folder of the same name and renaming it into place, so a concurrent test
 * never sees half of it (an installer names the project after its folder, so the name must already be the final
 * one); a folder with its `.installed` marker is reused as it is.
 */
async function fillCacheFolder(folder: string, label: string, fill: (staging: string) => Promise<void>): Promise<string> {
  if (existsSync(join(folder, ".installed"))) return folder;
  await mkdir(installCacheRoot(), { recursive: true });
  const stagingParent = await mkdtemp(join(installCacheRoot(), ".staging-"));
  const staging = join(stagingParent, basename(folder));
  await mkdir(staging, { recursive: true });
  try {
    await fill(staging);
    await writeFile(join(staging, ".installed"), `${label} ${new Date().toISOString()}\n`);
    await mkdir(dirname(folder), { recursive: true });
    await rename(staging, folder).catch(async (error: unknown) => {
      // another process finished the same folder first: keep theirs
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

/**
 * Releases whose installer has no command-line options and asks every question with inquirer: 6.0.0-alpha.7,
 * the release the corpus tests read (test/support/corpus.ts).
 */
export const scriptedInstallReleases: ReadonlySet<string> = new Set(["6.0.0-alpha.7"]);

/**
 * The modules a scripted install selects: those of the install BMAD's own repository committed in its 6.0
 * alpha days (core always comes with them).
 */
export const scriptedInstallModules = ["bmb", "bmm", "cis"] as const;

/**
 * Drives the official installer of a release in `scriptedInstallReleases`: `npx -p bmad-method@<version>` fetches
 * the package with its dependencies as for any other install, and this program, run by node in that
 * environment, loads the package's own `Installer` and answers each of its inquirer questions with the question's
 * default (the user name with ours), as a user pressing Enter at every prompt would; the IDE and the modules are
 * given as the interactive menu would return them. Nothing of the installer is reimplemented here.
 */
const answerWithDefaultsProgram = `
const { existsSync, realpathSync } = require("node:fs");
const path = require("node:path");
const [directory, userName, tool, modules] = process.argv.slice(-4);
const wrapper = process.env.PATH.split(path.delimiter).map((dir) => path.join(dir, "bmad-method")).find((file) => existsSync(file));
const root = path.resolve(path.dirname(realpathSync(wrapper)), "..");
const inquirer = require(require.resolve("inquirer", { paths: [root] }));
inquirer.prompt = async (questions) => {
  const answers = {};
  for (const question of [questions].flat()) {
    if (typeof question.when === "function" ? !(await question.when(answers)) : question.when === false) continue;
    const choices = (typeof question.choices === "function" ? await question.choices(answers) : question.choices) || [];
    let value = typeof question.default === "function" ? await question.default(answers) : question.default;
    if (question.name.replace(/^core_/, "") === "user_name") value = userName;
    if (question.type === "checkbox" && value === undefined) value = choices.filter((choice) => choice && choice.checked).map((choice) => choice.value);
    if (question.type === "list" && (value === undefined || typeof value === "number")) value = choices.filter((choice) => choice && choice.value !== undefined)[value || 0].value;
    if (question.type === "confirm" && value === undefined) value = true;
    answers[question.name] = value;
  }
  return answers;
};
const { Installer } = require(path.join(root, "tools/cli/installers/lib/core/installer"));
new Installer()
  .install({ directory, installCore: true, modules: modules.split(","), ides: [tool], skipIde: false })
  .then((result) => process.exit(result && result.success ? 0 : 1), (error) => { console.error(error); process.exit(1); });
`;

/** The npx command line of a scripted install (see `answerWithDefaultsProgram`). */
export function scriptedInstallerArguments(version: string, tool: string, userName: string, directory: string): string[] {
  return ["-y", "-p", `bmad-method@${version}`, "node", "-e", answerWithDefaultsProgram, directory, userName, tool, scriptedInstallModules.join(",")];
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "1", NO_COLOR: "1" } });
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
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output.join("").slice(-4000)}`));
    });
  });
}
