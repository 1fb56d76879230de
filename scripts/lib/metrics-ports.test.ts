import { describe, expect, it } from "vitest";
import { planMetricsPorts } from "./metrics-ports.js";

describe("METRICS_PORT under npm start (docs/security.md case 146)", () => {
  it("gives the orchestrator METRICS_PORT and the tool-runner the next port", () => {
    expect(planMetricsPorts("9464")).toEqual({ ok: true, ports: { orchestrator: 9464, "tool-runner": 9465 } });
  });

  it("keeps 0 for each (a free port apiece) and no endpoint when unset or empty", () => {
    expect(planMetricsPorts("0")).toEqual({ ok: true, ports: { orchestrator: 0, "tool-runner": 0 } });
    expect(planMetricsPorts(undefined)).toEqual({ ok: true, ports: undefined });
    expect(planMetricsPorts(" ")).toEqual({ ok: true, ports: undefined });
  });

  it("refuses a value that is no port, or one that leaves no room for the second service", () => {
    for (const value of ["abc", "-1", "70000", "94.64", "1e3"]) expect(planMetricsPorts(value)).toMatchObject({ ok: false, error: expect.stringContaining("METRICS_PORT") });
    expect(planMetricsPorts("65535")).toMatchObject({ ok: false, error: expect.stringContaining("65535–65536") });
  });
});
