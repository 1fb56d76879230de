/**
 * The budgets against real buckets with an injected clock: a turn is let in under a budget, refused at and past
 * it, and let in again once the period's end has passed; a project owner's own limit wins over the default.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AppError, createLogger } from "@agent-orchestrator/shared/runtime";
import { scratchStreams } from "../testing/scratch-streams.js";
import { ProjectStore } from "../projects/project-store.js";
import { Budgets, type BudgetLimits } from "./budgets.js";
import { SpendingStore } from "./spending-store.js";

const scratch = scratchStreams();
const logger = createLogger("budgets-test", "silent");

async function budgetsAt(limits: BudgetLimits) {
  const suffix = randomUUID().slice(0, 8);
  scratch.track(`KV_spending_${suffix}`);
  scratch.track(`KV_projects_${suffix}`);
  const spending = await SpendingStore.open(scratch.connection(), `spending_${suffix}`);
  const projects = await ProjectStore.open(scratch.connection(), `projects_${suffix}`);
  const project = await projects.create("ada", "Launch", 100);
  const clock = { now: new Date("2026-11-30T23:00:00Z") };
  const budgets = new Budgets(spending, projects, limits, logger, () => clock.now);
  const spend = (runKey: string, cost: number, user = "ada") =>
    spending.record({ runKey, projectId: project.id, user, agentId: "bmm/pm", usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost }, turns: 1, at: clock.now });
  const refusal = async (user = "ada", ownSpent = 0) => {
    // as a turn reads it: the project's record as it is now
    const turn = budgets.forTurn(project.id, user, (await projects.get(project.id))?.record);
    if (!turn) throw new Error("the turn has no budgets to ask");
    return turn.check(ownSpent).then(
      () => undefined,
      (error: unknown) => (AppError.is(error) ? `${error.code}: ${error.message}` : String(error)),
    );
  };
  return { budgets, projects, project, clock, spend, refusal };
}

describe("Budgets", () => {
  it("refuses a project at its monthly budget, counts a running turn's own spending, and lets it in again in the next UTC month", async () => {
    const { clock, spend, refusal } = await budgetsAt({ projectMonthly: 1, userDaily: undefined });
    await spend("r1:1", 0.6);
    expect(await refusal()).toBeUndefined();
    // the running turn's 0.4 not yet stored reaches the limit
    expect(await refusal("ada", 0.4)).toBe(
      "BUDGET_EXCEEDED: The project's monthly budget of 1 is spent (1 this month); it resets at 2026-12-01T00:00:00.000Z. The project's owner can raise it.",
    );
    await spend("r2:1", 0.5);
    // any member's turn: the budget is the project's
    expect(await refusal("bob")).toMatch(/monthly budget of 1 is spent \(1\.1 this month\)/);
    clock.now = new Date("2026-12-01T00:00:00Z");
    expect(await refusal()).toBeUndefined();
  });

  it("refuses a user at their daily budget across projects until the next UTC day", async () => {
    const { clock, spend, refusal } = await budgetsAt({ projectMonthly: undefined, userDaily: 0.5 });
    await spend("r1:1", 0.5);
    expect(await refusal()).toBe("BUDGET_EXCEEDED: Your daily budget of 0.5 is spent (0.5 today); it resets at 2026-12-01T00:00:00.000Z.");
    expect(await refusal("bob")).toBeUndefined();
    clock.now = new Date("2026-12-01T00:00:01Z");
    expect(await refusal()).toBeUndefined();
  });

  it("takes the owner's own monthly limit over the default, and shows where the limit comes from", async () => {
    const { budgets, projects, project, spend, refusal } = await budgetsAt({ projectMonthly: 1, userDaily: undefined });
    await spend("r1:1", 1.5);
    expect(await refusal()).toMatch(/^BUDGET_EXCEEDED/);
    expect(await budgets.projectView(project.id)).toEqual({ limit: 1, spent: 1.5, resets_at: "2026-12-01T00:00:00.000Z", source: "default" });
    await projects.update(project.id, (record) => ({ ...record, monthly_budget: 2 }));
    expect(await refusal()).toBeUndefined();
    expect((await budgets.projectView(project.id)).source).toBe("project");
    await projects.update(project.id, (record) => ({ ...record, monthly_budget: 0 }));
    expect(await refusal()).toMatch(/monthly budget of 0 is spent/);
  });

  it("gives a turn nothing to ask without any limit, and still shows what was spent", async () => {
    const { spend, budgets, projects, project } = await budgetsAt({ projectMonthly: undefined, userDaily: undefined });
    await spend("r1:1", 1_000);
    expect(budgets.forTurn(project.id, "ada", (await projects.get(project.id))?.record)).toBeUndefined();
    expect(await budgets.userView("ada")).toEqual({ limit: null, spent: 1_000, resets_at: "2026-12-01T00:00:00.000Z", source: "none" });
  });
});
