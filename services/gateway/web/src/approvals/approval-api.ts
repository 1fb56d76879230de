import type { ApprovalDecisionBody, ApprovalView } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { pageApi } from "../api/page-api.js";

export type { ApprovalDecisionBody, ApprovalView };

const approvalsPath = (sessionId: string): string => `/api/sessions/${encodeURIComponent(sessionId)}/approvals`;

/**
 * The approvals calls of the gateway's HTTP API (docs/approvals.md), through the page's one API client, so a refused
 * token is asked for as everywhere else.
 */
export class ApprovalApi {
  constructor(private readonly api: Pick<ApiClient, "json"> = pageApi) {}

  /** Every waiting call the caller may decide, across their projects, oldest first. */
  async pending(): Promise<ApprovalView[]> {
    return (await this.api.json<{ approvals: ApprovalView[] }>("/api/approvals")).approvals;
  }

  /** A chat's waiting calls, each saying whether the caller may decide it (any member of the project reads them). */
  async ofSession(sessionId: string): Promise<ApprovalView[]> {
    return (await this.api.json<{ approvals: ApprovalView[] }>(approvalsPath(sessionId))).approvals;
  }

  /** A decision by REST, for when the page's WebSocket is not connected. */
  async decide(sessionId: string, approvalId: string, body: ApprovalDecisionBody): Promise<ApprovalView> {
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    return (await this.api.json<{ approval: ApprovalView }>(`${approvalsPath(sessionId)}/${encodeURIComponent(approvalId)}`, init)).approval;
  }
}

/** The page's one ApprovalApi. */
export const approvalApi = new ApprovalApi();
