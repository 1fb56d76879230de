/**
 * Measure 21 (bench/README.md "A repository of 1 GB (measure 21)"): issue 40 item 7, "a repository of 50,000 files
 * and 1 GB imports, and a turn's first command in it starts within 10 s on a warm tool-runner". A bundle of about
 * 1 GB (4,000 files of 256 KiB random bytes and 46,000 small source files, one commit) is attached through the
 * gateway (`PUT /api/projects/:id/repository`, the body streamed from disk) to the four services running as
 * processes; the gateway's and the tool-runner's resident memory are sampled during the import. Then chats run
 * `git status` through the scripted model's `run_command`: the first command after the import, the next turn's
 * in the same chat, a new chat's first command at once (the tool-runner's spare checkout still being made), and one
 * once the tool-runner is warm: its spare checkout of the default branch made (docs/repositories.md "A spare checkout").
 *
 * Opt-in, it takes minutes and about 6 GB of disk: `npx tsx bench/large-repository.ts` alone, or
 * `BENCH_LARGE=1 npm run bench` as measure 21. Every temporary file is removed at the end.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, rm, stat, statfs } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { startHttpModel } from "@agent-orchestrator/testing/http-model";
import { startSystem as startServiceProcesses, type ServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import type { BenchContext } from "./support/bench-context.js";
import { createBenchBmadTree } from "./support/bench-bmad-tree.js";
import { startBenchNats } from "./support/bench-nats.js";
import { benchEnv } from "./support/bench-env.js";
import { makeLargeBundle, type LargeBundleShape } from "./support/large-bundle.js";
import { formatMs, type MeasureReport } from "./support/measure-report.js";
import { formatResultsTable } from "./support/results-table.js";
import { peakRssKiB, rssKiB, startRssSampler } from "./support/rss-sampler.js";
import { collectVersions, describeMachine } from "./support/run-environment.js";
import { removeStoredData } from "./support/stored-data.js";

const shape: LargeBundleShape = { binaryFiles: 4_000, binaryBytes: 256 * 1024, sourceFiles: 46_000 };
const watched = ["gateway", "tool-runner"] as const;
// the orchestrator's wait for a command's checkout and persist (default 30 s): a first command on 1 GB makes a checkout of it
const toolTimeoutMs = 300_000;
type Watched = (typeof watched)[number];

const Attached = z.object({ success: z.literal(true), repository: z.object({ default_branch: z.string(), branches: z.array(z.object({ name: z.string(), head: z.string() })) }) });
const ChatAnswer = z.object({ session_id: z.string(), response: z.string() });
const CommandResult = z.object({ success: z.boolean(), exit_code: z.number().nullable(), stdout: z.string(), duration_ms: z.number() });

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;

/** Sends `file` as the raw body of `PUT url` (Content-Length set, read from disk as it is sent) and reads the answer. */
async function putFile(url: string, file: string, bytes: number, type: string): Promise<{ status: number; body: unknown; wallMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "PUT", headers: { "content-type": type, "content-length": String(bytes) } }, (response) => {
      const parts: Buffer[] = [];
      response.on("data", (part: Buffer) => parts.push(part));
      response.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text for the error
        }
        resolve({ status: response.statusCode ?? 0, body, wallMs: performance.now() - started });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    createReadStream(file).pipe(request);
  });
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** One turn asking the scripted model for `git status` through run_command: its wall time and the command's result. */
async function gitStatusTurn(gatewayUrl: string, agent: string, project: string, session?: string) {
  const started = performance.now();
  const message = `call run_command\n${JSON.stringify({ command: "git status --porcelain" })}`;
  const reply = await postJson(`${gatewayUrl}/api/chat`, { agent_id: agent, project_id: project, message, ...(session === undefined ? {} : { session_id: session }) });
  const wallMs = performance.now() - started;
  const answer = ChatAnswer.safeParse(reply.body);
  if (reply.status !== 200 || !answer.success) throw new Error(`the turn failed (HTTP ${reply.status}): ${JSON.stringify(reply.body).slice(0, 500)}`);
  const result = CommandResult.safeParse(JSON.parse(answer.data.response));
  if (!result.success || !result.data.success) throw new Error(`git status failed: ${answer.data.response.slice(0, 500)}`);
  return { session: answer.data.session_id, wallMs, commandMs: result.data.duration_ms, changed: result.data.stdout.trim() };
}

/** Measure 21 on the server at `natsUrl`, with a BMAD tree whose agent `agent` chats. */
export async function measureLargeRepositoryOn(natsUrl: string, bmadRoot: string, agent: string): Promise<MeasureReport> {
  const root = await mkdtemp(path.join(tmpdir(), "bench-large-repository-"));
  const model = await startHttpModel({ responder: toolCallResponder });
  let system: Awaited<ReturnType<typeof startServiceProcesses>> | undefined;
  try {
    const freeBefore = await freeBytes(root);
    const bundle = await makeLargeBundle(root, shape);
    // LOG_LEVEL warn: the harness learns the gateway's URL from its "listening" warning
    const env = { ...benchEnv({ natsUrl, modelUrl: model.url, bmadRoot, outputRoot: root }), LOG_LEVEL: "warn", COMMANDS: "on", REPOSITORY_CACHE_DIR: path.join(root, "cache"), TOOL_TIMEOUT_MS: String(toolTimeoutMs) };
    system = await startServiceProcesses(env);
    const { url } = system;
    const pidOf = (name: Watched) => system?.processes.find((service: ServiceProcess) => service.name === name)?.child.pid ?? -1;
    const pids: Record<Watched, number> = { gateway: pidOf("gateway"), "tool-runner": pidOf("tool-runner") };
    const created = await postJson(`${url}/api/projects`, { name: "Large" });
    const project = z.object({ project: z.object({ id: z.string() }) }).parse(created.body).project.id;

    const beforeKiB = { gateway: rssKiB(pids.gateway), "tool-runner": rssKiB(pids["tool-runner"]) };
    const sampler = await startRssSampler(pids, 50);
    const put = await putFile(`${url}/api/projects/${project}/repository`, bundle.file, bundle.bytes, "application/x-git-bundle");
    const trace = await sampler.stop();
    const hwmKiB = { gateway: peakRssKiB(pids.gateway), "tool-runner": peakRssKiB(pids["tool-runner"]) };
    const attached = Attached.safeParse(put.body);
    if (put.status !== 201 || !attached.success) throw new Error(`the import failed (HTTP ${put.status}): ${JSON.stringify(put.body).slice(0, 500)}`);
    const freeAfterImport = await freeBytes(root);

    const first = await gitStatusTurn(url, agent, project);
    const again = await gitStatusTurn(url, agent, project, first.session);
    const earlyStarted = Date.now();
    const early = await gitStatusTurn(url, agent, project);
    const spareMs = await spareMade(path.join(root, "cache"), project, earlyStarted);
    const other = await gitStatusTurn(url, agent, project);
    const freeLowest = await freeBytes(root);
    const peak = (name: Watched) => Math.max(trace.peakKiB[name] ?? 0, beforeKiB[name]);
    const turnRow = (label: string, turn: Awaited<ReturnType<typeof gitStatusTurn>>, target?: boolean) => ({
      label,
      baseline: "",
      system: `${formatMs(turn.wallMs)} (the command ${formatMs(turn.commandMs)})`,
      result: formatMs(turn.wallMs),
      ...(target ? { target: "≤ 10 s", met: turn.wallMs <= 10_000 } : {}),
    });
    return {
      id: 21,
      title: "A repository of 1 GB and 50,000 files",
      method:
        `A bundle of ${gb(bundle.bytes)} (${shape.binaryFiles.toLocaleString("en")} files of ${shape.binaryBytes / 1024} KiB random bytes, ${shape.sourceFiles.toLocaleString("en")} small source files, one commit; made with git fast-import in ${formatMs(bundle.makeMs)}) ` +
        `sent as the body of PUT /api/projects/:id/repository (node:http, Content-Length set, streamed from disk) to the four services as processes with their default settings but TOOL_TIMEOUT_MS ${toolTimeoutMs / 1000} s ` +
        "(nats-server with deploy/nats' config); the gateway's and the tool-runner's VmRSS sampled every 50 ms during the import, VmHWM read after it. " +
        "Then turns on the scripted model, each one run_command `git status --porcelain`: wall time of POST /api/chat, and the command's own duration_ms.",
      rows: [
        { label: `import of ${gb(bundle.bytes)}, ${bundle.files.toLocaleString("en")} files (PUT to 201)`, baseline: "", system: formatMs(put.wallMs), result: `${((bundle.bytes / 1e6) / (put.wallMs / 1000)).toFixed(1)} MB/s` },
        ...watched.map((name) => ({
          label: `${name}: peak RSS during the import (VmHWM since start)`,
          baseline: mib(beforeKiB[name]),
          system: `${mib(peak(name))} (${mib(hwmKiB[name])})`,
          result: `+${mib(peak(name) - beforeKiB[name])}`,
        })),
        turnRow("the first turn's git status after the import (its checkout made)", first),
        turnRow("the next turn's git status, same chat (warm)", again, true),
        turnRow("a new chat's first git status right after those turns (before a spare checkout is ready)", early),
        { label: "the next spare checkout made, after that turn", baseline: "", system: formatMs(spareMs), result: formatMs(spareMs) },
        turnRow("a new chat's first git status on the warm tool-runner (its spare checkout made)", other, true),
        { label: "disk used at the lowest point (bundle, store, cache)", baseline: "", system: gb(freeBefore - freeLowest), result: `after the import ${gb(freeBefore - freeAfterImport)}` },
      ],
      details: { shape, bundle, put: { status: put.status, wallMs: put.wallMs }, beforeKiB, trace, hwmKiB, first, again, early, spareMs, other, disk: { freeBefore, freeAfterImport, freeLowest } },
      notes: [
        "Memory should not follow the bundle: the gateway streams the body into the uploads Object Store, the tool-runner reads it from there straight into git index-pack, and the pack is stored chunk by chunk.",
        "Disk used also counts other work on the machine in the same moments; the bench removes its files at the end.",
      ],
    };
  } finally {
    await system?.stop();
    await model.close();
    await removeStoredData(natsUrl).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * How long from the call until the tool-runner's spare checkout of `project` is made (its `host/shown.json`, written
 * last, dated `since` or later: one the turn that started then took is no longer there), looked for every 100 ms in
 * the cache folder `cache` (`<process folder>/<project>.<generation>/checkouts/spare-<uuid>`).
 */
async function spareMade(cache: string, project: string, since: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 300_000) {
    for (const owner of await readdir(cache).catch(() => [])) {
      for (const key of await readdir(path.join(cache, owner)).catch(() => [])) {
        if (!key.startsWith(`${project}.`)) continue;
        const checkouts = path.join(cache, owner, key, "checkouts");
        for (const spare of (await readdir(checkouts).catch(() => [])).filter((name) => name.startsWith("spare-"))) {
          const made = await stat(path.join(checkouts, spare, "host", "shown.json")).catch(() => undefined);
          if (made && made.mtimeMs >= since) return Date.now() - started;
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the tool-runner made no spare checkout within 300 s");
}

async function freeBytes(folder: string): Promise<number> {
  const info = await statfs(folder);
  return info.bavail * info.bsize;
}

/** Measure 21 inside `BENCH_LARGE=1 npm run bench`, on the run's server and BMAD tree. */
export const measureLargeRepository = (context: BenchContext): Promise<MeasureReport> => measureLargeRepositoryOn(context.nats.url, context.tree.root, context.tree.sessionAgent);

/** Alone: a nats-server and a BMAD tree of its own, the measure, and its lines printed as `npm run bench` prints them. */
async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = describeMachine();
  const server = await startBenchNats();
  const tree = await createBenchBmadTree();
  try {
    const report = await measureLargeRepositoryOn(server.url, tree.root, tree.sessionAgent);
    const durationS = Math.round((Date.now() - startedAt.getTime()) / 1000);
    console.log(formatResultsTable({ startedAt: startedAt.toISOString(), durationS, quick: false, command: "npx tsx bench/large-repository.ts", machine: { ...machine, loadAverage1mAtEnd: describeMachine().loadAverage1m }, versions: collectVersions(), measures: [report] }));
  } finally {
    await tree.remove();
    await server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
