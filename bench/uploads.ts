/**
 * Measure 14 (bench/README.md "Uploads (measure 14)"): does memory stay flat while a large upload streams in?
 * The four services run as processes (`node services/<name>/dist/main.js`), so the gateway's and the
 * tool-runner's resident memory can be read on their own from /proc, without this process's client buffers.
 * Files of 20, 100 and 200 MB are sent as raw bodies (`PUT /api/projects/default/files/inputs/big-<n>.bin`),
 * generated while they are written, interleaved size by size after a warm-up upload; each one's VmRSS is
 * sampled every 20 ms from a worker thread, and its peak is set against the RSS just before that upload; "flat" is
 * judged on the highest RSS of each size, which is steadier than one upload's growth. Then the
 * project's zip (`GET /api/projects/default/archive`) is read by a slow client, with the gateway sampled alike.
 * Each stored size and sha256 is checked against what was sent, and the zip's length and entry count against
 * the project's listing. nats-server runs deploy/nats' config (max_payload 4 MiB) unchanged.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { FileListing, FileRevision } from "@agent-orchestrator/shared/wire";
import { startSystem as startServiceProcesses, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import type { BenchContext } from "./support/bench-context.js";
import { pick } from "./support/bench-settings.js";
import { benchEnv } from "./support/bench-env.js";
import { cpuMs } from "./support/cpu-time.js";
import { formatMs, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { percentile } from "./support/percentile.js";
import { rssKiB, startRssSampler, waitForRestingRss, type RssTrace } from "./support/rss-sampler.js";
import { downloadSlowly } from "./support/slow-download.js";
import { removeStoredData } from "./support/stored-data.js";
import { putGenerated } from "./support/streamed-upload.js";

const sizesMb = [20, 100, 200] as const;
const repetitions = pick(3, 1);
const sampleIntervalMs = 20;
// before each upload both processes come to rest, so the tail of the one before (its staged copy removed, the
// garbage it left) is not charged to the next; V8 may still hold what it grew, so where an upload starts varies
const rest = { windowMs: 3_000, toleranceKiB: 1_024, maxMs: pick(15_000, 6_000) };
// a reader that stalls: whatever the gateway's own pace (zipping is CPU-bound, 15–20 MB/s on a loaded 2-core host),
// each stall fills the socket and the zip must wait for it
const readPace = { bytesPerSecond: 20e6, stallMs: 3_000, stallEveryBytes: 100e6 };
const project = "default";
/** the issue's "flat": the highest RSS at 200 MB at most 10 % of the 180 MB above that at 20 MB (memory that follows the body grows by all of it) */
const flatShare = 0.1;
const watched = ["gateway", "tool-runner"] as const;
type Watched = (typeof watched)[number];

const UploadAnswer = z.object({ success: z.literal(true), file: FileRevision });
const ListingAnswer = z.object({ success: z.literal(true), files: z.array(FileListing), bytes: z.number() });

/** CPU used by the services, nats-server and this process (the client), in ms */
type CpuFigure = Record<Watched | "nats-server" | "client", number>;

interface UploadFigure {
  sizeMb: number;
  round: number;
  /** the wait for both processes to come to rest before it */
  restedMs: number;
  wallMs: number;
  megabytesPerSecond: number;
  revision: number;
  stored: { size: number; sha256OfSent: boolean };
  beforeKiB: Record<Watched, number>;
  peakKiB: Record<Watched, number>;
  /** RSS when the answer had arrived */
  afterKiB: Record<Watched, number>;
  growthKiB: Record<Watched, number>;
  /** CPU spent during the upload by each process */
  cpuMs: CpuFigure;
  samples: number;
  maxGapMs: number;
}

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
const signedMib = (kib: number) => `${kib >= 0 ? "+" : "−"}${mib(Math.abs(kib))}`;
const median = (values: readonly number[]) => percentile(values, 0.5);

function readCpu(pids: Record<Watched | "nats-server", number>): CpuFigure {
  return { gateway: cpuMs(pids.gateway), "tool-runner": cpuMs(pids["tool-runner"]), "nats-server": cpuMs(pids["nats-server"]), client: cpuMs() };
}

function readRss(pids: Record<Watched, number>): Record<Watched, number> {
  return { gateway: rssKiB(pids.gateway), "tool-runner": rssKiB(pids["tool-runner"]) };
}

function peaks(trace: RssTrace, before: Record<Watched, number>): Record<Watched, number> {
  // the reading just before counts too: a window whose samples all fell below it grew by nothing
  return { gateway: Math.max(before.gateway, trace.peakKiB["gateway"] ?? 0), "tool-runner": Math.max(before["tool-runner"], trace.peakKiB["tool-runner"] ?? 0) };
}

/** One upload of `sizeMb` MB with both processes sampled; throws unless it was stored as sent. */
async function sampledUpload(gatewayUrl: string, pids: Record<Watched | "nats-server", number>, sizeMb: number, round: number): Promise<UploadFigure> {
  const size = sizeMb * 1e6;
  const watchedPids = { gateway: pids.gateway, "tool-runner": pids["tool-runner"] };
  const restedMs = await waitForRestingRss(watchedPids, rest);
  const beforeKiB = readRss(watchedPids);
  const sampler = await startRssSampler(watchedPids, sampleIntervalMs);
  const cpuBefore = readCpu(pids);
  const upload = await putGenerated(`${gatewayUrl}/api/projects/${project}/files/inputs/big-${sizeMb}.bin`, size, `bench-upload ${sizeMb} MB round ${round}`);
  const cpuAfter = readCpu(pids);
  const trace = await sampler.stop();
  const answer = UploadAnswer.safeParse(upload.answer);
  if (upload.status >= 300 || !answer.success) throw new Error(`the ${sizeMb} MB upload failed (HTTP ${upload.status}): ${JSON.stringify(upload.answer).slice(0, 500)}`);
  const { file } = answer.data;
  if (file.size !== size || file.sha256 !== upload.sha256) throw new Error(`the ${sizeMb} MB upload was stored as ${file.size} bytes with sha256 ${file.sha256}; sent ${size} bytes with ${upload.sha256}`);
  const peakKiB = peaks(trace, beforeKiB);
  return {
    sizeMb,
    round,
    restedMs,
    wallMs: upload.wallMs,
    megabytesPerSecond: sizeMb / (upload.wallMs / 1000),
    revision: file.revision,
    stored: { size: file.size, sha256OfSent: true },
    beforeKiB,
    peakKiB,
    afterKiB: { gateway: trace.lastKiB["gateway"] ?? Number.NaN, "tool-runner": trace.lastKiB["tool-runner"] ?? Number.NaN },
    growthKiB: { gateway: peakKiB.gateway - beforeKiB.gateway, "tool-runner": peakKiB["tool-runner"] - beforeKiB["tool-runner"] },
    cpuMs: { gateway: cpuAfter.gateway - cpuBefore.gateway, "tool-runner": cpuAfter["tool-runner"] - cpuBefore["tool-runner"], "nats-server": cpuAfter["nats-server"] - cpuBefore["nats-server"], client: cpuAfter.client - cpuBefore.client },
    samples: trace.samples,
    maxGapMs: trace.maxGapMs,
  };
}

async function listing(gatewayUrl: string, prefix?: string) {
  const response = await fetch(`${gatewayUrl}/api/projects/${project}/files${prefix === undefined ? "" : `?prefix=${encodeURIComponent(prefix)}`}`);
  const answer = ListingAnswer.safeParse(await response.json());
  if (!answer.success) throw new Error(`listing the project's files failed (HTTP ${response.status})`);
  return answer.data;
}

/** Figures of one size over its rounds: median wall time, and each process's largest and median growth. */
function bySize(figures: readonly UploadFigure[], sizeMb: number) {
  const rounds = figures.filter((figure) => figure.sizeMb === sizeMb);
  const growth = (name: Watched) => rounds.map((figure) => figure.growthKiB[name]);
  const wallMs = median(rounds.map((figure) => figure.wallMs));
  const cpuPer100Mb = (name: keyof CpuFigure) => median(rounds.map((figure) => (figure.cpuMs[name] * 100) / figure.sizeMb));
  return {
    sizeMb,
    rounds: rounds.length,
    cpuMsPer100Mb: { gateway: cpuPer100Mb("gateway"), "tool-runner": cpuPer100Mb("tool-runner"), "nats-server": cpuPer100Mb("nats-server"), client: cpuPer100Mb("client") },
    wallMs,
    megabytesPerSecond: sizeMb / (wallMs / 1000),
    largestGrowthKiB: { gateway: Math.max(...growth("gateway")), "tool-runner": Math.max(...growth("tool-runner")) },
    medianGrowthKiB: { gateway: median(growth("gateway")), "tool-runner": median(growth("tool-runner")) },
    largestPeakKiB: { gateway: Math.max(...rounds.map((figure) => figure.peakKiB.gateway)), "tool-runner": Math.max(...rounds.map((figure) => figure.peakKiB["tool-runner"])) },
  };
}

export async function measureUploads(context: BenchContext): Promise<MeasureReport> {
  // no prefix: the processes take the real subjects and connect as their own users of deploy/nats' config;
  // LOG_LEVEL warn, because the harness learns the gateway's URL from its "listening" warning
  const env = benchEnv({ natsUrl: context.nats.url, modelUrl: context.model.url, bmadRoot: context.tree.root, outputRoot: context.outputRoot });
  const system = await startServiceProcesses({ ...env, LOG_LEVEL: "warn" });
  const pidOf = (name: Watched) => (system.processes.find((service: ServiceProcess) => service.name === name)?.child.pid ?? -1);
  const pids: Record<Watched, number> = { gateway: pidOf("gateway"), "tool-runner": pidOf("tool-runner") };
  const cpuPids = { ...pids, "nats-server": context.nats.pid };
  try {
    const startKiB = readRss(pids);
    // the first upload pays for opening the stores, the first JIT and the heaps' first growth: not counted
    const warmup = await sampledUpload(system.url, cpuPids, sizesMb[0], 0);
    const figures: UploadFigure[] = [];
    for (let round = 1; round <= repetitions; round += 1) {
      for (const sizeMb of sizesMb) figures.push(await sampledUpload(system.url, cpuPids, sizeMb, round));
    }

    const inputs = await listing(system.url, "inputs/");
    const lastSent = new Map(figures.map((figure) => [`inputs/big-${figure.sizeMb}.bin`, figure]));
    const listedRight = sizesMb.every((sizeMb) => inputs.files.some((file) => file.path === `inputs/big-${sizeMb}.bin` && file.size === sizeMb * 1e6 && file.revision === lastSent.get(file.path)?.revision));

    const whole = await listing(system.url);
    await waitForRestingRss(pids, rest);
    const archiveBeforeKiB = readRss(pids);
    const sampler = await startRssSampler(pids, sampleIntervalMs);
    const archiveCpuBefore = cpuMs(pids.gateway);
    const download = await downloadSlowly(`${system.url}/api/projects/${project}/archive`, readPace);
    const archiveCpuMs = cpuMs(pids.gateway) - archiveCpuBefore;
    const archiveTrace = await sampler.stop();
    const archivePeakKiB = peaks(archiveTrace, archiveBeforeKiB);
    const archiveGrowthKiB = archivePeakKiB.gateway - archiveBeforeKiB.gateway;
    // the contents are incompressible: the zip is their bytes, deflate's few bytes per block, and headers
    const archiveSane =
      download.status === 200 && download.zipEntries === whole.files.length && download.bytes >= whole.bytes && download.bytes <= whole.bytes * 1.01 + 1e6;
    const endKiB = readRss(pids);

    const sizes = sizesMb.map((sizeMb) => bySize(figures, sizeMb));
    const [smallest, , largest] = sizes as [ReturnType<typeof bySize>, ReturnType<typeof bySize>, ReturnType<typeof bySize>];
    const allowedKiB = (flatShare * (largest.sizeMb - smallest.sizeMb) * 1e6) / 1024;
    // judged on the highest RSS of the rounds, not on the growth: where one upload starts depends on where the last
    // garbage collection left the heap (readings before an upload ranged over 50 MiB in trial runs), which the
    // growth of a single upload carries whole, while the highest reading of each size is steady from run to run
    const flatRow = (name: Watched): MeasureRow => {
      const difference = largest.largestPeakKiB[name] - smallest.largestPeakKiB[name];
      const figure = (sizeFigures: ReturnType<typeof bySize>) =>
        `${mib(sizeFigures.largestPeakKiB[name])} (growth ${signedMib(sizeFigures.medianGrowthKiB[name])}) at ${sizeFigures.sizeMb} MB`;
      return {
        label: `${name}: RSS during an upload, ${smallest.sizeMb} MB against ${largest.sizeMb} MB: highest of ${repetitions} (median growth over the RSS just before)`,
        baseline: figure(smallest),
        system: figure(largest),
        result: `${signedMib(difference)} for ${largest.sizeMb - smallest.sizeMb} MB more`,
        target: `flat: ≤ +${mib(allowedKiB)} (${flatShare * 100} % of the extra bytes)`,
        met: difference <= allowedKiB,
      };
    };
    const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    return {
      id: 14,
      title: "uploads",
      method:
        `The four services as processes (node services/<name>/dist/main.js, as production runs them), nats-server with deploy/nats' config ` +
        `(max_payload 4 MiB). Raw uploads (PUT /api/projects/${project}/files/inputs/big-<n>.bin, node:http, Content-Length set, bytes generated ` +
        `chunk by chunk while written, waiting for drain) of ${sizesMb.join(", ")} MB, ${repetitions}× each interleaved by size after one ${sizesMb[0]} MB ` +
        `warm-up upload, each once both processes are at rest (RSS within ${rest.toleranceKiB / 1024} MiB for ${rest.windowMs / 1000} s, or ${rest.maxMs / 1000} s passed). The gateway's and the tool-runner's VmRSS (/proc/<pid>/status) sampled every ${sampleIntervalMs} ms from a ` +
        `worker thread from the request's first byte to its answer; growth = the peak against the reading just before that upload; the flat rows compare the highest reading of each size. Wall time = first ` +
        `byte sent to the answer (gateway staging the body in the file_uploads Object Store, then the tool-runner taking it into the contents store). ` +
        `Then GET /api/projects/${project}/archive read at ${readPace.bytesPerSecond / 1e6} MB/s at most, stalling ${readPace.stallMs / 1000} s every ${readPace.stallEveryBytes / 1e6} MB, the gateway sampled alike. Each answer's size and ` +
        `sha256 are checked against what was sent, the listing against the last upload of each path, the zip's length and entry count against the listing.`,
      rows: [
        ...sizes.map(
          (figures): MeasureRow => ({
            label: `upload of ${figures.sizeMb} MB (${figures.rounds}×): wall time p50, throughput; peak RSS growth (median)`,
            baseline: "—",
            system: `${formatMs(figures.wallMs)}, ${figures.megabytesPerSecond.toFixed(1)} MB/s`,
            result: `gateway ${signedMib(figures.medianGrowthKiB.gateway)}, tool-runner ${signedMib(figures.medianGrowthKiB["tool-runner"])}`,
          }),
        ),
        ...watched.map(flatRow),
        {
          label: `gateway: peak RSS growth while a ${megabytes(download.bytes)} zip of ${download.zipEntries ?? "?"} files is read at ≤ ${readPace.bytesPerSecond / 1e6} MB/s, stalling ${readPace.stallMs / 1000} s every ${readPace.stallEveryBytes / 1e6} MB`,
          baseline: mib(archiveBeforeKiB.gateway),
          system: `${mib(archivePeakKiB.gateway)} (${formatMs(download.wallMs)}, ${(download.bytes / 1e6 / (download.wallMs / 1000)).toFixed(1)} MB/s)`,
          result: `${signedMib(archiveGrowthKiB)}${archiveSane ? "" : `; ARCHIVE NOT SANE: HTTP ${download.status}, ${download.bytes} bytes, ${download.zipEntries ?? "no"} entries, listing ${whole.bytes} bytes in ${whole.files.length} files`}`,
          target: "flat: ≤ 10 % of the zip",
          met: archiveSane && archiveGrowthKiB * 1024 <= 0.1 * download.bytes,
        },
        {
          label: `stored as sent: ${figures.length + 1} uploads' size and sha256, the listing of inputs/`,
          baseline: "—",
          system: `${inputs.files.length} files, ${megabytes(inputs.bytes)} listed`,
          result: listedRight ? "all match" : "LISTING DIFFERS",
          target: "all match",
          met: listedRight,
        },
      ],
      details: {
        sizesMb,
        repetitions,
        sampleIntervalMs,
        rest,
        readPace,
        pids,
        rssAtStartKiB: startKiB,
        rssAtEndKiB: endKiB,
        warmup,
        uploads: figures,
        bySize: sizes,
        archive: { ...download, gatewayCpuMs: archiveCpuMs, beforeKiB: archiveBeforeKiB, peakKiB: archivePeakKiB, samples: archiveTrace.samples, maxGapMs: archiveTrace.maxGapMs, listedBytes: whole.bytes, listedFiles: whole.files.length },
      },
      notes: [
        `RSS at the start: gateway ${mib(startKiB.gateway)}, tool-runner ${mib(startKiB["tool-runner"])}; at the end: gateway ${mib(endKiB.gateway)}, tool-runner ${mib(endKiB["tool-runner"])}. ` +
          `The warm-up upload (${sizesMb[0]} MB, not counted) grew them by ${signedMib(warmup.growthKiB.gateway)} and ${signedMib(warmup.growthKiB["tool-runner"])}.`,
        ...sizes.map(
          (figures) =>
            `${figures.sizeMb} MB: largest growth gateway ${signedMib(figures.largestGrowthKiB.gateway)}, tool-runner ${signedMib(figures.largestGrowthKiB["tool-runner"])}; ` +
            `largest peak gateway ${mib(figures.largestPeakKiB.gateway)}, tool-runner ${mib(figures.largestPeakKiB["tool-runner"])}.`,
        ),
        `The archive: the gateway spent ${formatMs(archiveCpuMs)} of CPU on the ${megabytes(download.bytes)} zip (reading the contents and deflating them).`,
        `Across the ${figures.length} counted uploads the RSS stayed between ${watched
          .map((name) => `${mib(Math.min(...figures.map((figure) => figure.beforeKiB[name])))} and ${mib(Math.max(...figures.map((figure) => figure.peakKiB[name])))} (${name})`)
          .join(", ")}, whatever the size; the growth of one upload depends on where the last garbage collection left its heap.`,
        ...sizes.map(
          (figures) =>
            `CPU per 100 MB uploaded (${figures.sizeMb} MB files, median): gateway ${formatMs(figures.cpuMsPer100Mb.gateway)}, tool-runner ${formatMs(figures.cpuMsPer100Mb["tool-runner"])}, ` +
            `nats-server ${formatMs(figures.cpuMsPer100Mb["nats-server"])}, this process (generating, hashing, sending) ${formatMs(figures.cpuMsPer100Mb.client)}.`,
        ),
        `Sampling: ${Math.min(...figures.map((figure) => figure.samples))}–${Math.max(...figures.map((figure) => figure.samples))} samples per upload, the longest gap between two ` +
          `${formatMs(Math.max(...figures.map((figure) => figure.maxGapMs), archiveTrace.maxGapMs))}; a peak shorter than that can be missed.`,
        `The bytes are generated and hashed in this process (the client), whose memory is not counted; the services of the other measures ` +
          `(prefix bench.) run idle in this process meanwhile.`,
      ],
    };
  } catch (error) {
    // the services' own account of a failure is in their logs: the last warnings and errors go with it
    const logged = system.processes.flatMap((service) => service.lines.filter((line) => Number(line["level"]) >= 40).slice(-3).map((line) => `${service.name}: ${JSON.stringify(line).slice(0, 600)}`));
    throw new Error(`${error instanceof Error ? error.message : String(error)}${logged.length > 0 ? `; logs: ${logged.join(" | ")}` : ""}`, { cause: error });
  } finally {
    await system.stop();
    await removeStoredData(context.nats.url);
  }
}
