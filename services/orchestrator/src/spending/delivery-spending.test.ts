/**
 * A delivery's spending counted while it happens (docs/models.md "Cost totals"), against a real JetStream KV
 * bucket: each model call is in the totals once its write came back (before the turn's next budget check), the turn
 * is counted once at its end without its calls a second time, a subagent counts no turn, and a call that could not
 * be stored is seen by the budgets and stored again under its own key, once in each total.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type Usage } from "@agent-orchestrator/shared/wire";
import { scratchStreams } from "../testing/scratch-streams.js";
import { DeliverySpending } from "./delivery-spending.js";
import { SpendingStore, type SpentTurn } from "./spending-store.js";

const scratch = scratchStreams();
const logger = createLogger("delivery-spending-test", "silent");

const usage = (cost: number): Usage => ({ prompt_tokens: 1_000, completion_tokens: 100, total_tokens: 1_100, cost });

async function store(): Promise<SpendingStore> {
  const bucket = `spending_${randomUUID().slice(0, 8)}`;
  scratch.track(`KV_${bucket}`);
  return SpendingStore.open(scratch.connection(), bucket);
}

const month = () => new Date().toISOString().slice(0, 7);
const today = () => new Date().toISOString().slice(0, 10);

describe("DeliverySpending", () => {
  it("case 225: puts each model call in the totals as it ends, and counts the turn once at its end without its calls again", async () => {
    const spending = await store();
    const turn = new DeliverySpending(spending, { runKey: "r1:1", user: "ada", projectId: "p1", agentId: "bmm/pm" }, logger);
    turn.call(usage(0.25));
    // what a budget check waits for before it reads the totals
    expect(await turn.unstoredCost()).toBe(0);
    expect((await spending.projectMonth("p1", month())).totals).toMatchObject({ cost: 0.25, prompt_tokens: 1_000, turns: 0 });
    turn.call(usage(0.5));
    // a call refused before it was made cost nothing
    turn.call({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost: 0 });
    expect(await turn.unstoredCost()).toBe(0);
    expect((await spending.userPeriods("ada", today(), month())).day).toMatchObject({ cost: 0.75, turns: 0 });
    // the turn's whole usage, its subagents' included, is the sum of calls already counted (theirs by themselves)
    await turn.endTurn(usage(1.5));
    await turn.endTurn(usage(1.5));
    const totals = (await spending.projectMonth("p1", month())).totals;
    expect(totals).toEqual({ prompt_tokens: 2_000, cached_prompt_tokens: 0, completion_tokens: 200, cost: 0.75, turns: 1 });
    expect((await spending.userPeriods("ada", today(), month())).day).toMatchObject({ cost: 0.75, turns: 1 });
  });

  it("case 225: counts a turn's last call with the turn itself, one write per total", async () => {
    const spending = await store();
    const writes: number[] = [];
    const counting = { recordAll: (entries: readonly SpentTurn[]) => (writes.push(entries.length), spending.recordAll(entries)) };
    const turn = new DeliverySpending(counting, { runKey: "r1:1", user: "ada", projectId: "p1", agentId: "bmm/pm" }, logger);
    turn.call(usage(0.25));
    expect(await turn.unstoredCost()).toBe(0);
    // the answer that ends the turn, and the turn's end right after it
    turn.call(usage(0.5));
    await turn.endTurn(usage(0.75));
    expect(writes).toEqual([1, 2]);
    expect((await spending.projectMonth("p1", month())).totals).toMatchObject({ cost: 0.75, turns: 1 });
    expect((await spending.userPeriods("ada", today(), month())).day).toMatchObject({ cost: 0.75, turns: 1 });
  });

  it("counts a subagent's calls in its parent's project and user, and no turn of its own", async () => {
    const spending = await store();
    const child = new DeliverySpending(spending, { runKey: "child:1", user: "ada", projectId: "p1", agentId: "bmm/analyst" }, logger);
    child.call(usage(0.25));
    await child.endSubagent();
    expect(await spending.projectMonth("p1", month())).toEqual({
      totals: { prompt_tokens: 1_000, cached_prompt_tokens: 0, completion_tokens: 100, cost: 0.25, turns: 0 },
      byAgent: { "bmm/analyst": { prompt_tokens: 1_000, cached_prompt_tokens: 0, completion_tokens: 100, cost: 0.25, turns: 0 } },
    });
  });

  it("case 225: keeps a call it could not store for the budgets, and stores it with its next call", async () => {
    const spending = await store();
    // the totals cannot be written once, as while JetStream elects a leader for longer than the retries last
    let refusals = 1;
    const flaky = {
      recordAll: (entries: readonly SpentTurn[]) => (refusals-- > 0 ? Promise.reject(new Error("no responders")) : spending.recordAll(entries)),
    };
    const turn = new DeliverySpending(flaky, { runKey: "r1:1", user: "ada", projectId: "p1", agentId: "bmm/pm" }, logger);
    turn.call(usage(0.25));
    expect(await turn.unstoredCost()).toBe(0.25);
    turn.call(usage(0.5));
    expect(await turn.unstoredCost()).toBe(0);
    await turn.endTurn(usage(0.75));
    expect((await spending.projectMonth("p1", month())).totals).toMatchObject({ cost: 0.75, turns: 1 });
  });

  it("case 225: counts a call once in each total when only one of the two was written, however often it is tried again", async () => {
    const spending = await store();
    // the user's total cannot be written the first two times: the project's has the call already
    let refusals = 2;
    const halfFlaky = {
      recordAll: async (entries: readonly SpentTurn[]) => {
        const inProject = spending.recordAll(entries.map((entry) => ({ ...entry, user: "nobody" })));
        if (refusals-- > 0) {
          await inProject;
          throw new Error("no responders");
        }
        return spending.recordAll(entries);
      },
    };
    const turn = new DeliverySpending(halfFlaky, { runKey: "r1:1", user: "ada", projectId: "p1", agentId: "bmm/pm" }, logger);
    turn.call(usage(0.25));
    expect(await turn.unstoredCost()).toBe(0.25);
    // tried again with the next call, and refused once more: the next call itself is written
    turn.call(usage(0.5));
    expect(await turn.unstoredCost()).toBe(0.25);
    await turn.endTurn(usage(0.75));
    expect(await turn.unstoredCost()).toBe(0);
    expect((await spending.projectMonth("p1", month())).totals).toMatchObject({ cost: 0.75, turns: 1 });
    expect((await spending.userPeriods("ada", today(), month())).day).toMatchObject({ cost: 0.75, turns: 1 });
  });
});
