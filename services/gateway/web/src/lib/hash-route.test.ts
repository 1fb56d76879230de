import { describe, expect, it } from "vitest";
import { formatHashRoute, parseHashRoute } from "./hash-route.js";

describe("hash routes", () => {
  it("round-trips the picker, an agent with a slash in its id, and a session", () => {
    for (const route of [{ view: "picker" }, { view: "agent", agentId: "bmm/analyst" }, { view: "session", sessionId: "4f2c-9" }] as const) {
      expect(parseHashRoute(formatHashRoute(route))).toEqual(route);
    }
    expect(formatHashRoute({ view: "agent", agentId: "bmm/analyst" })).toBe("#/agent/bmm/analyst");
  });

  it("round-trips a project's files, and one file whose name needs encoding", () => {
    for (const route of [{ view: "files", projectId: "default" }, { view: "files", projectId: "p-1", path: "inputs/brief #2 ?.pdf.md" }] as const) {
      expect(parseHashRoute(formatHashRoute(route))).toEqual(route);
    }
    expect(formatHashRoute({ view: "files", projectId: "default", path: "docs/a b.md" })).toBe("#/projects/default/files/docs/a%20b.md");
  });

  it("round-trips a branch of a project's repository, its slashes and odd characters included", () => {
    for (const route of [
      { view: "files", projectId: "p-1", branch: "chat/4f2c-9" },
      { view: "files", projectId: "p-1", path: "src/a?b.md", branch: "feature/a&b=c#d" },
    ] as const) {
      expect(parseHashRoute(formatHashRoute(route))).toEqual(route);
    }
    expect(formatHashRoute({ view: "files", projectId: "p", path: "README.md", branch: "chat/s1" })).toBe("#/projects/p/files/README.md?branch=chat%2Fs1");
    expect(parseHashRoute("#/projects/p/files?branch=")).toEqual({ view: "files", projectId: "p" });
  });

  it("round-trips a project's overview", () => {
    expect(parseHashRoute(formatHashRoute({ view: "project", projectId: "p 1" }))).toEqual({ view: "project", projectId: "p 1" });
    expect(formatHashRoute({ view: "project", projectId: "default" })).toBe("#/projects/default");
  });

  it("falls back to the picker for an empty, unknown or undecodable fragment", () => {
    expect(["", "#", "#/nothing/x", "#/agent/", "#/session/%E0%A4%A", "#/projects//files", "#/projects/", "#/projects/p/files/a//b", "#/projects/p/files/%E0%A4%A"].map(parseHashRoute)).toEqual(Array(9).fill({ view: "picker" }));
  });
});
