import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CommandRunner, type CommandRequest, type CommandRun, type CommandRunnerOptions } from "../commands/index.js";
import { nodeFolderOutsideUsr } from "../commands/command-bwrap.js";
import { detectSandboxCgroups } from "../os-sandbox/sandbox-cgroups.js";
import { seccompArchitecture, seccompFilter } from "../os-sandbox/seccomp-filter.js";

/** A throw-away git working tree, a secret folder beside it, and a command runner as a tool-runner on this host has it. */
export interface CommandFixture {
  base: string;
  /** the working tree: `git init` done, nothing committed */
  tree: string;
  /** a sibling of the tree holding `secret` */
  outside: string;
  runner: CommandRunner;
  /** the author every commit of `run` gets */
  author: { name: string; email: string };
  /** runs a command in the tree, as alice's chat c1, the network off unless said */
  run(command: string, more?: Partial<CommandRequest>): Promise<CommandRun>;
  /** writes a file into the tree from the host */
  plant(relative: string, content: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** When the tests run as root, each slot's sandbox runs as its own unprivileged host user, as a root tool-runner's does. */
export const commandSpawnAs = process.getuid?.() === 0 ? (slot: number) => ({ uid: 64_400 + slot, gid: 64_400 + slot }) : undefined;
const hostCgroups = detectSandboxCgroups();
const architecture = seccompArchitecture();

/** Builds the tree (0700 base, as a checkout folder is) and a runner with small limits, overridable. */
export async function createCommandFixture(options: { runner?: Partial<CommandRunnerOptions> } = {}): Promise<CommandFixture> {
  const base = await mkdtemp(path.join(tmpdir(), "ao-command-"));
  const tree = path.join(base, "tree");
  const outside = path.join(base, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "secret"), "secret 4242\n");
  execFileSync("git", ["init", "-q", "-b", "main", tree]);
  const runner = new CommandRunner({
    timeoutMs: 10_000,
    maxTimeoutMs: 20_000,
    memoryMb: 256,
    processes: 64,
    fileMb: 32,
    diskMb: 64,
    outputMaxBytes: 4096,
    concurrency: 2,
    perUser: 2,
    spawnAs: commandSpawnAs,
    cgroups: await hostCgroups,
    seccomp: architecture ? seccompFilter(architecture) : undefined,
    nodeFolder: nodeFolderOutsideUsr(),
    ...options.runner,
  });
  const author = { name: "Alice Example", email: "alice@example.com" };
  const gitEnvironment = { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email };
  return {
    base,
    tree,
    outside,
    runner,
    author,
    run: (command, more = {}) => runner.run({ place: { directory: tree }, command, network: false, gitEnvironment, chat: "c1", user: "alice", ...more }),
    async plant(relative, content) {
      const file = path.join(tree, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
