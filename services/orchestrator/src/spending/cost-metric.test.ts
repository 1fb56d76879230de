import { describe, expect, it } from "vitest";
import { orchestratorMetrics } from "../orchestrator-metrics.js";
import { countCost } from "./cost-metric.js";

const costBy = async (project: string) =>
  (await orchestratorMetrics.turnCost.get()).values.filter((value) => value.labels["project"] === project).reduce((sum, value) => sum + value.value, 0);

describe("ao_turn_cost_total", () => {
  it("case 216: names the first 500 projects a process sees and counts the rest as `other`", async () => {
    for (let index = 0; index < 500; index++) countCost(`cap-${index}`, "bmm/pm", 1);
    countCost("cap-late", "bmm/pm", 0.5);
    countCost("cap-late-too", "bmm/analyst", 0.25);
    // a project named before the cap is full keeps its name
    countCost("cap-7", "bmm/pm", 2);
    expect(await costBy("cap-7")).toBe(3);
    expect(await costBy("cap-late")).toBe(0);
    expect(await costBy("other")).toBe(0.75);
    expect(new Set((await orchestratorMetrics.turnCost.get()).values.map((value) => value.labels["project"])).size).toBe(501);
  });
});
