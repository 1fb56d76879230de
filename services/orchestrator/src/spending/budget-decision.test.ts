import { describe, expect, it } from "vitest";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { budgetExceeded, spentBudget, type BudgetStanding } from "./budget-decision.js";

const resetsAt = new Date("2026-12-01T00:00:00Z");
const project = (limit: number | undefined, spent: number): BudgetStanding => ({ kind: "project_monthly", limit, spent, resetsAt });
const user = (limit: number | undefined, spent: number): BudgetStanding => ({ kind: "user_daily", limit, spent, resetsAt: new Date("2026-11-26T00:00:00Z") });

describe("spentBudget", () => {
  it.each([
    ["no limit", [project(undefined, 1e9)], undefined],
    ["under", [project(10, 9.99)], undefined],
    ["at the limit: nothing is left", [project(10, 10)], "project_monthly"],
    ["over", [project(10, 10.5)], "project_monthly"],
    ["a limit of 0 lets nothing run", [project(0, 0)], "project_monthly"],
    ["the user's day spent, the project's month not", [project(10, 1), user(2, 2)], "user_daily"],
    ["both spent: the first named", [project(10, 11), user(2, 3)], "project_monthly"],
  ] as const)("%s", (_name, standings, expected) => {
    expect(spentBudget(standings)?.kind).toBe(expected);
  });
});

describe("budgetExceeded", () => {
  it("names the budget, its amount, what was spent and when it resets", () => {
    const error = budgetExceeded(project(5, 5.1234567));
    expect(AppError.is(error) && error.code).toBe("BUDGET_EXCEEDED");
    expect(error.message).toBe("The project's monthly budget of 5 is spent (5.123457 this month); it resets at 2026-12-01T00:00:00.000Z. The project's owner can raise it.");
    expect(budgetExceeded(user(0.5, 0.5)).message).toBe("Your daily budget of 0.5 is spent (0.5 today); it resets at 2026-11-26T00:00:00.000Z.");
  });
});
