import { describe, expect, it } from "vitest";
import { formatHashRoute, parseHashRoute } from "./hash-route.js";

describe("hash routes", () => {
  it("round-trips the picker, an agent with a slash in its id, and a session", () => {
    for (const route of [{ view: "picker" }, { view: "agent", agentId: "bmm/analyst" }, { view: "session", sessionId: "4f2c-9" }] as const) {
      expect(parseHashRoute(formatHashRoute(route))).toEqual(route);
    }
    expect(formatHashRoute({ view: "agent", agentId: "bmm/analyst" })).toBe("#/agent/bmm/analyst");
  });

  it("falls back to the picker for an empty, unknown or undecodable fragment", () => {
    expect(["", "#", "#/nothing/x", "#/agent/", "#/session/%E0%A4%A"].map(parseHashRoute)).toEqual(Array(5).fill({ view: "picker" }));
  });
});
