import { once } from "node:events";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ApprovalDecideRequest, ApprovalListRequest, RunCancel, subjects, type ApprovalView, type ErrorCode } from "@agent-orchestrator/shared/wire";
import { decodeJson } from "@agent-orchestrator/shared/runtime";
import { gatewayFixture, tokens, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();

const view = (change: Partial<ApprovalView> = {}): ApprovalView => ({
  approval_id: "a1",
  session_id: "s1",
  project_id: "p1",
  agent_id: "bmm/dev",
  call_id: "call_1",
  tool: "save_output",
  arguments: { file_path: "docs/a.md", content: "x" },
  reason: "save_output is set to ask in this project",
  requester: "bob",
  deciders: "requester",
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: "2026-01-02T00:00:00.000Z",
  status: "pending",
  may_decide: true,
  ...change,
});

const listed: ApprovalListRequest[] = [];
const decided: ApprovalDecideRequest[] = [];
const cancels: unknown[] = [];
/** what the orchestrator answers a decision with: an error code for a refusal */
let refuseWith: ErrorCode | undefined;

beforeAll(() => {
  fixture.respond(subjects.approvalList, ApprovalListRequest, (request) => {
    listed.push(request);
    return { success: true, approvals: [view({ session_id: request.session_id ?? "s1" })] };
  });
  fixture.respond(subjects.approvalDecide, ApprovalDecideRequest, (request) => {
    decided.push(request);
    if (refuseWith) return { success: false, error: { code: refuseWith, message: "refused" } };
    const edited = request.arguments !== undefined;
    return { success: true, approval: view({ status: request.decision === "approve" ? "approved" : "rejected", decided: { outcome: request.decision, by: request.user, at: "2026-01-01T00:01:00.000Z", ...(edited ? { arguments_edited: true } : {}) } }) };
  });
  fixture.connection().subscribe(fixture.prefix + subjects.runCancelAll, { callback: (_error, message) => cancels.push(decodeJson(message.data, RunCancel)) });
});

afterEach(() => {
  refuseWith = undefined;
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const post = (user: FixtureUser, path: string, body: unknown) =>
  fixture.api(user, path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });

describe("the approval routes", () => {
  it("lists the caller's pending calls across projects and a chat's, asking the orchestrator as the caller", async () => {
    expect(await json(await fixture.api("alice", "/api/approvals"))).toMatchObject({ status: 200, body: { success: true, approvals: [{ approval_id: "a1" }] } });
    expect(listed.at(-1)).toEqual({ user: "alice" });
    expect(await json(await fixture.api("carol", "/api/sessions/s9/approvals"))).toMatchObject({ status: 200, body: { approvals: [{ session_id: "s9" }] } });
    expect(listed.at(-1)).toEqual({ user: "carol", session_id: "s9" });
  });

  it("passes a decision on with the caller, the chat, the call and the address, and answers the decided call", async () => {
    const reply = await json(await post("bob", "/api/sessions/s1/approvals/a1", { decision: "approve", arguments: { file_path: "docs/b.md", content: "y" } }));
    expect(reply).toMatchObject({ status: 200, body: { success: true, approval: { status: "approved", decided: { by: "bob", arguments_edited: true } } } });
    expect(decided.at(-1)).toMatchObject({ user: "bob", session_id: "s1", approval_id: "a1", decision: "approve", arguments: { file_path: "docs/b.md", content: "y" }, client_address: expect.any(String) });
  });

  it("refuses a body that is no decision before asking anyone, and answers an id that cannot be one as a missing call", async () => {
    const before = decided.length;
    expect(await json(await post("bob", "/api/sessions/s1/approvals/a1", { decision: "maybe" }))).toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR" } } });
    expect(await json(await post("bob", "/api/sessions/s1/approvals/a1", { decision: "approve", user: "alice" }))).toMatchObject({ status: 400 });
    expect(await json(await post("bob", "/api/sessions/s1/approvals/a.b", { decision: "approve" }))).toMatchObject({ status: 404, body: { error: { code: "APPROVAL_NOT_FOUND" } } });
    expect(decided.length).toBe(before);
  });

  it("answers the orchestrator's refusals with their statuses: 403 for who may not decide, 404 for another chat's call, 409 once decided", async () => {
    for (const [code, status] of [["PROJECT_FORBIDDEN", 403], ["SESSION_NOT_FOUND", 404], ["APPROVAL_NOT_FOUND", 404], ["APPROVAL_DECIDED", 409]] as const) {
      refuseWith = code;
      expect(await json(await post("carol", "/api/sessions/s1/approvals/a1", { decision: "reject", message: "no" }))).toMatchObject({ status, body: { success: false, error: { code } } });
    }
  });
});

describe("the WebSocket's approve", () => {
  const sockets: WebSocket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  async function send(user: FixtureUser, message: object): Promise<Record<string, any>> {
    const socket = new WebSocket(`${fixture.url().replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${tokens[user]}` } });
    sockets.push(socket);
    await once(socket, "open");
    socket.send(JSON.stringify(message));
    const [data] = (await once(socket, "message")) as [Buffer];
    return JSON.parse(String(data)) as Record<string, any>;
  }

  it("is answered with approval_decided, and never cancels the chat", async () => {
    const answer = await send("bob", { type: "approve", session_id: "s1", approval_id: "a1", decision: "reject", message: "Use the other file" });
    expect(answer).toEqual({ type: "approval_decided", session_id: "s1", approval_id: "a1", decision: "reject", by: "bob" });
    expect(decided.at(-1)).toMatchObject({ user: "bob", decision: "reject", message: "Use the other file" });
    expect(cancels).toEqual([]);
  });

  it("says which call a refused decision was about", async () => {
    refuseWith = "PROJECT_FORBIDDEN";
    const answer = await send("carol", { type: "approve", session_id: "s1", approval_id: "a1", decision: "approve" });
    expect(answer).toMatchObject({ type: "error", session_id: "s1", approval_id: "a1", error: { code: "PROJECT_FORBIDDEN" } });
  });
});
