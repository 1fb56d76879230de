/**
 * Measure 12 (bench/README.md "Project files: the store against the old volume (measure 12)"): a project's files in JetStream against today's volume. Over a 30-file BMAD
 * project (2–40 KiB documents), in one run, sample by sample in alternation:
 * - `read_file` through the sandbox of a file the tool-runner has cached, and of a file read by a second store
 *   with no cache (index from KV, content from the Object Store), against the sandbox's read of the same
 *   bytes installed on disk (the same lexical checks, then lstat, realpath and the read);
 * - `save_output` (a new revision: content stored, index moved by compare-and-set, revision recorded) against
 *   the volume's save (atomic write with fsync and manifest.json updated under its lock file);
 * - `list_files` of `{planning_artifacts}` against readdir with file types and an lstat of each entry;
 * - what `run_script` adds before its sandbox starts: the project's files as the script runner gathers them
 *   (both indexes, then each content, one after the other), against reading the 30 files from disk. Only that
 *   part: the run itself (bubblewrap and the script) is the same on both sides.
 *
 * Run alone: `npx tsx bench/project-files.ts` (its own nats-server); `npm run bench` runs it as measure 12.
 */
import { randomUUID } from "node:crypto";
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { connect, type NatsConnection } from "nats";
import { jetStreamNames, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { toolRunnerEnvSchema, createSandbox, type Sandbox, workspaceInputs, FileStore } from "@agent-orchestrator/tool-runner";
import type { BenchContext } from "./support/bench-context.js";
import { startBenchNats } from "./support/bench-nats.js";
import { latencySamples, pick, quick, warmupRounds } from "./support/bench-settings.js";
import { bmadProjectDocuments, planningFolder, type ProjectDocument } from "./support/bmad-project-documents.js";
import { interleave, timed } from "./support/interleave.js";
import { formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { percentile } from "./support/percentile.js";
import { formatResultsTable } from "./support/results-table.js";
import { collectVersions, describeMachine } from "./support/run-environment.js";
import { settings } from "./support/service-settings.js";
import { saveOnVolume } from "./support/volume-save.js";

const bundlePath = "bmad/custom/bundles/bench-files";
const context = { session_id: "bench-files-chat", project_id: "bench-files-project", bundle_path: bundlePath };
const spaces = { project: { kind: "project", id: context.project_id }, session: { kind: "session", id: context.session_id } } satisfies Record<string, FileSpaceRef>;
const author = { user: "bench", session_id: context.session_id, agent_id: "bench-agent" };
// fsync dominates the volume's save and a script's inputs cost 30 reads: fewer samples keep the measure near a minute
const writeSamples = pick(400, 60);
const materialiseSamples = pick(150, 20);

interface Side {
  p50: number;
  p95: number;
}

const side = (samples: readonly number[]): Side => ({ p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) });
const microseconds = (ms: number) => `${Math.round(ms * 1000)} µs`;
const pair = (figures: Side) => `${microseconds(figures.p50)} / ${microseconds(figures.p95)}`;

/** One table line: store against disk, p50 / p95 each, the ratio of the p50s (and of the p95s). */
function row(label: string, disk: Side, store: Side, target?: { text: string; met: boolean }): MeasureRow {
  return {
    label: `${label}, p50 / p95`,
    baseline: pair(disk),
    system: pair(store),
    result: `${formatRatio(store.p50 / disk.p50)} / ${formatRatio(store.p95 / disk.p95)}`,
    ...(target ? { target: target.text, met: target.met } : {}),
  };
}

/** The BMAD_ROOT of the baseline: a custom bundle whose `volume/` holds the 30 documents as files on disk. */
async function writeInstall(root: string, documents: readonly ProjectDocument[]): Promise<string> {
  const bundle = path.join(root, bundlePath);
  await mkdir(path.join(root, "bmad/core"), { recursive: true });
  await writeFile(path.join(root, "bmad/core/config.yaml"), "user_name: Ada\n");
  await mkdir(bundle, { recursive: true });
  await writeFile(path.join(bundle, "config.yaml"), "project_name: Bench\n");
  const volume = path.join(bundle, "volume");
  for (const document of documents) {
    await mkdir(path.dirname(path.join(volume, document.path)), { recursive: true });
    await writeFile(path.join(volume, document.path), document.content);
  }
  return volume;
}

/** `list_files` as the volume did it at its core: the entries with their types, and an lstat of each. */
async function listOnDisk(folder: string): Promise<number> {
  const entries = await readdir(folder, { withFileTypes: true });
  const stats = await Promise.all(entries.map((entry) => lstat(path.join(folder, entry.name))));
  return stats.length;
}

/** Every file under `folder`, read one after the other: a script's inputs taken from a volume. */
async function readTree(folder: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await readFile(path.join(entry.parentPath, entry.name))).byteLength;
  }
  return bytes;
}

/** The project's inputs as the script runner gathers them: both indexes, then each content in turn. */
async function gatherInputs(files: FileStore): Promise<number> {
  const { inputs } = await workspaceInputs(files, spaces);
  let bytes = 0;
  for (const input of inputs) bytes += (await input.content()).byteLength;
  return bytes;
}

async function openStore(connection: NatsConnection, prefix: string, cacheBytes: number): Promise<FileStore> {
  const quota = { maxBytes: 1 << 30, maxFiles: 10_000 };
  return FileStore.open(connection.jetstream(), { flush: () => connection.flush(), subjectPrefix: prefix, replicas: 1, cacheBytes, quotas: { project: quota, session: quota }, maxIndexBytes: 1 << 20 });
}

/** Measure 12 on the server at `natsUrl`. */
export async function measureProjectFilesOn(natsUrl: string): Promise<MeasureReport> {
  const documents = bmadProjectDocuments();
  const root = await mkdtemp(path.join(tmpdir(), "bench-project-files-"));
  const connection = await connect({ servers: natsUrl });
  const lead = `benchfiles${randomUUID().slice(0, 8)}`;
  const prefix = `${lead}.`;
  try {
    const volume = await writeInstall(root, documents);
    const sessionFolder = path.join(root, "outputs", context.session_id);
    const config = settings(toolRunnerEnvSchema, {});
    const limits = { readMaxBytes: config.READ_MAX_BYTES, writeMaxBytes: config.WRITE_MAX_BYTES, listMaxEntries: config.LIST_MAX_ENTRIES };
    // the tool-runner's store with its cache (FILE_CACHE_MB), and a second one on the same buckets that caches nothing
    const warm = await openStore(connection, prefix, config.FILE_CACHE_MB * 1024 * 1024);
    const cold = await openStore(connection, prefix, 0);
    const sandbox: Sandbox = await createSandbox({ projectRoot: root, files: warm, ...limits });
    const coldSandbox: Sandbox = await createSandbox({ projectRoot: root, files: cold, ...limits });
    const encoder = new TextEncoder();
    await warm.apply(spaces.project, documents.map((document) => ({ path: document.path, content: encoder.encode(document.content) })), author);
    for (const document of documents) await saveOnVolume(sessionFolder, document.path, encoder.encode(document.content));

    const document = (round: number) => documents[round % documents.length] as ProjectDocument;
    let readRound = 0;
    const reads = await interleave(
      {
        disk: () => timed(() => sandbox.read(context, `{bundle-root}/volume/${document(readRound).path}`)),
        cached: () => timed(() => sandbox.read(context, `{project-root}/${document(readRound).path}`)),
        cold: () => timed(() => coldSandbox.read(context, `{project-root}/${document(readRound).path}`)),
      },
      { warmup: warmupRounds, samples: latencySamples, betweenRounds: () => void (readRound += 1) },
    );

    // each save is a new content (a new sha256), as a workflow's next draft is; both sides write the same bytes
    let writeRound = 0;
    const draft = () => `${document(writeRound).content}\n<!-- draft ${writeRound} -->\n`;
    // one JetStream round trip (a KV put acknowledged), the price the issue allows a save on top of the disk's
    const roundTrip = await connection.jetstream().views.kv(`${lead}_round_trip`, { history: 1 });
    const writes = await interleave(
      {
        disk: () => timed(() => saveOnVolume(sessionFolder, document(writeRound).path, encoder.encode(draft()))),
        store: () => timed(() => sandbox.write(context, `{project-root}/${document(writeRound).path}`, draft(), author)),
        roundTrip: () => timed(() => roundTrip.put("one", encoder.encode(draft().slice(0, 64)))),
      },
      { warmup: pick(20, 5), samples: writeSamples, betweenRounds: () => void (writeRound += 1) },
    );

    const lists = await interleave(
      {
        disk: () => timed(() => listOnDisk(path.join(volume, planningFolder))),
        store: () => timed(() => sandbox.list(context, `{project-root}/${planningFolder}`)),
        sandboxDisk: () => timed(() => sandbox.list(context, `{bundle-root}/volume/${planningFolder}`)),
      },
      { warmup: warmupRounds, samples: latencySamples },
    );

    const scripts = await interleave(
      {
        disk: () => timed(() => readTree(volume)),
        cached: () => timed(() => gatherInputs(warm)),
        cold: () => timed(() => gatherInputs(cold)),
      },
      { warmup: pick(10, 3), samples: materialiseSamples },
    );

    const figures = {
      read: { disk: side(reads.disk), cached: side(reads.cached), cold: side(reads.cold) },
      write: { disk: side(writes.disk), store: side(writes.store), roundTrip: side(writes.roundTrip) },
      list: { disk: side(lists.disk), store: side(lists.store), sandboxDisk: side(lists.sandboxDisk) },
      scriptInputs: { disk: side(scripts.disk), cached: side(scripts.cached), cold: side(scripts.cold) },
    };
    const sizes = documents.map((one) => one.content.length);
    const writeAllowance = figures.write.disk.p50 + figures.write.roundTrip.p50;
    return {
      id: 12,
      title: "project files: store vs disk",
      method:
        `A 30-file BMAD project (${Math.min(...sizes) >> 10}–${Math.max(...sizes) >> 10} KiB markdown and YAML, ${sizes.reduce((sum, size) => sum + size, 0) >> 10} KiB) ` +
        `in the file store (JetStream KV index and revisions, Object Store contents, one nats-server, replicas 1) against the same files on disk, ` +
        `through the tool-runner's own Sandbox and FileStore in this process; sides alternate sample by sample, the files in turn. ` +
        `read_file: ${latencySamples} samples after ${warmupRounds} warm-up rounds, disk = Sandbox.read of the bytes installed under BMAD_ROOT; ` +
        `save_output: ${writeSamples} new revisions, disk = the volume's save (atomic write with fsync, manifest.json read-modify-write under its lock file); ` +
        `list_files of {planning_artifacts} (8 files, 1 folder): ${latencySamples} samples, disk = readdir with file types + lstat of each entry; ` +
        `run_script's inputs: ${materialiseSamples} samples of what the script runner gathers before the sandbox starts, disk = a recursive readdir and the 30 files read.`,
      rows: [
        row("read_file, file in the tool-runner's cache", figures.read.disk, figures.read.cached, {
          text: "about a disk read (≤ 1.5× p50)",
          met: figures.read.cached.p50 <= 1.5 * figures.read.disk.p50,
        }),
        row("read_file, cold cache (index + Object Store)", figures.read.disk, figures.read.cold),
        row("save_output, a new revision", figures.write.disk, figures.write.store, {
          text: `≤ disk + one JetStream round trip (${microseconds(writeAllowance)} p50)`,
          met: figures.write.store.p50 <= writeAllowance,
        }),
        row("list_files of the planning folder", figures.list.disk, figures.list.store),
        row("run_script over the 30 files: materialising its inputs only, cached", figures.scriptInputs.disk, figures.scriptInputs.cached),
        row("run_script over the 30 files: materialising its inputs only, cold cache", figures.scriptInputs.disk, figures.scriptInputs.cold),
        { label: "one JetStream round trip (a KV put acknowledged), p50 / p95", baseline: "—", system: pair(figures.write.roundTrip), result: microseconds(figures.write.roundTrip.p50) },
      ],
      details: { figures, samples: { read: latencySamples, write: writeSamples, list: latencySamples, scriptInputs: materialiseSamples }, sizes },
      notes: [
        "Ratios are store / disk, of the p50s and of the p95s. A stored read always fetches the space's index (one KV get) to find the latest revision; a cached content saves the Object Store fetch only.",
        `The list baseline is the raw system calls; the sandbox's listing of the same folder on disk, with its checks, took ${pair(figures.list.sandboxDisk)} (p50 / p95).`,
        "run_script: only the inputs are measured; the run itself (bubblewrap and the script) is the same on both sides. Before projects (docs/projects.md) the script's sandbox was bound to the session folder on the volume and read nothing up front; the disk side here is the same 30 files read from disk, the work the store adds before the run.",
        "The disk is this machine's local disk with its page cache warm; an NFS volume, as the README advised for several tool-runners, adds a network round trip to every disk operation above.",
      ],
    };
  } finally {
    const manager = await connection.jetstreamManager();
    const names = jetStreamNames(prefix);
    const streams = [`KV_${names.fileIndexBucket}`, `KV_${names.fileRevisionsBucket}`, `OBJ_${names.fileContentsStore}`, `KV_${lead}_round_trip`];
    await Promise.all(streams.map((stream) => manager.streams.delete(stream).catch(() => undefined)));
    await connection.drain();
    await rm(root, { recursive: true, force: true });
  }
}

/** Measure 12 inside `npm run bench`, on the run's server. */
export const measureProjectFiles = (context: BenchContext): Promise<MeasureReport> => measureProjectFilesOn(context.nats.url);

/** Alone: a nats-server of its own, the measure, and its lines printed as `npm run bench` prints them. */
async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = describeMachine();
  const server = await startBenchNats();
  try {
    const report = await measureProjectFilesOn(server.url);
    const durationS = Math.round((Date.now() - startedAt.getTime()) / 1000);
    const command = `${quick ? "BENCH_QUICK=1 " : ""}npx tsx bench/project-files.ts`;
    console.log(formatResultsTable({ startedAt: startedAt.toISOString(), durationS, quick, command, machine: { ...machine, loadAverage1mAtEnd: describeMachine().loadAverage1m }, versions: collectVersions(), measures: [report] }));
  } finally {
    await server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
