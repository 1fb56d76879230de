/**
 * Chat attachments through the whole system on the scripted model: a file attached inline to a chat message is
 * stored in the project's `inputs/`, the model is told its virtual path in the user's message (and nothing of
 * its content), reads it with read_file at that path, and later turns still see the note; the chat shows the
 * message as typed with its attachments beside it. A large file uploaded into the chat's scratch space first is
 * attached from there (docs/uploads.md "A large file for a chat").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "@agent-orchestrator/tool-runner/testing";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { endsWithDateNote, withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

let system: TestSystem;
const notes = "# Launch notes\n\nThe lighthouse launches on the 4th of May.\n";

/**
 * Reads the first attached file the last user message names (its Markdown form when it has one, as a model that
 * follows the note would); answers a tool's result with its text verbatim.
 */
function readAttachments(request: ChatRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: String(last.content) };
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  const named = /^- (\{(?:project-root|session-folder)\}\/\S+)(?: — as Markdown: (\{(?:project-root|session-folder)\}\/\S+))?/m.exec(said);
  const path = named?.[2] ?? named?.[1];
  return path === undefined ? { text: "No files." } : { toolCalls: [{ name: "read_file", arguments: { file_path: path } }] };
}

async function api(method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const response = await fetch(`${system.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, any>;
}

beforeAll(async () => {
  system = await startTestSystem({ responder: readAttachments });
}, 120_000);

afterAll(() => system?.stop());

describe("chat attachments end to end", () => {
  it("the model reads an attached file at the path it was told, and later turns still name it", async () => {
    const attachments = [{ name: "notes.md", content_base64: Buffer.from(notes).toString("base64") }];
    // this turn's model requests, whatever ran before it
    const mark = system.model.requests.length;
    const first = await api("POST", "/api/chat", { agent_id: "idea-coach", message: "When do we launch?", attachments });
    expect(first).toMatchObject({ success: true });
    expect(first["response"]).toContain("The lighthouse launches on the 4th of May.");

    const requests = system.model.requests.slice(mark).map((request) => request.body);
    const asked = requests.find((body) => body.messages.at(-1)?.role === "user");
    const told = String(asked?.messages.at(-1)?.content);
    // the chat's first message: the system's note of the day ends it
    expect(told).toMatch(endsWithDateNote(/When do we launch\?\n\nAttached files .*\n- \{project-root\}\/inputs\/notes\.md/s));
    expect(told).not.toContain("lighthouse");
    expect(asked?.messages.at(-1)).not.toHaveProperty("attachments");
    const toolCall = requests.flatMap((body) => body.messages).find((message) => message.role === "assistant" && message.tool_calls !== undefined);
    expect(JSON.stringify(toolCall?.tool_calls)).toContain('{\\"file_path\\":\\"{project-root}/inputs/notes.md\\"}');

    const session = await api("GET", `/api/sessions/${first["session_id"] as string}`);
    expect(session["session"]["messages"][0]).toEqual({ role: "user", content: "When do we launch?", attachments: [{ path: "inputs/notes.md" }] });
    const stored = await fetch(`${system.url}/api/projects/${first["project_id"] as string}/files/inputs/notes.md?raw`);
    expect(await stored.text()).toBe(notes);

    const seen = system.model.requests.length;
    const second = await api("POST", "/api/chat", { agent_id: "idea-coach", message: "Thanks", session_id: first["session_id"] });
    expect(second).toMatchObject({ success: true, response: "No files." });
    const history = system.model.requests[seen]?.body.messages ?? [];
    const earlier = history.find((message) => message.role === "user" && String(message.content).startsWith("When do we launch?"));
    expect(String(earlier?.content)).toContain("- {project-root}/inputs/notes.md");
    expect(earlier).not.toHaveProperty("attachments");
  });

  it("a PDF attached to a message is read through its Markdown form, at the path the message named", async () => {
    const pdf = Buffer.from(buildPdf({ pages: [["Interview with the keeper", "Fog horns fail twice a year."]] }));
    const reply = await api("POST", "/api/chat", { agent_id: "idea-coach", message: "Summarise the interview", attachments: [{ name: "interview.pdf", content_base64: pdf.toString("base64") }] });
    expect(reply).toMatchObject({ success: true });
    const told = String(system.model.requests.map((request) => request.body).findLast((body) => body.messages.at(-1)?.role === "user")?.messages.at(-1)?.content);
    expect(told).toContain("- {project-root}/inputs/interview.pdf — as Markdown: {project-root}/inputs/interview.pdf.md");
    const read = JSON.parse(String(reply["response"])) as Record<string, unknown>;
    expect(read).toMatchObject({ success: true, path: "{project-root}/inputs/interview.pdf.md", converted_from: "{project-root}/inputs/interview.pdf" });
    expect(String(read["content"])).toContain("Fog horns fail twice a year.");
  });

  it("a PDF uploaded into the chat's scratch space is converted there, attached by {path, folder: \"session\"} and read at {session-folder}/…", async () => {
    const session = (await api("POST", "/api/sessions", { agent_id: "idea-coach" }))["session_id"] as string;
    const pdf = Buffer.from(buildPdf({ pages: [["Survey of keepers", "Nine in ten want brighter lamps."]] }));
    const put = await fetch(`${system.url}/api/sessions/${session}/files/inputs/survey.pdf`, { method: "PUT", body: pdf });
    expect({ status: put.status, body: await put.json() }).toMatchObject({ status: 201, body: { file: { path: "inputs/survey.pdf", conversion: { markdown_path: "inputs/survey.pdf.md" } }, markdown: { path: "inputs/survey.pdf.md" } } });
    const reply = await api("POST", "/api/chat", { agent_id: "idea-coach", session_id: session, message: "Summarise the survey", attachments: [{ path: "inputs/survey.pdf", folder: "session" }] });
    expect(reply).toMatchObject({ success: true });
    const told = String(system.model.requests.map((request) => request.body).findLast((body) => body.messages.at(-1)?.role === "user")?.messages.at(-1)?.content);
    expect(told).toContain("- {session-folder}/inputs/survey.pdf — as Markdown: {session-folder}/inputs/survey.pdf.md");
    const read = JSON.parse(String(reply["response"])) as Record<string, unknown>;
    expect(read).toMatchObject({ success: true, path: "{session-folder}/inputs/survey.pdf.md" });
    expect(String(read["content"])).toContain("Nine in ten want brighter lamps.");
    // the chat's files, not the project's
    expect((await api("GET", `/api/sessions/${session}/files`))["files"].map((file: { path: string }) => file.path)).toEqual(["inputs/survey.pdf", "inputs/survey.pdf.md"]);
    expect((await api("GET", `/api/projects/${reply["project_id"] as string}/files`))["files"].map((file: { path: string }) => file.path)).not.toContain("inputs/survey.pdf");
  });
});
