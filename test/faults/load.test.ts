/**
 * Fault 6, the CI size: concurrent chat turns through the gateway (3 tool calls each, 200 ms per model
 * call, the scripted model). Every turn must get exactly its own answer and events: no error, no event of
 * another session, none missing. `bench/load-300.ts` runs the full 300 and reports the same figures.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLoad, type LoadReport } from "@agent-orchestrator/testing/faults/run-load";
import { startLoadSystem } from "@agent-orchestrator/testing/faults/load-system";
import { permissionViolations, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";

const turns = Number(process.env["LOAD_TURNS"] ?? 60);
const latencyMs = 200;

let system: FaultSystem;
let report: LoadReport;

beforeAll(async () => {
  system = await startLoadSystem(turns, latencyMs);
  report = await runLoad(system.gatewayUrls[0] as string, turns, latencyMs);
  const ratio = (ms: number) => (ms / report.idealMs).toFixed(2);
  console.info(
    `load: ${turns} turns at once, ideal ${report.idealMs} ms; p50 ${Math.round(report.p50Ms)} ms (${ratio(report.p50Ms)}× ideal), ` +
      `p99 ${Math.round(report.p99Ms)} ms (${ratio(report.p99Ms)}×), max ${Math.round(report.maxMs)} ms, all done in ${Math.round(report.wallMs)} ms`,
  );
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

describe(`${turns} concurrent chat turns`, () => {
  it("gives every turn exactly its own answer and events, with no error and nothing lost", () => {
    expect(report.problems).toEqual([]);
  });

  it("leaves no violation in the server's log and every service running", () => {
    expect(permissionViolations(system.nats)).toEqual([]);
    for (const service of Object.values(system.processes).flat()) expect(service.child.exitCode).toBeNull();
  });
});
