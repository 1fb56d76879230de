/**
 * Measure 20 (bench/README.md "A repository's working tree at 1,000 and 50,000 files (measure 20)"): issue 40
 * item 7, what a file write and a command cost in a project's git repository as it grows (docs/repositories.md).
 * Two repositories of small source files, 1,000 and 50,000, each attached from a bundle; then, sample by sample
 * in alternation between the two:
 * - a file write (`save_output`'s path: the blob and the trees on its path written, packed, stored, the
 *   working tree's state moved by compare-and-set), target ≤ 1.5× from 1,000 to 50,000 files;
 * - a command that writes one file and runs `git status --porcelain` in the chat's checkout, in the command sandbox
 *   (bwrap) as `run_command` runs it: git status's own time there, with the checkout's monitor (the core.fsmonitor
 *   hook, docs/repositories.md "git status in a command") and without it, and the command's cycle around it as
 *   `withWorkingTree` runs one (lease, checkout brought to the state, what changed read back as a tree, the state
 *   moved; the command's own time taken out), target ≤ 1.5×;
 * - `run_command` of `git status --porcelain` as the model waits for it (the tool's handler: the working tree's
 *   lease, its checkout, the sandbox, the command, what it changed kept), target ≤ 1.5×;
 * - once each: the attach of the bundle, and a replica's first command on it (its checkout made from the trees).
 *
 * Run alone: `npx tsx bench/repositories.ts` (its own nats-server); `npm run bench` runs it as measure 20.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { connect } from "nats";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import { FileStore, Repositories, RepositoryBucket, WorkingTrees, repositorySettingsOf, runCommandTool, startCommandRunner, toolRunnerEnvSchema, type ToolDependencies } from "@agent-orchestrator/tool-runner";
import type { BenchContext } from "./support/bench-context.js";
import { startBenchNats } from "./support/bench-nats.js";
import { pick, quick } from "./support/bench-settings.js";
import { interleave, timed } from "./support/interleave.js";
import { formatMs, formatRatio, type MeasureReport } from "./support/measure-report.js";
import { percentile } from "./support/percentile.js";
import { formatResultsTable } from "./support/results-table.js";
import { collectVersions, describeMachine } from "./support/run-environment.js";
import { settings } from "./support/service-settings.js";

const sizes = { small: 1_000, large: pick(50_000, 10_000) } as const;
const writeSamples = pick(60, 10);
const commandSamples = pick(20, 4);
const filesPerFolder = 100;
const author = { user: "bench", session_id: "bench-chat", agent_id: "bench-dev" };

/** A repository of `files` small source files in folders of 100, one commit, as a bundle; returns the bundle's path. */
async function makeBundle(root: string, files: number): Promise<string> {
  const folder = path.join(root, `repo-${files}`);
  for (let at = 0; at < files; at += 1) {
    const file = path.join(folder, "src", `m${Math.floor(at / filesPerFolder)}`, `f${at % filesPerFolder}.ts`);
    if (at % filesPerFolder === 0) await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `export const value${at} = ${at};\n// a small source file of the bench's repository\n`);
  }
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "init.defaultBranch=main", "-c", "gc.auto=0", "-c", "maintenance.auto=false", ...args], { cwd: folder, env: { PATH: process.env["PATH"] ?? "", HOME: folder, GIT_CONFIG_NOSYSTEM: "1" }, maxBuffer: 64 * 1024 * 1024 });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "the bench's files");
  const bundle = path.join(root, `repo-${files}.bundle`);
  git("bundle", "create", "-q", bundle, "--all");
  await rm(folder, { recursive: true, force: true, maxRetries: 3 });
  return bundle;
}

/**
 * A command line that writes one file, then times `git status --porcelain` inside the sandbox, with the checkout's
 * monitor and (without writing the index, so the next one keeps its token) without it: prints both in nanoseconds.
 */
function statusCommand(file: string, round: number): string {
  const timedStatus = (git: string) => `s=$(date +%s%N) && ${git} status --porcelain > /dev/null && e=$(date +%s%N) && echo $((e - s))`;
  return [`echo 'export const command = ${round};' > ${file}`, timedStatus("git"), timedStatus("git --no-optional-locks -c core.fsmonitor=false")].join(" && ");
}

const p50 = (samples: readonly number[]) => percentile(samples, 0.5);

/** Measure 20 on the server at `natsUrl`. */
export async function measureRepositoriesOn(natsUrl: string): Promise<MeasureReport> {
  const root = await mkdtemp(path.join(tmpdir(), "bench-repositories-"));
  const connection = await connect({ servers: natsUrl });
  const prefix = `benchrepo${randomUUID().slice(0, 8)}.`;
  const logger = createLogger("bench-repositories", "silent");
  const toolRunnerSettings = settings(toolRunnerEnvSchema, {});
  const repositorySettings = { ...repositorySettingsOf(toolRunnerSettings), cacheFolder: root };
  const commands = await startCommandRunner({ settings: toolRunnerSettings, logger });
  if (!commands) throw new Error("the command sandbox does not work here (bwrap): measure 20 needs it");
  const replicas: Repositories[] = [];
  // the projects' indexes an attach marks
  const files = await FileStore.forConfig(connection, prefix, toolRunnerSettings);
  const replica = async () => {
    const bucket = await RepositoryBucket.open(connection.jetstream(), { subjectPrefix: prefix, replicas: 1, flush: () => connection.flush() });
    const repositories = await Repositories.open(bucket, repositorySettings, files, logger);
    replicas.push(repositories);
    return { repositories, trees: new WorkingTrees(repositories, repositorySettings, logger) };
  };
  try {
    const bundles = { small: await makeBundle(root, sizes.small), large: await makeBundle(root, sizes.large) };
    const first = await replica();
    const attachMs = { small: 0, large: 0 };
    for (const size of ["small", "large"] as const) attachMs[size] = await timed(() => first.repositories.attachBundle(size, bundles[size], "bench"));
    const chat = (size: "small" | "large") => ({ project: size, session: "bench-chat" });

    let round = 0;
    const write = (size: "small" | "large") => () =>
      timed(() => first.trees.change(chat(size), async () => [{ path: `src/m3/f${round % filesPerFolder}.ts`, content: Buffer.from(`export const round = ${round};\n`) }], author));
    const writes = await interleave({ small: write("small"), large: write("large") }, { warmup: 3, samples: writeSamples, betweenRounds: () => void (round += 1) });

    const statusMs = { small: [] as number[], large: [] as number[] };
    const unmonitoredMs = { small: [] as number[], large: [] as number[] };
    const cycles = { small: [] as number[], large: [] as number[] };
    /** `command` in the chat's working tree, in the sandbox, as run_command runs it; its stdout */
    const sandboxed = (size: "small" | "large", command: string, place: Parameters<Parameters<WorkingTrees["withWorkingTree"]>[1]>[0], environment: Readonly<Record<string, string>>) =>
      commands.run({ place, command, network: false, gitEnvironment: environment, chat: `bench-${size}`, user: "bench" }).then((run) => {
        if (run.exitCode !== 0) throw new Error(`the bench's command failed (${run.exitCode}): ${run.stderr}`);
        return run.stdout;
      });
    const command = (size: "small" | "large") => async () => {
      let ownMs = 0;
      const total = await timed(() =>
        first.trees.withWorkingTree(
          chat(size),
          async (place, commits) => {
            const started = performance.now();
            const [monitored = "", unmonitored = ""] = (await sandboxed(size, statusCommand(`src/m7/f${round % filesPerFolder}.ts`, round), place, commits.environment)).trim().split("\n");
            statusMs[size].push(Number(monitored) / 1e6);
            unmonitoredMs[size].push(Number(unmonitored) / 1e6);
            ownMs = performance.now() - started;
          },
          author,
        ),
      );
      cycles[size].push(total - ownMs);
      return total;
    };
    // the first two commands of each make its checkout and read every file once (the watcher's first window, the
    // monitor's first answer of everything): warm-up rounds
    await interleave({ small: command("small"), large: command("large") }, { warmup: 2, samples: commandSamples, betweenRounds: () => void (round += 1) });
    for (const samples of [statusMs, unmonitoredMs, cycles]) {
      samples.small.splice(0, 2);
      samples.large.splice(0, 2);
    }

    // run_command's handler as the tool-runner calls it (it uses no file sandbox: the chat's working tree is all it reads)
    const dependencies = { replyBudget: () => 1024 * 1024, logger, commands, trees: first.trees } as Omit<ToolDependencies, "sandbox"> as ToolDependencies;
    const runCommand = (size: "small" | "large") => () =>
      timed(async () => {
        const result = await runCommandTool({ command: "git status --porcelain" }, { session_id: "bench-chat", project_id: size, user: "bench", agent_id: "bench-dev", bundle_path: "_bmad" }, dependencies, { call_id: `bench:${round}` });
        if (!result.success) throw new Error(`run_command failed: ${JSON.stringify(result)}`);
      });
    const runCommands = await interleave({ small: runCommand("small"), large: runCommand("large") }, { warmup: 1, samples: commandSamples, betweenRounds: () => void (round += 1) });

    const second = await replica();
    const coldMs = await timed(() => second.trees.withWorkingTree(chat("large"), (place, commits) => sandboxed("large", "git status --porcelain", place, commits.environment), author));

    const ratio = (samples: Record<"small" | "large", number[]>) => p50(samples.large) / p50(samples.small);
    const figure = (samples: readonly number[]) => formatMs(p50(samples));
    const large = sizes.large.toLocaleString("en");
    return {
      id: 20,
      title: `A repository's working tree at 1,000 and ${large} files`,
      method: `Two repositories of small source files (1,000 and ${large}, folders of 100) attached from bundles; a file write (${writeSamples} samples), a command in the sandbox writing one file and running \`git status --porcelain\` (${commandSamples}), and run_command of \`git status --porcelain\` (${commandSamples}) in each, in alternation; p50s.`,
      rows: [
        { label: `a file write, p50 (1,000 → ${large} files)`, baseline: figure(writes.small), system: figure(writes.large), result: formatRatio(ratio(writes)), target: "≤ 1.5×", met: ratio(writes) <= 1.5 },
        // the row for a command is run_command's below, what the model waits for; git's own process inside it is shown beside
        { label: `git status's own process in the command's sandbox, with the checkout's monitor, p50`, baseline: figure(statusMs.small), system: figure(statusMs.large), result: formatRatio(ratio(statusMs)) },
        { label: `the same git status without the monitor, p50`, baseline: figure(unmonitoredMs.small), system: figure(unmonitoredMs.large), result: formatRatio(ratio(unmonitoredMs)) },
        { label: `a command's cycle around it (withWorkingTree, the command's own time out), p50`, baseline: figure(cycles.small), system: figure(cycles.large), result: formatRatio(ratio(cycles)), target: "≤ 1.5×", met: ratio(cycles) <= 1.5 },
        { label: `run_command of git status --porcelain, as the model waits for it, p50`, baseline: figure(runCommands.small), system: figure(runCommands.large), result: formatRatio(ratio(runCommands)), target: "≤ 1.5×", met: ratio(runCommands) <= 1.5 },
        { label: `attach from a bundle`, baseline: formatMs(attachMs.small), system: formatMs(attachMs.large), result: formatRatio(attachMs.large / attachMs.small) },
        { label: `a replica's first command (checkout made from the trees), ${large} files`, baseline: "", system: formatMs(coldMs), result: formatMs(coldMs), target: "≤ 10 s warm", met: coldMs <= 10_000 },
      ],
      details: { sizes, writes, statusMs, unmonitoredMs, cycles, runCommands, attachMs, coldMs },
      notes: [
        "A write touches the blob and the trees on its path only, so its cost does not follow the repository's size; a command's cycle reads back only what the checkout's watcher saw change (docs/repositories.md \"What changed, without reading every file\"); the command's git status asks the checkout's monitor and stats only what changed, but git 2.39 still reads the whole index and checks its SHA-1 at every run.",
        "The cold row makes a checkout of every file on a replica that had none; a warm replica's first command of a turn only brings its checkout to the state.",
      ],
    };
  } finally {
    await Promise.all(replicas.map((repositories) => repositories.close()));
    const manager = await connection.jetstreamManager();
    const names = jetStreamNames(prefix);
    const streams = [
      `KV_${names.repositoriesBucket}`,
      `KV_${names.repositoryCredentialsBucket}`,
      `OBJ_${names.repositoryPacksStore}`,
      `KV_${names.fileIndexBucket}`,
      `KV_${names.fileRevisionsBucket}`,
      `OBJ_${names.fileContentsStore}`,
    ];
    await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
    await connection.drain();
    await rm(root, { recursive: true, force: true });
  }
}

/** Measure 20 inside `npm run bench`, on the run's server. */
export const measureRepositories = (context: BenchContext): Promise<MeasureReport> => measureRepositoriesOn(context.nats.url);

/** Alone: a nats-server of its own, the measure, and its lines printed as `npm run bench` prints them. */
async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = describeMachine();
  const server = await startBenchNats();
  try {
    const report = await measureRepositoriesOn(server.url);
    const durationS = Math.round((Date.now() - startedAt.getTime()) / 1000);
    const command = `${quick ? "BENCH_QUICK=1 " : ""}npx tsx bench/repositories.ts`;
    console.log(formatResultsTable({ startedAt: startedAt.toISOString(), durationS, quick, command, machine: { ...machine, loadAverage1mAtEnd: describeMachine().loadAverage1m }, versions: collectVersions(), measures: [report] }));
  } finally {
    await server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
