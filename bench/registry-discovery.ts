/**
 * Registry discovery benchmark (measure 6). For each size it generates that many bundles (two agents each,
 * one entry point) in a temp folder and measures, interleaving the two sides:
 * - cold discovery: a direct parse in this process (`AgentRegistry.rescan()` on an empty cache) against the
 *   registry service started cold (`startRegistry`: scan, register the endpoints) until its first
 *   `registry.agents.list` over NATS returns every agent;
 * - a warm re-scan with nothing changed;
 * - warm list: `listAgents()` in process against the gateway's agent list (`AgentList.current()`: the
 *   decoded, validated list and the response body `GET /api/agents` sends), warm: the registry announced no
 *   change since the gateway's last request; and `GET /api/agents` itself over loopback HTTP against a bare
 *   node:http server sending the same bytes (the cost of moving the body, which no cache removes);
 * - list after a change: what the gateway does once `registry.changed` dropped its list, one
 *   `registry.agents.list` over NATS, decoded and validated;
 * - change-to-visible: a new bundle written to disk until the watching registry lists it over NATS.
 *
 * Run alone: `npx tsx bench/registry-discovery.ts` (after `npx tsc -b`), with NATS_URL or a local nats-server.
 * `npm run bench` runs it as measure 6 with sizes 10, 100 and 1,000.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { connect, type NatsConnection } from "nats";
import { createLogger, decodeJson, encodeJson, requestJson } from "@agent-orchestrator/shared/runtime";
import { ListAgentsReply, subjects } from "@agent-orchestrator/shared/wire";
import { AgentRegistry, discoveryLimits, registryEnvSchema, startRegistry, type RunningRegistry } from "@agent-orchestrator/registry";
import { AgentList, gatewayEnvSchema, startGateway } from "@agent-orchestrator/gateway";
import type { BenchContext } from "./support/bench-context.js";
import { startBenchNats } from "./support/bench-nats.js";
import { pick } from "./support/bench-settings.js";
import { settings } from "./support/service-settings.js";
import { generateBundles, generatedEntryAgentId } from "./support/generated-bundles.js";
import { interleave, timed } from "./support/interleave.js";
import { formatAddedMs, formatMs, formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { summarize, type Summary } from "./support/stats.js";

export interface RegistryDiscoveryOptions {
  connection: NatsConnection;
  sizes: number[];
  /** cold rounds per size (each side) */
  coldRounds: number;
  /** list calls per size (each side) */
  listCalls: number;
  /** new bundles written per size for change-to-visible */
  changeSamples: number;
}

export interface RegistrySizeResult {
  bundles: number;
  agents: number;
  coldDirect: Summary;
  coldService: Summary;
  warmRescan: Summary;
  listInProcess: Summary;
  /** the gateway's agent list, warm */
  listWarm: Summary;
  /** GET /api/agents over loopback HTTP, warm */
  listHttp: Summary;
  /** the same bytes from a bare node:http server: what moving the body over loopback HTTP costs */
  listPlainHttp: Summary;
  /** one registry.agents.list over NATS, decoded and validated: the gateway's list after a change */
  listOverNats: Summary;
  /** bytes of one list reply, and the p50 time to decode and validate it (what the gateway does with it) */
  listReplyBytes: number;
  listDecodeMs: number;
  changeToVisible: Summary;
}

const logger = createLogger("registry-bench", "silent");

export async function measureRegistryDiscovery(options: RegistryDiscoveryOptions): Promise<RegistrySizeResult[]> {
  const results: RegistrySizeResult[] = [];
  for (const size of options.sizes) {
    const root = await mkdtemp(join(tmpdir(), "registry-bench-"));
    try {
      await generateBundles(root, size);
      results.push(await measureSize(options, root, size));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  return results;
}

async function measureSize(options: RegistryDiscoveryOptions, root: string, size: number): Promise<RegistrySizeResult> {
  const { connection } = options;
  const prefix = `bench-registry-${size}.`;
  const config = settings(registryEnvSchema, { BMAD_ROOT: root, REGISTRY_WATCH: "false" });
  const listOverNats = () => requestJson(connection, prefix + subjects.registryAgentsList, {}, ListAgentsReply, { timeoutMs: 10_000 });

  const cold = await interleave(
    {
      direct: () => timed(() => new AgentRegistry(root, discoveryLimits(config)).rescan()),
      service: async () => {
        const started = performance.now();
        const running = await startRegistry({ connection, config, logger, subjectPrefix: prefix });
        const reply = await listOverNats();
        const elapsed = performance.now() - started;
        await running.stop();
        if (!reply.success || reply.agents.length !== size) throw new Error(`the registry listed ${reply.success ? reply.agents.length : "an error"}, not ${size}`);
        return elapsed;
      },
    },
    { warmup: 1, samples: options.coldRounds },
  );

  const registry = new AgentRegistry(root, discoveryLimits(config));
  await registry.rescan();
  const rescans: number[] = [];
  for (let round = 0; round < 3; round++) rescans.push(await timed(() => registry.rescan()));
  const warmRescan = summarize(rescans);
  const running = await startRegistry({ connection, config, logger, subjectPrefix: prefix });
  const gatewayList = new AgentList({ connection, config: settings(gatewayEnvSchema, {}), subjectPrefix: prefix }, logger);
  const gateway = await startGateway({ connection, config: settings(gatewayEnvSchema, { PORT: "0", RATE_LIMIT_PER_MINUTE: "1000000" }), logger, subjectPrefix: prefix });
  const getAgents = async (url = gateway.url) => {
    const response = await fetch(`${url}/api/agents`);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET /api/agents answered ${response.status}`);
  };
  // the floor of the HTTP row: a bare node:http server sending the very bytes the gateway sends
  const body = Buffer.from(await (await fetch(`${gateway.url}/api/agents`)).arrayBuffer());
  const plain = createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(body));
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  const list = await interleave(
    {
      // timed synchronously: an await would add more than the call itself costs
      inProcess: async () => {
        const started = performance.now();
        registry.listAgents();
        return performance.now() - started;
      },
      warm: () => timed(() => gatewayList.current()),
      http: () => timed(getAgents),
      plainHttp: () => timed(() => getAgents(plainUrl)),
      overNats: () => timed(listOverNats),
    },
    { warmup: Math.min(100, options.listCalls), samples: options.listCalls },
  );
  gatewayList.close();
  await gateway.stop();
  await new Promise((resolve) => plain.close(resolve));
  const raw = await connection.request(prefix + subjects.registryAgentsList, encodeJson({}), { timeout: 10_000 });
  const decodes: number[] = [];
  for (let round = 0; round < 200; round++) {
    const started = performance.now();
    decodeJson(raw.data, ListAgentsReply);
    decodes.push(performance.now() - started);
  }
  await running.stop();

  const changeToVisible = await measureChangeToVisible(options, root, size, prefix);
  return {
    bundles: size,
    agents: registry.listAgents().length,
    coldDirect: summarize(cold.direct),
    coldService: summarize(cold.service),
    warmRescan,
    listInProcess: summarize(list.inProcess),
    listWarm: summarize(list.warm),
    listHttp: summarize(list.http),
    listPlainHttp: summarize(list.plainHttp),
    listOverNats: summarize(list.overNats),
    listReplyBytes: raw.data.length,
    listDecodeMs: summarize(decodes).p50,
    changeToVisible,
  };
}

/** Writes a new bundle and times until the watching registry lists its agent over NATS. */
async function measureChangeToVisible(options: RegistryDiscoveryOptions, root: string, size: number, prefix: string): Promise<Summary> {
  const config = settings(registryEnvSchema, { BMAD_ROOT: root, REGISTRY_WATCH: "true" });
  const running: RunningRegistry = await startRegistry({ connection: options.connection, config, logger, subjectPrefix: `${prefix}watch.` });
  const samples: number[] = [];
  try {
    for (let sample = 0; sample < options.changeSamples; sample++) {
      const index = size + sample;
      const started = performance.now();
      await generateBundles(root, 1, index);
      await waitUntilListed(options.connection, `${prefix}watch.`, generatedEntryAgentId(index));
      samples.push(performance.now() - started);
    }
  } finally {
    await running.stop();
  }
  return summarize(samples);
}

/** Waits for `registry.changed` events until a list shows `agentId` (10 s at most). */
async function waitUntilListed(connection: NatsConnection, prefix: string, agentId: string): Promise<void> {
  const changes = connection.subscribe(prefix + subjects.registryChanged, { timeout: 10_000 });
  try {
    for await (const _change of changes) {
      const reply = await requestJson(connection, prefix + subjects.registryAgentsList, {}, ListAgentsReply, { timeoutMs: 10_000 });
      if (reply.success && reply.agents.some((agent) => agent.id === agentId)) return;
    }
  } finally {
    changes.unsubscribe();
  }
  throw new Error(`${agentId} did not become visible`);
}

/** Measure 6 as table lines: the targets are "warm list ≤ 1 ms" and "1,000 bundles cold ≤ 1 s". */
export function registryReport(results: RegistrySizeResult[], options: Omit<RegistryDiscoveryOptions, "connection" | "sizes">): MeasureReport {
  const rows: MeasureRow[] = [];
  for (const result of results) {
    const coldTarget = result.bundles === 1000 ? { target: "≤ 1 s", met: result.coldService.p50 <= 1000 } : {};
    rows.push({
      label: `cold discovery, ${result.bundles} bundles, p50`,
      baseline: formatMs(result.coldDirect.p50),
      system: formatMs(result.coldService.p50),
      result: formatRatio(result.coldService.p50 / result.coldDirect.p50),
      ...coldTarget,
    });
  }
  for (const result of results) {
    rows.push({
      label: `warm list, ${result.bundles} bundles, p50 / p99`,
      baseline: `${formatMs(result.listInProcess.p50)} / ${formatMs(result.listInProcess.p99)}`,
      system: `${formatMs(result.listWarm.p50)} / ${formatMs(result.listWarm.p99)}`,
      result: formatMs(result.listWarm.p50),
      target: "≤ 1 ms",
      met: result.listWarm.p50 <= 1,
    });
  }
  for (const result of results) {
    rows.push({
      label: `warm GET /api/agents over HTTP vs a bare server sending the same bytes, ${result.bundles} bundles, p50 / p99`,
      baseline: `${formatMs(result.listPlainHttp.p50)} / ${formatMs(result.listPlainHttp.p99)}`,
      system: `${formatMs(result.listHttp.p50)} / ${formatMs(result.listHttp.p99)}`,
      result: formatAddedMs(result.listHttp.p50 - result.listPlainHttp.p50),
      target: "≤ 1 ms added",
      met: result.listHttp.p50 - result.listPlainHttp.p50 <= 1,
    });
  }
  for (const result of results) {
    rows.push({
      label: `list after a change, ${result.bundles} bundles, p50 / p99`,
      baseline: `${formatMs(result.listInProcess.p50)} / ${formatMs(result.listInProcess.p99)}`,
      system: `${formatMs(result.listOverNats.p50)} / ${formatMs(result.listOverNats.p99)}`,
      result: formatMs(result.listOverNats.p50),
    });
  }
  for (const result of results) {
    rows.push({
      label: `change-to-visible, ${result.bundles} bundles, p50 / max`,
      baseline: "—",
      system: `${formatMs(result.changeToVisible.p50)} / ${formatMs(result.changeToVisible.max)}`,
      result: formatMs(result.changeToVisible.p50),
    });
  }
  return {
    id: 6,
    title: "registry discovery",
    method:
      `Generated bundles (2 agents each) in a temp folder. Cold: direct parse (AgentRegistry.rescan on an empty cache, in process) vs the registry ` +
      `service started cold until its first list over NATS returns every agent, ${options.coldRounds} rounds each, interleaved. Warm list: ` +
      `listAgents() in process vs the gateway's agent list (AgentList.current() in this process on the registry's subjects: the ` +
      `decoded, validated list and the JSON body GET /api/agents sends), warm: the registry announced no change since its last ` +
      `request, so nothing goes over NATS. Warm GET /api/agents: the same through a gateway started in this process (fetch over ` +
      `loopback HTTP with keep-alive, the whole body read) against a bare node:http server sending the very same bytes: what the ` +
      `gateway adds to moving the body. List after a change: what the ` +
      `gateway does once registry.changed dropped its list, i.e. one registry.agents.list over NATS (the registry keeps the reply ` +
      `encoded per scan), decoded and validated with zod. The five interleaved, ` +
      `${options.listCalls} calls each. ` +
      `Change-to-visible: a new bundle written until the watching registry (fs.watch, 100 ms debounce, the default) lists it, ${options.changeSamples} samples.`,
    rows,
    details: { sizes: results, ...options },
    notes: [
      "Cold means an empty registry cache; the OS file cache is warm for both sides (the files were just written).",
      "The list over NATS (after a change) carries every listed agent (one entry point per bundle), so it grows with the size; the in-process list only returns an array it already holds. " +
        `Reply size and the time to decode and validate it (zod, as the gateway does): ${results
          .map((result) => `${result.bundles} bundles ${(result.listReplyBytes / 1024).toFixed(1)} KiB, ${formatMs(result.listDecodeMs)}`)
          .join("; ")}.`,
      `Warm GET /api/agents is the HTTP round trip (fetch and Express on one loopback connection) plus moving the body: ${results
        .map((result) => `${result.bundles} bundles ${formatMs(result.listHttp.p50)}`)
        .join(", ")} at p50.`,
      "Change-to-visible includes the 100 ms debounce (REGISTRY_DEBOUNCE_MS) that lets one save or checkout be one re-scan.",
    ],
  };
}

/** Measure 6 inside `npm run bench`: sizes 10, 100 and 1,000 on the run's server. */
export async function measureRegistry(context: BenchContext): Promise<MeasureReport> {
  const options = { coldRounds: pick(5, 2), listCalls: pick(2_000, 300), changeSamples: pick(10, 3) };
  const connection = await connect({ servers: context.nats.url });
  try {
    return registryReport(await measureRegistryDiscovery({ connection, sizes: [10, 100, 1000], ...options }), options);
  } finally {
    await connection.drain();
  }
}

/** The CLI: the original table of this benchmark, for 10, 100, 500 and 1,000 bundles. */
async function main(): Promise<void> {
  const server = process.env["NATS_URL"] ? undefined : await startBenchNats();
  const connection = await connect({ servers: process.env["NATS_URL"] ?? server?.url });
  const options = { coldRounds: 3, listCalls: 2000, changeSamples: 5 };
  try {
    const results = await measureRegistryDiscovery({ connection, sizes: [10, 100, 500, 1000], ...options });
    const header = ["bundles", "agents", "cold direct ms", "cold service ms", "warm re-scan ms", "list p50 µs", "list p99 µs", "gateway list p50 ms", "GET /api/agents p50 ms", "NATS list p50 ms", "NATS list p99 ms", "change→visible ms"];
    const rows = results.map((result) => [
      String(result.bundles),
      String(result.agents),
      result.coldDirect.p50.toFixed(1),
      result.coldService.p50.toFixed(1),
      result.warmRescan.p50.toFixed(2),
      (result.listInProcess.p50 * 1000).toFixed(2),
      (result.listInProcess.p99 * 1000).toFixed(2),
      result.listWarm.p50.toFixed(3),
      result.listHttp.p50.toFixed(3),
      result.listOverNats.p50.toFixed(3),
      result.listOverNats.p99.toFixed(3),
      result.changeToVisible.p50.toFixed(0),
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
    const line = (cells: string[]) => cells.map((cell, column) => cell.padStart(widths[column] ?? 0)).join("  ");
    console.log(`registry discovery (node ${process.version}, ${options.listCalls} list calls per size)`);
    console.log(line(header));
    for (const row of rows) console.log(line(row));
  } finally {
    await connection.drain();
    await server?.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
