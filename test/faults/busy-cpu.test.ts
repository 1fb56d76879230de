/**
 * Overload told honestly (docs/design.md "Fair shares"): 40 turns at once against one orchestrator with 2 run slots, while
 * CPU hogs keep every core busy. Each turn must end with its own `done`, or be refused with an honest
 * OVERLOADED (503 with retry-after) when it waited past the pickup limit; never "No orchestrator is running"
 * while one is answering. Outcomes only, no timing assertion.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamChat } from "@agent-orchestrator/testing/faults/chat-client";
import { startFaultSystem, type FaultSystem } from "@agent-orchestrator/testing/faults/fault-system";
import { loadMessage, loadResponder } from "@agent-orchestrator/testing/faults/load-responder";
import { checkTurn } from "@agent-orchestrator/testing/faults/run-load";

const turns = 40;

interface Outcome {
  status: number;
  /** a problem with a turn that ran, or undefined */
  problem?: string | undefined;
  refused?: unknown;
  retryAfter?: string | null | undefined;
}

let system: FaultSystem;
const hogs: ChildProcess[] = [];
let outcomes: Outcome[];

beforeAll(async () => {
  system = await startFaultSystem({
    responder: loadResponder(50),
    env: { LOG_LEVEL: "warn" },
    envFor: {
      // the orchestrators' capacity is what this counts, not one user's share of it (USER_MAX_CONCURRENT_TURNS)
      orchestrator: { RUN_CONCURRENCY: "2", USER_MAX_CONCURRENT_TURNS: "0" },
      gateway: { RUN_PICKUP_TIMEOUT_MS: "10000" },
    },
  });
  // one busy loop per core, started after the system is up, so the turns run on a saturated CPU
  for (let index = 0; index < Math.max(2, availableParallelism()); index++) {
    hogs.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  }
  outcomes = await Promise.all(
    Array.from({ length: turns }, async (_, index): Promise<Outcome> => {
      const token = `busy${index}x${Date.now().toString(36)}`;
      const turn = await streamChat(system.gatewayUrls[0] as string, { agent_id: "idea-coach", message: loadMessage(token) });
      if (turn.status !== 200) return { status: turn.status, refused: turn.refused, retryAfter: turn.retryAfter };
      return { status: 200, problem: checkTurn(token, await turn.done) };
    }),
  );
  const overloaded = outcomes.filter((outcome) => outcome.status === 503).length;
  console.info(`busy cpu: ${turns} turns, ${hogs.length} CPU hogs: ${outcomes.filter((outcome) => outcome.status === 200).length} done, ${overloaded} OVERLOADED`);
}, 180_000);

afterAll(async () => {
  for (const hog of hogs) hog.kill("SIGKILL");
  await system?.stop();
});

describe(`${turns} turns at once on a busy CPU with 2 run slots`, () => {
  it("ends every turn with its own done or an honest OVERLOADED with retry-after", () => {
    const wrong = outcomes.filter((outcome) =>
      outcome.status === 200
        ? outcome.problem !== undefined
        : !(outcome.status === 503 && (outcome.refused as { error?: { code?: string } }).error?.code === "OVERLOADED" && Number(outcome.retryAfter) > 0),
    );
    expect(wrong).toEqual([]);
    expect(outcomes.some((outcome) => outcome.status === 200)).toBe(true);
  });

  it("never claims that no orchestrator is running", () => {
    expect(JSON.stringify(outcomes)).not.toContain("No orchestrator");
    for (const service of Object.values(system.processes).flat()) expect(service.child.exitCode).toBeNull();
  });
});
