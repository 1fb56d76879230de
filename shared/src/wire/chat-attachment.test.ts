import { describe, expect, it } from "vitest";
import { ChatRequestBody, WsClientMessage } from "./http-api.js";
import { ChatToolInput } from "./mcp-tools.js";
import { ChatCompletionRequest } from "./openai-api.js";
import { RunStartRequest } from "./run-messages.js";
import { VisibleMessage } from "./session-messages.js";
import { Attachment, maxAttachments } from "./chat-attachment.js";

const chat = { agent_id: "a", message: "read this" };

describe("chat attachments", () => {
  it("are a project path, a path in the chat's scratch space, or a plain file name with base64 content", () => {
    expect(Attachment.parse({ path: "inputs/brief.pdf" })).toEqual({ path: "inputs/brief.pdf" });
    expect(Attachment.parse({ path: "inputs/big.pdf", folder: "session" })).toEqual({ path: "inputs/big.pdf", folder: "session" });
    expect(Attachment.parse({ name: "notes.md", content_base64: "aGVsbG8=" })).toEqual({ name: "notes.md", content_base64: "aGVsbG8=" });
    for (const bad of [
      { name: "../x.md", content_base64: "aGVsbG8=" },
      { name: "docs/x.md", content_base64: "aGVsbG8=" },
      { name: "..", content_base64: "aGVsbG8=" },
      { name: "x.md", content_base64: "not base64!" },
      { path: "" },
      { path: "a.md", name: "b.md", content_base64: "aGVsbG8=" },
      { path: "a.md", folder: "project" },
      { name: "a.md", content_base64: "aGVsbG8=", folder: "session" },
    ]) {
      expect(Attachment.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("ride on POST /api/chat, the WebSocket chat and the MCP chat tool, 20 at most", () => {
    const attachments = [{ path: "inputs/brief.pdf" }, { name: "notes.md", content_base64: "aGVsbG8=" }];
    expect(ChatRequestBody.parse({ ...chat, attachments }).attachments).toEqual(attachments);
    expect(WsClientMessage.parse({ type: "chat", ...chat, attachments })).toMatchObject({ attachments });
    expect(ChatToolInput.parse({ ...chat, attachments }).attachments).toEqual(attachments);
    const tooMany = Array.from({ length: maxAttachments + 1 }, (_, index) => ({ path: `f${index}.md` }));
    expect(ChatRequestBody.safeParse({ ...chat, attachments: tooMany }).success).toBe(false);
  });

  it("reach the orchestrator resolved, and a user message shows them; both stay optional for older senders and records", () => {
    const request = { run_id: "r", session_id: "s", new_session: true, agent_id: "a", message: "hi", owner: "alice", expires_at: 1 };
    expect(RunStartRequest.parse(request).attachments).toBeUndefined();
    const attachments = [{ path: "inputs/brief.pdf", markdown_path: "inputs/brief.pdf.md" }];
    expect(RunStartRequest.parse({ ...request, attachments }).attachments).toEqual(attachments);
    expect(VisibleMessage.parse({ role: "user", content: "hi" })).toEqual({ role: "user", content: "hi" });
    expect(VisibleMessage.parse({ role: "user", content: "hi", attachments })).toEqual({ role: "user", content: "hi", attachments });
  });

  it("/v1 takes text and file parts and names the supported types when a part is of another", () => {
    const file = { type: "file", file: { filename: "brief.pdf", file_data: "data:application/pdf;base64,JVBERg==" } };
    const body = (content: unknown[]) => ({ model: "a", messages: [{ role: "user", content }] });
    expect(ChatCompletionRequest.safeParse(body([{ type: "text", text: "read" }, file, { type: "file", file: { file_id: "inputs/a.md" } }])).success).toBe(true);
    const image = ChatCompletionRequest.safeParse(body([{ type: "image_url", image_url: { url: "https://x/y.png" } }]));
    expect(image.error?.issues[0]).toMatchObject({ path: ["messages", 0, "content", 0, "type"], message: expect.stringContaining('send "text" and "file" parts') });
    expect(ChatCompletionRequest.safeParse(body([{ type: "file", file: { file_data: "JVBERg==" } }])).success).toBe(false);
    expect(ChatCompletionRequest.safeParse(body([{ type: "file", file: { filename: "a", file_data: "JVBERg==", file_id: "a" } }])).success).toBe(false);
  });
});
