import { describe, expect, it } from "vitest";
import type { ProjectRecord } from "@agent-orchestrator/shared/wire";
import { approvalAccess } from "./approval-access.js";

const project: ProjectRecord = {
  id: "p1",
  name: "Launch",
  owner: "olive",
  members: { erin: "editor", ed: "editor", vic: "viewer" },
  personal: false,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};

describe("approvalAccess", () => {
  it("lets the requester and the project's owner decide by default, other editors only read", () => {
    const record = { requester: "erin", deciders: "requester" as const };
    expect(approvalAccess(record, project, "erin")).toBe("decide");
    expect(approvalAccess(record, project, "olive")).toBe("decide");
    expect(approvalAccess(record, project, "ed")).toBe("read");
  });

  it("lets any editor decide when deciders is editors, never a viewer", () => {
    const record = { requester: "erin", deciders: "editors" as const };
    expect(approvalAccess(record, project, "ed")).toBe("decide");
    expect(approvalAccess(record, project, "vic")).toBe("read");
  });

  it("case 95: knows nobody outside the project, and a requester who is now a viewer only reads", () => {
    expect(approvalAccess({ requester: "erin", deciders: "editors" }, project, "mallory")).toBe("none");
    expect(approvalAccess({ requester: "vic", deciders: "requester" }, project, "vic")).toBe("read");
    expect(approvalAccess({ requester: "gone", deciders: "requester" }, project, "gone")).toBe("none");
  });
});
