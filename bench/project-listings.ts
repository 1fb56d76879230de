/**
 * Measure 18 (bench/README.md "Listings beside a user with many projects (measure 18)"): does one user's pile of
 * projects slow everyone else's listings (docs/projects.md "Storage")? Two systems on the run's server, each with
 * the same user `light` owning 3 projects; in the second, the user `heavy` also owns 2,000. `light`'s
 * `GET /api/projects` and `GET /api/sessions` are timed through each gateway in alternation, sample by sample, so
 * the only difference between the sides is the other user's projects.
 *
 * Run alone: `npx tsx bench/project-listings.ts` (its own nats-server); `npm run bench` runs it as measure 18.
 */
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { connect } from "nats";
import { encodeJson, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, type ProjectRecord } from "@agent-orchestrator/shared/wire";
import { ProjectStore } from "@agent-orchestrator/orchestrator";
import { startBenchContext, type BenchContext } from "./support/bench-context.js";
import { pick, quick } from "./support/bench-settings.js";
import { interleave, timed } from "./support/interleave.js";
import { formatMs, formatRatio, type MeasureReport, type MeasureRow } from "./support/measure-report.js";
import { percentile } from "./support/percentile.js";
import { formatResultsTable } from "./support/results-table.js";
import { collectVersions, describeMachine } from "./support/run-environment.js";

const heavyProjects = 2_000;
const lightProjects = 3;
const samples = pick(300, 40);
const warmup = pick(30, 5);
const tokens = { light: "light-user-token", heavy: "heavy-user-token" } as const;
type BenchUser = keyof typeof tokens;

async function call(gatewayUrl: string, user: BenchUser, method: "GET" | "POST", path: string, body?: object): Promise<unknown> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer: unknown = await response.json();
  // a refused listing must fail the measure, not pass for a fast one
  if (!response.ok) throw new Error(`${method} ${path} as ${user} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

const createProjects = (gatewayUrl: string, user: BenchUser, count: number): Promise<unknown[]> =>
  mapWithConcurrency(
    Array.from({ length: count }, (_unused, index) => index),
    2,
    (index) => call(gatewayUrl, user, "POST", "/api/projects", { name: `${user} ${index}` }),
  );

/**
 * `count` projects of `owner` written into the bucket of the system on `prefix` as the store keeps them (the
 * record, then its index keys): a creation through the API counts the owner's projects each time, which would
 * make 2,000 of them take minutes, and the listings are what this measure is about.
 */
async function seedProjects(natsUrl: string, prefix: string, owner: string, count: number): Promise<void> {
  const connection = await connect({ servers: natsUrl });
  try {
    const bucket = jetStreamNames(prefix).projectsBucket;
    const kv = await connection.jetstream().views.kv(bucket, { history: 1 });
    const projects = await ProjectStore.open(connection, bucket);
    await mapWithConcurrency(
      Array.from({ length: count }, (_unused, index) => index),
      16,
      async (index) => {
        const now = new Date().toISOString();
        const record: ProjectRecord = { id: randomUUID(), name: `${owner} ${index}`, owner, members: {}, personal: false, created_at: now, updated_at: now };
        await kv.create(`project.${record.id}`, encodeJson(record));
        await projects.indexTies(record);
      },
    );
  } finally {
    await connection.drain();
  }
}

const side = (values: readonly number[]) => ({ p50: percentile(values, 0.5), p95: percentile(values, 0.95) });
const pair = (figures: { p50: number; p95: number }) => `${formatMs(figures.p50)} / ${formatMs(figures.p95)}`;

function row(label: string, alone: readonly number[], beside: readonly number[]): MeasureRow {
  const [before, after] = [side(alone), side(beside)];
  return { label: `${label}, p50 / p95`, baseline: pair(before), system: pair(after), result: `${formatRatio(after.p50 / before.p50)} / ${formatRatio(after.p95 / before.p95)}` };
}

export async function measureProjectListings(context: BenchContext): Promise<MeasureReport> {
  const overrides = { AUTH_TOKENS: `light:${tokens.light},heavy:${tokens.heavy}` };
  const alone = await context.startSystem("benchlistalone.", "in-process", overrides);
  const crowded = await context.startSystem("benchlistcrowded.", "in-process", overrides);
  for (const system of [alone, crowded]) await createProjects(system.gatewayUrl, "light", lightProjects);
  await seedProjects(context.nats.url, "benchlistcrowded.", "heavy", heavyProjects);
  const listing = (gatewayUrl: string, path: string) => () => timed(() => call(gatewayUrl, "light", "GET", path));
  const projects = await interleave({ alone: listing(alone.gatewayUrl, "/api/projects"), crowded: listing(crowded.gatewayUrl, "/api/projects") }, { warmup, samples });
  const sessions = await interleave({ alone: listing(alone.gatewayUrl, "/api/sessions"), crowded: listing(crowded.gatewayUrl, "/api/sessions") }, { warmup, samples });
  const heavyOwn = await interleave({ heavy: () => timed(() => call(crowded.gatewayUrl, "heavy", "GET", "/api/projects")) }, { warmup: 2, samples: pick(20, 5) });
  return {
    id: 18,
    title: `listings of a user with ${lightProjects} projects beside one with ${heavyProjects.toLocaleString("en")}`,
    method: `Two systems on one server; in each, the user light owns ${lightProjects} projects, and in the second the user heavy owns ${heavyProjects.toLocaleString("en")} (written into the projects bucket as the store keeps them: a creation through the API counts the owner's projects, which would take minutes for 2,000; light's are made through POST /api/projects). light's listings through each gateway, alternating, ${samples} samples each after ${warmup} of warm-up.`,
    rows: [
      row("GET /api/projects as light", projects.alone, projects.crowded),
      row("GET /api/sessions as light", sessions.alone, sessions.crowded),
      { label: `GET /api/projects as heavy (its own ${heavyProjects.toLocaleString("en")}), p50 / p95`, baseline: "—", system: pair(side(heavyOwn.heavy)), result: formatMs(side(heavyOwn.heavy).p50) },
    ],
    details: {
      samples,
      warmup,
      heavyProjects,
      lightProjects,
      projects: { alone: side(projects.alone), crowded: side(projects.crowded) },
      sessions: { alone: side(sessions.alone), crowded: side(sessions.crowded) },
      heavyOwn: side(heavyOwn.heavy),
    },
    notes: [
      "Baseline: light alone on its system; system: light beside heavy's projects. A listing that reads only the caller's projects keeps the ratio near 1×; one that reads every project grows with the other user's count.",
      `heavy holds ${heavyProjects.toLocaleString("en")} projects, past PROJECTS_PER_USER's default (100): an operator may raise it, or hold such projects from before the limit; light's figures must not depend on it.`,
    ],
  };
}

/** Alone: a bench context of its own (nats-server, scripted model), the measure, and its lines printed as `npm run bench` prints them. */
async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = describeMachine();
  const context = await startBenchContext();
  try {
    const report = await measureProjectListings(context);
    const durationS = Math.round((Date.now() - startedAt.getTime()) / 1000);
    const command = `${quick ? "BENCH_QUICK=1 " : ""}npx tsx bench/project-listings.ts`;
    console.log(formatResultsTable({ startedAt: startedAt.toISOString(), durationS, quick, command, machine: { ...machine, loadAverage1mAtEnd: describeMachine().loadAverage1m }, versions: collectVersions(), measures: [report] }));
  } finally {
    await context.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
