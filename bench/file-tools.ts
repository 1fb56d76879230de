/**
 * Measure 13 (bench/README.md "File tools at BMAD's grain (measure 13)"): the file tools at the grain BMAD's instructions assume, through the real system.
 * - A ten-step PRD workflow (bench/support/prd-workflow.ts) as ten chat turns through the gateway, orchestrator
 *   and tool-runner: the whole document saved at every step, against the new section appended and the front
 *   matter edited. Output tokens from the usage the system records; wall time with the scripted model's output
 *   paced at a stated rate, since output is what a real model is slow at. Both runs must leave the same bytes.
 * - `find_files` over a project of 10,000 files, against ripgrep (or find) over the same files on disk.
 * - `search_files` over 50 MB of text, literal and regex, cold (a tool-runner that caches no content) and warm
 *   (every content in the tool-runner's cache), against `rg -n` (or `grep -rn`) on disk; the hits must match.
 * The tools are called as the orchestrator calls them (`tool.<name>` over NATS to the tool-runner), on a system
 * of this measure's own (prefix `benchft.`): PROJECT_MAX_FILES 20,000 (its largest) so the project can hold
 * 10,000 files, FILE_CACHE_MB 256 so 60 MB of contents stay cached; nats-server's max_payload is the 4 MiB of
 * deploy/nats, which the 10,000-file index (one KV value) fits in.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { NatsConnection } from "nats";
import { connectNats, createLogger } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, serviceNames, type ToolContext, type ToolName } from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema, ToolClient, toolWaitsOf } from "@agent-orchestrator/orchestrator";
import { startHttpModel, type HttpModel } from "@agent-orchestrator/testing/http-model";
import type { BenchContext } from "./support/bench-context.js";
import { pick } from "./support/bench-settings.js";
import { startBenchSystem, type BenchSystem } from "./support/bench-system.js";
import { diskTools, findOnDisk, searchOnDisk } from "./support/disk-search.js";
import { createWorkflowResponder, runDocumentWorkflow, type WorkflowResponder, type WorkflowRun } from "./support/document-workflow.js";
import { findProjectDocuments, findProjectFiles, findQueries } from "./support/find-project.js";
import { interleave, timed } from "./support/interleave.js";
import { formatMs, formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { percentile } from "./support/percentile.js";
import { finalDocument, workflowSteps } from "./support/prd-workflow.js";
import { searchCorpusDocuments, searchQueries } from "./support/search-corpus.js";
import { seedProject, writeTree } from "./support/seeded-project.js";
import { settings } from "./support/service-settings.js";

// 10× a hosted model's 50 tokens a second keeps the two paced runs near a minute
const outputTokensPerSecond = pick(500, 2_000);
const findSamples = pick(50, 10);
const searchSamples = pick(20, 5);
const coldSamples = pick(5, 2);
const warmup = pick(5, 2);
const prefixes = { warm: "benchft.", cold: "benchftcold." };
const projects = { find: "bench-find", search: "bench-search" };

interface Side {
  p50: number;
  p95: number;
}

const side = (samples: readonly number[]): Side => ({ p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) });
const pair = (figures: Side) => `${formatMs(figures.p50)} / ${formatMs(figures.p95)}`;

/** A line of the baseline on disk against the tool, p50 / p95 each, with the ratio of the p50s and a target of `factor`× the baseline. */
function timingRow(label: string, disk: Side, tool: Side, counts: { disk: number; tool: number }, factor?: number): MeasureRow {
  const agree = counts.disk === counts.tool;
  return {
    label: `${label}, p50 / p95`,
    baseline: pair(disk),
    system: pair(tool),
    result: `${formatRatio(tool.p50 / disk.p50)} (p50)${agree ? "" : `; COUNTS DIFFER: ${counts.tool} found, ${counts.disk} on disk`}`,
    ...(factor === undefined ? {} : { target: `≤ ${factor}× the baseline`, met: agree && tool.p50 <= factor * disk.p50 }),
  };
}

interface FindReply {
  files: unknown[];
  total: number;
  truncated: boolean;
}

interface SearchReply {
  hits: string[];
  files_searched: number;
  files_matched: number;
  truncated: boolean;
}

/** A tool as the orchestrator calls it (`tool.<name>` over NATS) in one project; throws when the call fails. */
type ProjectTool = <T>(name: ToolName, args: Record<string, unknown>) => Promise<T>;

function projectTool(connection: NatsConnection, system: BenchSystem, prefix: string, projectId: string): ProjectTool {
  const client = new ToolClient(connection, toolWaitsOf(settings(orchestratorEnvSchema, system.env)), prefix);
  const toolContext: ToolContext = { session_id: "bench-file-tools", bundle_path: "bmad/custom/bundles/bench-suite", project_id: projectId, user: "bench", agent_id: "bench-agent" };
  return async <T>(name: ToolName, args: Record<string, unknown>) => {
    const reply = await client.call(name, randomUUID(), toolContext, args);
    // a failing tool must not pass for a fast one
    if (!reply.success) throw new Error(`${name} failed: ${JSON.stringify(reply.error)}`);
    return reply as T;
  };
}

/** The workflow in both modes: once unpaced (the system's own time, and a warm-up), then paced. */
async function workflowRuns(system: BenchSystem, agentId: string, model: HttpModel, responder: WorkflowResponder): Promise<WorkflowRun[]> {
  const runs: WorkflowRun[] = [];
  for (const pace of [0, outputTokensPerSecond]) {
    responder.outputTokensPerSecond = pace;
    for (const mode of ["whole", "edits"] as const) {
      runs.push(await runDocumentWorkflow(system, agentId, mode));
      model.requests.length = 0;
    }
  }
  if (responder.failures.length > 0) throw new Error(`the workflow's tool calls failed ${responder.failures.length} times; first: ${responder.failures[0]}`);
  return runs;
}

/** Each glob: the files found by both sides, and their times, alternating. */
async function findFigures(tool: ProjectTool, folder: string) {
  const figures = [];
  for (const query of findQueries) {
    const counts = { disk: await findOnDisk(folder, query), tool: (await tool<FindReply>("find_files", { pattern: query.glob })).total };
    const samples = await interleave(
      { disk: () => timed(() => findOnDisk(folder, query)), tool: () => timed(() => tool("find_files", { pattern: query.glob })) },
      { warmup, samples: findSamples },
    );
    figures.push({ query: query.glob, counts, disk: side(samples.disk), tool: side(samples.tool) });
  }
  return figures;
}

/** Each search: the warm tool-runner's first call (its cache still empty), then warm and cold samples against the disk's. */
async function searchFigures(warmTool: ProjectTool, coldTool: ProjectTool, folder: string) {
  const figures = [];
  for (const query of searchQueries) {
    const args = { pattern: query.pattern, literal: query.literal };
    const firstStarted = performance.now();
    const first = await warmTool<SearchReply>("search_files", args);
    const firstMs = performance.now() - firstStarted;
    const counts = { disk: await searchOnDisk(folder, query), tool: first.hits.length };
    const warm = await interleave(
      { disk: () => timed(() => searchOnDisk(folder, query)), tool: () => timed(() => warmTool("search_files", args)) },
      { warmup, samples: searchSamples },
    );
    const cold = await interleave(
      { disk: () => timed(() => searchOnDisk(folder, query)), tool: () => timed(() => coldTool("search_files", args)) },
      { warmup: 0, samples: coldSamples },
    );
    const { hits, ...reply } = first;
    figures.push({ query: query.name, planted: query.expectedHits, counts, reply: { ...reply, firstHits: hits.slice(0, 3) }, firstMs, warm: { disk: side(warm.disk), tool: side(warm.tool) }, cold: { disk: side(cold.disk), tool: side(cold.tool) } });
  }
  return figures;
}

export async function measureFileTools(context: BenchContext): Promise<MeasureReport> {
  const responder = createWorkflowResponder();
  const model = await startHttpModel({ responder: (request) => responder.respond(request) });
  const root = await mkdtemp(path.join(tmpdir(), "bench-file-tools-"));
  const connection = await connectNats({ url: context.nats.url, service: serviceNames.orchestrator, logger: createLogger("bench", "silent"), credentials: null });
  const systems: BenchSystem[] = [];
  const start = async (prefix: string, cacheMb: number) => {
    const overrides = { PROJECT_MAX_FILES: "20000", FILE_CACHE_MB: String(cacheMb) };
    const system = await startBenchSystem({ natsUrl: context.nats.url, modelUrl: model.url, bmadRoot: context.tree.root, outputRoot: context.outputRoot, prefix, orchestrator: "in-process", overrides });
    systems.push(system);
    return system;
  };
  try {
    const system = await start(prefixes.warm, 256);
    const runs = await workflowRuns(system, context.tree.sessionAgent, model, responder);
    const [instantWhole, instantEdits, whole, edits] = runs as [WorkflowRun, WorkflowRun, WorkflowRun, WorkflowRun];
    const expected = finalDocument();
    const identical = runs.every((run) => run.document === expected);

    const findDocuments = findProjectDocuments();
    const findBytes = await seedProject(system.files, projects.find, findDocuments);
    await writeTree(path.join(root, "find"), findDocuments);
    const finds = await findFigures(projectTool(connection, system, prefixes.warm, projects.find), path.join(root, "find"));

    // the same 50 MB in a second system whose tool-runner caches nothing: every call of it is a first call
    const corpus = searchCorpusDocuments();
    const coldSystem = await start(prefixes.cold, 0);
    const searchBytes = await seedProject(system.files, projects.search, corpus);
    await seedProject(coldSystem.files, projects.search, corpus);
    await writeTree(path.join(root, "search"), corpus);
    const searches = await searchFigures(
      projectTool(connection, system, prefixes.warm, projects.search),
      projectTool(connection, coldSystem, prefixes.cold, projects.search),
      path.join(root, "search"),
    );

    const tokenRatio = whole.outputTokens / edits.outputTokens;
    const wallRatio = whole.wallMs / edits.wallMs;
    const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    return {
      id: 13,
      title: "file tools at BMAD's grain",
      method:
        `A PRD written in ${workflowSteps} steps (front matter with stepsCompleted and status, ten sections of 1.1–2 KB; ${expected.length} bytes at the end) as ` +
        `${workflowSteps} turns of one chat through the gateway, orchestrator and tool-runner, the scripted model making one tool call per model call: ` +
        `baseline = save_output of the whole document at every step; system = save_output mode "append" of the section and edit_file of stepsCompleted ` +
        `(and of status: draft → final at the end). Output tokens are the completion tokens the system records from the scripted model's usage ` +
        `(four characters a token of the tool names, arguments and text it produced); wall time is the ten turns added up with the model's output ` +
        `paced at ${outputTokensPerSecond} tokens/s (${outputTokensPerSecond / 50}× a 50 tokens/s model, whose paced part of each time would be that much longer), ` +
        `after one unpaced run of each. find_files: ${findProjectFiles.toLocaleString("en")} files (${megabytes(findBytes)}) in a project of the store ` +
        `(PROJECT_MAX_FILES raised to 20,000; the index fits deploy/nats' max_payload of 4 MiB), called over NATS as the orchestrator calls it, ` +
        `${findSamples} samples per glob after ${warmup} warm-up rounds against \`${diskTools.find}\` on the same files on disk (page cache warm), alternating. ` +
        `search_files: ${corpus.length.toLocaleString("en")} files, ${megabytes(searchBytes)}, against \`${diskTools.search}\` on disk; warm = ` +
        `contents in the tool-runner's cache (FILE_CACHE_MB 256), ${searchSamples} samples after ${warmup} warm-up rounds; cold = a second system whose ` +
        `tool-runner caches nothing (FILE_CACHE_MB 0, every content from the Object Store), ${coldSamples} samples. Targets: incremental output at most a ` +
        `third of whole-file; find_files within 2× and a warm search_files within 3× of the native tool (JavaScript against C/Rust), and the same counts.`,
      rows: [
        {
          label: `PRD in ${workflowSteps} steps: output tokens, all model calls`,
          baseline: String(whole.outputTokens),
          system: String(edits.outputTokens),
          result: `${formatRatio(tokenRatio)} fewer`,
          target: "≤ 1/3 of whole-file",
          met: edits.outputTokens * 3 <= whole.outputTokens,
        },
        {
          label: `PRD in ${workflowSteps} steps: wall time, model output at ${outputTokensPerSecond} tokens/s`,
          baseline: `${(whole.wallMs / 1000).toFixed(1)} s`,
          system: `${(edits.wallMs / 1000).toFixed(1)} s`,
          result: `${formatRatio(wallRatio)} faster`,
          target: "≥ 2× faster",
          met: wallRatio >= 2,
        },
        {
          label: `PRD in ${workflowSteps} steps: prompt tokens sent, all model calls`,
          baseline: String(whole.inputTokens),
          system: String(edits.inputTokens),
          result: `${formatRatio(whole.inputTokens / edits.inputTokens)} fewer`,
        },
        {
          label: `PRD in ${workflowSteps} steps: the document read back from the project`,
          baseline: `${new TextEncoder().encode(whole.document).byteLength} bytes`,
          system: `${new TextEncoder().encode(edits.document).byteLength} bytes`,
          result: identical ? "byte-identical" : "DIFFERENT",
          target: "byte-identical",
          met: identical,
        },
        ...finds.map((find) =>
          timingRow(`find_files \`${find.query}\` over ${findProjectFiles.toLocaleString("en")} files (${find.counts.tool} found)`, find.disk, find.tool, find.counts, 2),
        ),
        ...searches.flatMap((search) => [
          timingRow(`search_files ${search.query} over ${megabytes(searchBytes)}, warm (${search.counts.tool} hits)`, search.warm.disk, search.warm.tool, search.counts, 3),
          timingRow(`search_files ${search.query} over ${megabytes(searchBytes)}, cold`, search.cold.disk, search.cold.tool, search.counts),
        ]),
      ],
      details: { outputTokensPerSecond, runs: runs.map(({ document: _document, ...figures }) => figures), finds, searches, findBytes, searchBytes, samples: { findSamples, searchSamples, coldSamples, warmup } },
      notes: [
        `Unpaced (the system's own time, zero-latency model): whole-file ${formatMs(instantWhole.wallMs)}, edit/append ${formatMs(instantEdits.wallMs)} for the ${workflowSteps} turns; ` +
          `model calls ${whole.modelCalls} against ${edits.modelCalls} (edit/append makes two tool calls at each step after the first, three at the last, one model call each).`,
        `At ${outputTokensPerSecond} tokens/s the output alone takes ${(whole.outputTokens / outputTokensPerSecond).toFixed(1)} s (whole-file) and ${(edits.outputTokens / outputTokensPerSecond).toFixed(1)} s (edit/append); the rest of each wall time is the system.`,
        `Prompt tokens: every model call re-sends the chat so far, so with whole-file saves each earlier copy of the document is sent again at every later call.`,
        ...searches.map(
          (search) =>
            `search_files ${search.query}: ${search.counts.tool} hits (${search.counts.disk} lines from ${diskTools.search}, ${search.planted} planted), ` +
            `${search.reply.files_matched} files matched of ${search.reply.files_searched} searched; the warm tool-runner's first call (its cache still empty) took ${formatMs(search.firstMs)}.`,
        ),
      ],
    };
  } finally {
    for (const system of systems.reverse()) await system.stop();
    // 120 MB of JetStream data would slow the restart of measure 10: every stream and bucket of both systems goes
    const manager = await connection.jetstreamManager();
    const names = Object.values(prefixes).flatMap((prefix) => Object.values(jetStreamNames(prefix)).flatMap((name) => [name, `KV_${name}`, `OBJ_${name}`]));
    await Promise.all(names.map((name) => manager.streams.delete(name).catch(() => undefined)));
    await connection.drain();
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}
