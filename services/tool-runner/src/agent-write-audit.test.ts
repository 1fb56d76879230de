import { describe, expect, it } from "vitest";
import type { AuditEntry } from "@agent-orchestrator/shared/runtime";
import type { FileRevision } from "@agent-orchestrator/shared/wire";
import { auditAgentWrites } from "./agent-write-audit.js";

const revision = (path: string, extra: Partial<FileRevision> = {}): FileRevision => ({
  path,
  revision: 2,
  size: 10,
  sha256: "ab",
  author: { user: "ada" },
  updated_at: "2026-11-25T00:00:00.000Z",
  ...extra,
});

function recorder() {
  const entries: AuditEntry[] = [];
  return { entries, audit: { record: (entry: AuditEntry) => Promise.resolve(void entries.push(entry)) } };
}

describe("auditAgentWrites", () => {
  it("records each file an agent's call wrote or removed in a project, with the agent, chat and call, never the content", () => {
    const { entries, audit } = recorder();
    const author = { user: "ada", agent_id: "bmm/pm", session_id: "s1", tool_call_id: "c1" };
    auditAgentWrites(audit)({ kind: "project", id: "p1" }, [revision("docs/prd.md"), revision("old.md", { deleted: true })], author);
    expect(entries).toEqual([
      { actor: "ada", action: "file_written", project_id: "p1", target: "docs/prd.md", outcome: "ok", detail: "agent bmm/pm, chat s1, call c1, revision 2" },
      { actor: "ada", action: "file_written", project_id: "p1", target: "old.md", outcome: "ok", detail: "agent bmm/pm, chat s1, call c1, deleted" },
    ]);
  });

  it("leaves a user's own writes (the gateway records those) and a chat's scratch space out", () => {
    const { entries, audit } = recorder();
    auditAgentWrites(audit)({ kind: "project", id: "p1" }, [revision("docs/prd.md")], { user: "ada" });
    auditAgentWrites(audit)({ kind: "session", id: "s1" }, [revision("notes.md")], { user: "ada", agent_id: "bmm/pm" });
    expect(entries).toEqual([]);
  });
});
