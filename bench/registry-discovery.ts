/**
 * Registry discovery benchmark: generates 10, 100, 500 and 1,000 bundles (two agents each, one entry point)
 * in a temp folder and prints, per size, the cold scan, a warm re-scan with nothing changed, and list-agents
 * latency (p50/p99 over 2,000 calls) in-process and over NATS (NATS_URL, or a local nats-server if one is
 * installed; skipped otherwise). Run: `npx tsx bench/registry-discovery.ts` (after `npx tsc -b shared`).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { createLogger, ListAgentsReply, requestJson, subjects } from "@agent-orchestrator/shared";
import { AgentRegistry } from "../services/registry/src/agent-registry.js";
import { registryEnvSchema } from "../services/registry/src/config.js";
import { startRegistry } from "../services/registry/src/registry-service.js";
import { findNatsServerBinary, startLocalNats, type LocalNats } from "../scripts/lib/local-nats.js";

const sizes = [10, 100, 500, 1000];
const calls = 2000;
const limits = { maxFileBytes: 1024 * 1024, maxSources: 5000, maxAgentsPerSource: 200 };

async function generate(root: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const name = `bundle-${String(index).padStart(4, "0")}`;
    const folder = join(root, "bmad/custom/bundles", name);
    await mkdir(join(folder, "agents"), { recursive: true });
    await writeFile(
      join(folder, "bundle.yaml"),
      `type: bundle\nname: ${name}\nversion: 1.0.0\ndescription: generated\nagents:\n` +
        `  - { id: ${name}-lead, name: Lead, title: Lead, file: agents/lead.md, entry_point: true }\n` +
        `  - { id: ${name}-helper, name: Helper, title: Helper, file: agents/helper.md }\n`,
    );
    for (const role of ["lead", "helper"]) {
      await writeFile(
        join(folder, "agents", `${role}.md`),
        `# ${role}\n\n\`\`\`xml\n<agent id="${name}-${role}" name="${role}" title="${role}" icon="🧪">\n` +
          `  <persona><role>r</role><identity>i</identity><communication_style>c</communication_style><principles>p</principles></persona>\n` +
          `  <critical-actions><i>Load into memory {bundle-root}/config.yaml</i><i>Remember {user_name}</i></critical-actions>\n` +
          `  <cmds><c cmd="*help">Help</c><c cmd="*go" run-workflow="{bundle-root}/workflows/go/workflow.yaml">Go</c><c cmd="*exit">Exit</c></cmds>\n</agent>\n\`\`\`\n`,
      );
    }
  }
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

async function timeMs(run: () => Promise<unknown> | unknown): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function timeSync(run: () => unknown): number {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function natsConnection(): Promise<{ connection: NatsConnection; stop(): Promise<void> } | undefined> {
  let server: LocalNats | undefined;
  let url = process.env["NATS_URL"];
  if (!url && findNatsServerBinary()) {
    const storeDir = await mkdtemp(join(tmpdir(), "bench-nats-"));
    server = await startLocalNats({ storeDir });
    url = server.url;
  }
  if (!url) return undefined;
  const connection = await connect({ servers: url });
  return {
    connection,
    async stop() {
      await connection.drain();
      await server?.stop();
    },
  };
}

const format = (value: number) => (value >= 10 ? value.toFixed(1) : value.toFixed(3));
const nats = await natsConnection();
const logger = createLogger("registry-bench", "silent");
const rows: string[][] = [];

for (const size of sizes) {
  const root = await mkdtemp(join(tmpdir(), "registry-bench-"));
  try {
    await generate(root, size);
    const registry = new AgentRegistry(root, limits);
    const cold = await timeMs(() => registry.rescan());
    const warm = await timeMs(() => registry.rescan());
    const inProcess = percentiles(Array.from({ length: calls }, () => timeSync(() => registry.listAgents())));
    let overNats = { p50: Number.NaN, p99: Number.NaN };
    if (nats) {
      const prefix = `bench-${size}.`;
      const config = registryEnvSchema.parse({ BMAD_ROOT: root, REGISTRY_WATCH: "false" });
      const running = await startRegistry({ connection: nats.connection, config, logger, subjectPrefix: prefix });
      const samples: number[] = [];
      for (let call = 0; call < calls; call++) {
        samples.push(await timeMs(() => requestJson(nats.connection, prefix + subjects.registryAgentsList, {}, ListAgentsReply, { timeoutMs: 5000 })));
      }
      overNats = percentiles(samples);
      await running.stop();
    }
    rows.push([String(size), String(registry.listAgents().length), format(cold), format(warm), (cold / warm).toFixed(1), (inProcess.p50 * 1000).toFixed(2), (inProcess.p99 * 1000).toFixed(2), format(overNats.p50), format(overNats.p99)]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
await nats?.stop();

const header = ["bundles", "agents", "cold scan ms", "warm re-scan ms", "cold/warm", "list p50 µs", "list p99 µs", "NATS list p50 ms", "NATS list p99 ms"];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
const line = (cells: string[]) => cells.map((cell, column) => cell.padStart(widths[column] ?? 0)).join("  ");
console.log(`registry discovery (node ${process.version}, ${calls} list calls per size${nats ? "" : ", NATS skipped: no server"})`);
console.log(line(header));
for (const row of rows) console.log(line(row));
