import { describe, expect, it } from "vitest";
import { ModelRouteMatch, pickModelRoute, type ModelRouteView } from "./model-routes.js";

const routes: ModelRouteView[] = [
  { name: "analyst-in-p1", model: "m1", match: { agent: "bmm/analyst", project: "p1" } },
  { name: "analyst", model: "m2", match: { agent: "bmm/analyst" } },
  { name: "p1", model: "m3", match: { project: "p1" } },
  { name: "bmm", model: "m4", match: { module: "bmm" } },
  { name: "default", model: "m5" },
];
const pick = (agent: string, module: string, project?: string) =>
  pickModelRoute(routes, { agent, module, ...(project !== undefined ? { project } : {}) })?.name;

describe("choosing a model route", () => {
  it("takes the first route whose every key matches, the default when none does", () => {
    expect(pick("bmm/analyst", "bmm", "p1")).toBe("analyst-in-p1");
    expect(pick("bmm/analyst", "bmm", "p2")).toBe("analyst");
    expect(pick("bmm/analyst", "bmm")).toBe("analyst");
    expect(pick("bmm/pm", "bmm", "p1")).toBe("p1");
    expect(pick("bmm/pm", "bmm")).toBe("bmm");
    expect(pick("idea-coach", "idea-studio")).toBe("default");
  });

  it("matches no project route for a turn outside a project", () => {
    expect(pickModelRoute([{ name: "p1", model: "m", match: { project: "p1" } }], { agent: "a", module: "b" })).toBeUndefined();
  });

  it("refuses a match with no key or an unknown one", () => {
    expect(ModelRouteMatch.safeParse({}).success).toBe(false);
    expect(ModelRouteMatch.safeParse({ agent: "a", bundle: "b" }).success).toBe(false);
    expect(ModelRouteMatch.safeParse({ module: "bmm", project: "p" }).success).toBe(true);
  });
});
