import { once } from "node:events";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import WebSocket from "ws";
import { subjects, withAttachedFiles, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import { FakeFileStore } from "../testing/fake-file-store.js";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture, tokens, type FixtureUser } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const store = new FakeFileStore(fixture);
const team = { kind: "project", id: "team" } as const;

beforeAll(() => {
  orchestrator.answer();
  store.answer();
  orchestrator.addProject("team", "alice", { bob: "editor", carol: "viewer" });
  orchestrator.addProject("other", "alice", { bob: "editor" });
  store.put(team, "docs/brief.md", "# Brief\n", { user: "alice" });
  store.put({ kind: "project", id: "other" }, "secret/plan.md", "# Plan\n", { user: "alice" });
  orchestrator.addChat("bobs-chat", "team", "bob");
  orchestrator.addChat("alices-chat", "team", "alice");
  // a project with a git repository: `{project-root}` is the chat's working tree (docs/repositories.md "Attachments in a chat")
  orchestrator.addProject("repo", "alice", { bob: "editor", carol: "viewer" });
  store.repositories.set("repo", new Map([["src/app.js", "export {};\n"]]));
  store.put({ kind: "project", id: "repo" }, "docs/old.md", "# From before the repository\n", { user: "alice" });
  orchestrator.addChat("bobs-repo-chat", "repo", "bob").branch = "feature/login";
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
const failure = (code: string, message: unknown = expect.any(String)) => ({ success: false, error: { code, message } });
const post = (user: FixtureUser, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fixture.api(user, path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } });
const base64 = (text: string) => Buffer.from(text).toString("base64");
/** The turn requests the orchestrator has received. */
const turns = () => orchestrator.received.filter((entry) => entry.subject.startsWith(subjects.runRequest(""))).map((entry) => entry.request as RunStartRequest);
const turnOf = (sessionId: string) => turns().findLast((turn) => turn.session_id === sessionId) as RunStartRequest;
const content = (path: string, space = "project:team") => new TextDecoder().decode(store.uploaded.get(`${space}:${path}`));

describe("chat attachments", () => {
  it("stores an inline file in inputs/ of the chat's project, and the turn names it by its virtual path", async () => {
    const attachments = [{ name: "notes.md", content_base64: base64("# Notes\nship it\n") }];
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "Read my notes", project_id: "team", attachments }));
    expect(status).toBe(200);
    expect(content("inputs/notes.md")).toBe("# Notes\nship it\n");
    const turn = turnOf(body["session_id"] as string);
    expect(turn).toMatchObject({ message: "Read my notes", attachments: [{ path: "inputs/notes.md" }] });
    expect(withAttachedFiles(turn.message, turn.attachments)).toContain("- {project-root}/inputs/notes.md");
    expect(store.requests("upload").at(-1)).toMatchObject({ space: team, path: "inputs/notes.md", author: { user: "bob" } });
  });

  it("attaches a file already in the project by its path, `{project-root}/` accepted, in the order given", async () => {
    const attachments = [{ path: "{project-root}/docs/brief.md" }, { name: "extra.txt", content_base64: base64("x") }, { path: "docs/brief.md" }];
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "Compare", project_id: "team", attachments }));
    expect(status).toBe(200);
    expect(turnOf(body["session_id"] as string).attachments).toEqual([{ path: "docs/brief.md" }, { path: "inputs/extra.txt" }, { path: "docs/brief.md" }]);
  });

  it("answers 404 naming a path that is not in this project, another project's file included, and queues no turn", async () => {
    const before = turns().length;
    for (const path of ["docs/missing.md", "secret/plan.md"]) {
      const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", project_id: "team", attachments: [{ path }] }));
      expect({ status, body }).toEqual({ status: 404, body: failure("FILE_NOT_FOUND", expect.stringContaining(path)) });
    }
    expect(turns().length).toBe(before);
  });

  it("refuses paths out of the project or with other variables (400), and uploads nothing of a refused message", async () => {
    const uploads = store.requests("upload").length;
    const inline = { name: "fine.md", content_base64: base64("fine") };
    for (const path of ["../x", "docs/../../x", "/etc/passwd", "{session-folder}/x.md", "{project-root}/../x"]) {
      const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", project_id: "team", attachments: [inline, { path }] }));
      expect({ path, status, body }).toEqual({ path, status: 400, body: failure("INVALID_PATH", expect.stringContaining("attachments.1.path")) });
    }
    for (const bad of [{ name: "../evil.md", content_base64: base64("x") }, { name: "a.md", content_base64: "%%%" }]) {
      const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", project_id: "team", attachments: [bad] }));
      expect({ status, body }).toEqual({ status: 400, body: failure("VALIDATION_ERROR") });
    }
    expect(store.requests("upload").length).toBe(uploads);
  });

  it("refuses a viewer's attachments (403) before anything is stored", async () => {
    const uploads = store.requests("upload").length;
    const attachments = [{ name: "viewer.md", content_base64: base64("x") }];
    const { status, body } = await json(await post("carol", "/api/chat", { agent_id: "a", message: "read", project_id: "team", attachments }));
    expect({ status, body }).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect(store.requests("upload").length).toBe(uploads);
  });

  it("a continued chat attaches into its own project; someone else's chat and another project are refused", async () => {
    const attachments = [{ name: "later.md", content_base64: base64("later") }];
    const others = await json(await post("bob", "/api/chat", { agent_id: "a", message: "more", session_id: "alices-chat", attachments }));
    expect(others).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    const moved = await json(await post("bob", "/api/chat", { agent_id: "a", message: "more", session_id: "bobs-chat", project_id: "other", attachments }));
    expect(moved).toEqual({ status: 400, body: failure("BAD_REQUEST") });
    expect(store.uploaded.has("project:team:inputs/later.md")).toBe(false);
    const { status } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "more", session_id: "bobs-chat", attachments }));
    expect(status).toBe(200);
    expect(content("inputs/later.md")).toBe("later");
    expect(turnOf("bobs-chat").attachments).toEqual([{ path: "inputs/later.md" }]);
  });

  it("a WebSocket chat carries attachments too", async () => {
    const socket = new WebSocket(`${fixture.url().replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${tokens.bob}` } });
    onTestFinished(() => socket.close());
    const events: Record<string, any>[] = [];
    socket.on("message", (data) => events.push(JSON.parse(String(data)) as Record<string, any>));
    await once(socket, "open");
    socket.send(JSON.stringify({ type: "chat", agent_id: "a", message: "hi", project_id: "team", attachments: [{ path: "docs/brief.md" }] }));
    await expect.poll(() => events.find((event) => event["type"] === "done")).toBeTruthy();
    expect(turnOf(events[0]?.["session_id"] as string).attachments).toEqual([{ path: "docs/brief.md" }]);
  });
});

describe("chat attachments in a project with a git repository", () => {
  const statOf = (sessionId: string) => store.requests("repository_stat").findLast((request) => (request as { session_id: string }).session_id === sessionId);

  it("attaches a file of the chat's working tree by its path, looked up for the new chat's id and the branch it starts on", async () => {
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "Review", project_id: "repo", branch: "feature/login", attachments: [{ path: "{project-root}/src/app.js" }] }));
    expect(status).toBe(200);
    const sessionId = body["session_id"] as string;
    expect(statOf(sessionId)).toEqual({ project_id: "repo", session_id: sessionId, branch: "feature/login", paths: ["src/app.js"] });
    expect(turnOf(sessionId).attachments).toEqual([{ path: "src/app.js" }]);
  });

  it("answers 404 for a file only the project's old stored files hold: the working tree is what the chat's tools see", async () => {
    const before = turns().length;
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", project_id: "repo", attachments: [{ path: "docs/old.md" }] }));
    expect({ status, body }).toEqual({ status: 404, body: failure("FILE_NOT_FOUND", expect.stringContaining("chat's working tree: docs/old.md")) });
    expect(turns().length).toBe(before);
  });

  it("stores an inline file in the chat's scratch space, never in the repository or the old stored files, and names it {session-folder}/…", async () => {
    const attachments = [{ name: "notes.md", content_base64: base64("# Notes\n") }, { path: "src/app.js" }];
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "Read my notes", project_id: "repo", attachments }));
    expect(status).toBe(200);
    const sessionId = body["session_id"] as string;
    expect(content("inputs/notes.md", `session:${sessionId}`)).toBe("# Notes\n");
    expect(store.uploaded.has("project:repo:inputs/notes.md")).toBe(false);
    const turn = turnOf(sessionId);
    expect(turn.attachments).toEqual([{ path: "inputs/notes.md", folder: "session" }, { path: "src/app.js" }]);
    expect(withAttachedFiles(turn.message, turn.attachments)).toContain("- {session-folder}/inputs/notes.md\n- {project-root}/src/app.js");
  });

  it("a continued chat looks its files up on its own branch and keeps an inline file in its own scratch space", async () => {
    const attachments = [{ name: "later.md", content_base64: base64("later") }];
    const { status } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "more", session_id: "bobs-repo-chat", attachments }));
    expect(status).toBe(200);
    expect(statOf("bobs-repo-chat")).toMatchObject({ project_id: "repo", branch: "feature/login" });
    expect(content("inputs/later.md", "session:bobs-repo-chat")).toBe("later");
    expect(turnOf("bobs-repo-chat").attachments).toEqual([{ path: "inputs/later.md", folder: "session" }]);
  });

  it("refuses a viewer's attachments (403) and a name no file may have (400) before anything is stored (case 350)", async () => {
    const uploads = store.requests("upload").length;
    const viewer = await json(await post("carol", "/api/chat", { agent_id: "a", message: "read", project_id: "repo", attachments: [{ name: "v.md", content_base64: base64("x") }] }));
    expect(viewer).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    const secret = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", project_id: "repo", attachments: [{ name: ".env", content_base64: base64("x") }] }));
    expect(secret).toEqual({ status: 400, body: failure("INVALID_PATH") });
    expect(store.requests("upload").length).toBe(uploads);
  });
});

describe("chat attachments from the chat's scratch space", () => {
  // each message names the chat's project: the fake orchestrator files a turn without one under the owner's default project
  beforeAll(() => {
    orchestrator.addChat("bobs-scratch-chat", "repo", "bob");
    store.put({ kind: "session", id: "bobs-scratch-chat" }, "inputs/big.md", "# Big\n", { user: "bob" });
    store.put({ kind: "session", id: "bobs-repo-chat" }, "inputs/elsewhere.md", "# Another chat's\n", { user: "bob" });
  });

  it("attaches a file uploaded into the chat's scratch space by {path, folder: \"session\"}, `{session-folder}/` accepted, and names it {session-folder}/…", async () => {
    const attachments = [{ path: "inputs/big.md", folder: "session" }, { path: "{session-folder}/inputs/big.md", folder: "session" }, { path: "src/app.js" }];
    const { status } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "Read it", session_id: "bobs-scratch-chat", project_id: "repo", attachments }));
    expect(status).toBe(200);
    const turn = turnOf("bobs-scratch-chat");
    expect(turn.attachments).toEqual([{ path: "inputs/big.md", folder: "session" }, { path: "inputs/big.md", folder: "session" }, { path: "src/app.js" }]);
    expect(withAttachedFiles(turn.message, turn.attachments)).toContain("- {session-folder}/inputs/big.md\n");
    expect(store.requests("stat").at(-1)).toMatchObject({ space: { kind: "session", id: "bobs-scratch-chat" }, paths: ["inputs/big.md", "inputs/big.md"] });
  });

  it("looks the path up only in this chat's own scratch space: another chat's file or a project file is 404, and no turn is queued (case 365)", async () => {
    const before = turns().length;
    for (const path of ["inputs/elsewhere.md", "src/app.js", "docs/old.md"]) {
      const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", session_id: "bobs-scratch-chat", project_id: "repo", attachments: [{ path, folder: "session" }] }));
      expect({ status, body }).toEqual({ status: 404, body: failure("FILE_NOT_FOUND", expect.stringContaining(`chat's scratch space: ${path}`)) });
    }
    expect(turns().length).toBe(before);
  });

  it("refuses paths out of the scratch space or with another variable (400)", async () => {
    for (const path of ["../x.md", "inputs/../../x.md", "/etc/passwd", "{project-root}/src/app.js", "{session-folder}/../x"]) {
      const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", session_id: "bobs-scratch-chat", project_id: "repo", attachments: [{ path, folder: "session" }] }));
      expect({ path, status, body }).toEqual({ path, status: 400, body: failure("INVALID_PATH", expect.stringContaining("attachments.0.path")) });
    }
  });

  it("answers a new chat's scratch-space attachment 400 SESSION_REQUIRED, saying how to start the chat first, before anything is stored", async () => {
    const before = { turns: turns().length, uploads: store.requests("upload").length };
    const attachments = [{ name: "small.md", content_base64: base64("x") }, { path: "inputs/big.md", folder: "session" }];
    const { status, body } = await json(await post("bob", "/api/chat", { agent_id: "a", message: "read", project_id: "repo", attachments }));
    expect({ status, body }).toEqual({ status: 400, body: failure("SESSION_REQUIRED", expect.stringContaining("POST /api/sessions")) });
    expect({ turns: turns().length, uploads: store.requests("upload").length }).toEqual(before);
  });

  it("refuses a viewer (403) and someone else's chat (403) before looking anything up", async () => {
    const asked = store.requests("stat").length;
    const attachments = [{ path: "inputs/big.md", folder: "session" }];
    expect(await json(await post("carol", "/api/chat", { agent_id: "a", message: "read", session_id: "bobs-scratch-chat", project_id: "repo", attachments }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect(await json(await post("alice", "/api/chat", { agent_id: "a", message: "read", session_id: "bobs-scratch-chat", project_id: "repo", attachments }))).toEqual({ status: 403, body: failure("PROJECT_FORBIDDEN") });
    expect(store.requests("stat").length).toBe(asked);
  });
});

describe("/v1 file parts", () => {
  const completion = (content: unknown[], user: FixtureUser = "bob") =>
    post(user, "/v1/chat/completions", { model: "a", messages: [{ role: "user", content }] }, { "x-project-id": "team" });

  it("stores file_data (a data URL) as inputs/<filename> and attaches it; file_id names a project path", async () => {
    const response = await completion([
      { type: "text", text: "Summarise" },
      { type: "file", file: { filename: "report.md", file_data: `data:text/markdown;base64,${base64("# Report\n")}` } },
      { type: "file", file: { file_id: "docs/brief.md" } },
    ]);
    expect(response.status).toBe(200);
    expect(content("inputs/report.md")).toBe("# Report\n");
    const turn = turnOf(response.headers.get("x-session-id") as string);
    expect(turn).toMatchObject({ message: "Summarise", attachments: [{ path: "inputs/report.md" }, { path: "docs/brief.md" }] });
  });

  it("refuses an image_url part with a 400 in OpenAI's shape that says which parts are supported", async () => {
    const { status, body } = await json(await completion([{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url: "https://example.com/a.png" } }]));
    expect(status).toBe(400);
    expect(body).toEqual({ error: { message: expect.stringContaining('send "text" and "file" parts'), type: "invalid_request_error", param: null, code: "validation_error" } });
    expect(body["error"].message).toContain("image_url");
  });

  it("refuses file_data without a filename, or that is not base64", async () => {
    for (const file of [{ file_data: base64("x") }, { filename: "a.md", file_data: "data:text/plain,hello" }, { filename: "a.md", file_data: "not base64!" }]) {
      const { status, body } = await json(await completion([{ type: "text", text: "read" }, { type: "file", file }]));
      expect({ file, status, code: body["error"]?.code }).toEqual({ file, status: 400, code: "validation_error" });
    }
  });
});
