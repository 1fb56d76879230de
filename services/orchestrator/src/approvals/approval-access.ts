import { roleOf, type ApprovalRecord, type ProjectRecord } from "@agent-orchestrator/shared/wire";

/**
 * What `user` may do with a pending call of a project's chat (docs/approvals.md "Who decides"): `none` for a
 * non-member (they are told the chat does not exist), `read` for a viewer, and for an editor unless they asked for
 * the call or the record lets editors decide; `decide` for the requester, the project's owner, and any editor when
 * `deciders` is `editors`. The requester decides only while they may still write to the project.
 */
export type ApprovalAccess = "none" | "read" | "decide";

export function approvalAccess(record: Pick<ApprovalRecord, "requester" | "deciders">, project: ProjectRecord, user: string): ApprovalAccess {
  const role = roleOf(project, user);
  if (role === undefined) return "none";
  if (role === "owner") return "decide";
  if (role === "viewer") return "read";
  return user === record.requester || record.deciders === "editors" ? "decide" : "read";
}
