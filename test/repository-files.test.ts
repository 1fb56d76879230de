/**
 * The files API on a project's git repository through the whole system (docs/repositories.md "The files API on a
 * repository"), on a real BMAD 6.12 install and the scripted model: the default branch shows the bundle's files;
 * a chat's `save_output` of the PRD shows on the chat's branch, uncommitted, and not on main; a viewer reads, a
 * non-member gets 404; an unknown branch is BRANCH_NOT_FOUND; writes through the files API are refused with
 * REPOSITORY_FILES_READ_ONLY, and nothing reaches the stored files. Security cases 339–342.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { toolCallResponder } from "@agent-orchestrator/testing/tool-call-responder";
import { makeTestRepository, testGit } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token", mallory: "mallory-token" };
type Member = keyof typeof tokens;
const prd = "_bmad-output/planning-artifacts/prd.md";
let system: TestSystem;
let project: string;
let plain: string;
let main: string;
let session: string;
const removals: Array<() => Promise<void>> = [];

async function call(user: Member, method: string, route: string, body?: { json?: unknown; raw?: string; type?: string }): Promise<Response> {
  const type = body?.json === undefined ? body?.type : "application/json";
  return fetch(`${system.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${tokens[user]}`, ...(type === undefined ? {} : { "content-type": type }) },
    ...(body?.json !== undefined ? { body: JSON.stringify(body.json) } : body?.raw !== undefined ? { body: body.raw } : {}),
  });
}

async function api(user: Member, method: string, route: string, body?: { json?: unknown; raw?: string; type?: string }): Promise<{ status: number; body: Record<string, any> }> {
  const response = await call(user, method, route, body);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const paths = (listing: { files: Array<{ path: string }> }) => listing.files.map((file) => file.path);

beforeAll(async () => {
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({ responder: toolCallResponder, env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(",") } });
  const made = await makeTestRepository({
    "README.md": "# Calc\n",
    "src/add.js": "export const add = (a, b) => a + b;\n",
    "docs/architecture.md": "# Architecture\n",
    // the repository's own copy of BMAD's install and a secret: the view shows neither
    "_bmad/bmm/config.yaml": "project_name: from-the-repository\n",
    ".env": "TOKEN=secret\n",
    "link-out": { link: "/etc/passwd" },
  });
  removals.push(made.remove);
  main = testGit(made.folder, ["rev-parse", "HEAD"]).trim();
  testGit(made.folder, ["bundle", "create", "-q", made.bundle, "--all"]);
  project = (await api("alice", "POST", "/api/projects", { json: { name: "Calc" } })).body["project"].id as string;
  plain = (await api("alice", "POST", "/api/projects", { json: { name: "No repository" } })).body["project"].id as string;
  await api("alice", "PUT", `/api/projects/${project}/members/bob`, { json: { role: "editor" } });
  await api("alice", "PUT", `/api/projects/${project}/members/carol`, { json: { role: "viewer" } });
  expect((await attachBundle(system.url, project, made.bundle, tokens.alice)).status).toBe(201);
  const saved = await api("alice", "POST", "/api/chat", {
    json: { agent_id: "bmm/pm", project_id: project, message: `call save_output\n${JSON.stringify({ file_path: `{project-root}/${prd}`, content: "# PRD\n\nJohn's draft.\n" })}` },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  expect(JSON.parse(saved.body["response"] as string)).toMatchObject({ success: true });
  session = saved.body["session_id"] as string;
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await Promise.all(removals.map((remove) => remove()));
});

describe("the files API on a repository", { shuffle: false }, () => {
  it("lists the default branch's last commit without ?branch: the bundle's files, not the install's copy, a secret or a link (case 341)", async () => {
    const listed = await api("carol", "GET", `/api/projects/${project}/files`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ success: true, branch: "main", commit: main, working_tree: false, unservable_names: 1 });
    expect(paths(listed.body as { files: Array<{ path: string }> })).toEqual(["README.md", "docs/architecture.md", "src/add.js"]);
    expect(listed.body["files"][0]).toEqual({ path: "README.md", size: 7, blob: expect.stringMatching(/^[0-9a-f]{40}$/), executable: false, read_only: true });
    const docs = await api("carol", "GET", `/api/projects/${project}/files?prefix=docs/&branch=main`);
    expect(paths(docs.body as { files: Array<{ path: string }> })).toEqual(["docs/architecture.md"]);
    for (const hidden of ["_bmad/bmm/config.yaml", "link-out"]) {
      expect((await api("carol", "GET", `/api/projects/${project}/files/${hidden}`)).body["error"]?.code, hidden).toBe("FILE_NOT_FOUND");
    }
    expect((await api("carol", "GET", `/api/projects/${project}/files/.env`)).body["error"]?.code).toBe("PROTECTED_PATH");
  });

  it("shows a chat's branch as its working tree: the PRD the turn saved, uncommitted; main does not have it", async () => {
    const branch = `chat/${session}`;
    const listed = await api("carol", "GET", `/api/projects/${project}/files?branch=${encodeURIComponent(branch)}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ branch, commit: main, working_tree: true });
    expect(paths(listed.body as { files: Array<{ path: string }> })).toContain(prd);
    const onMain = await api("carol", "GET", `/api/projects/${project}/files`);
    expect(paths(onMain.body as { files: Array<{ path: string }> })).not.toContain(prd);
    expect((await api("carol", "GET", `/api/projects/${project}/files/${prd}`)).status).toBe(404);

    const read = await api("carol", "GET", `/api/projects/${project}/files/${prd}?branch=${branch}`);
    expect(read).toMatchObject({ status: 200, body: { success: true, branch, commit: main, working_tree: true, file: { path: prd, read_only: true }, content: "# PRD\n\nJohn's draft.\n", truncated: false } });
    const raw = await call("carol", "GET", `/api/projects/${project}/files/${prd}?branch=${branch}&raw`);
    expect(raw.headers.get("x-repository-branch")).toBe(branch);
    expect(await raw.text()).toBe("# PRD\n\nJohn's draft.\n");
    const download = await call("carol", "GET", `/api/projects/${project}/files/src/add.js?download`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(await download.text()).toBe("export const add = (a, b) => a + b;\n");
  });

  it("answers an unknown branch, a branch name git refuses and a path out of the tree alike, never a host file (case 339, case 340)", async () => {
    expect((await api("carol", "GET", `/api/projects/${project}/files?branch=no-such-branch`)).body["error"].code).toBe("BRANCH_NOT_FOUND");
    expect((await api("carol", "GET", `/api/projects/${project}/files/README.md?branch=no-such-branch`)).status).toBe(404);
    expect((await api("alice", "GET", `/api/projects/${plain}/files?branch=main`)).body["error"].code).toBe("BRANCH_NOT_FOUND");
    for (const branch of ["../main", "main/../../etc", "a..b", "fix\u202egnp", "main\nx"]) {
      const refused = await api("carol", "GET", `/api/projects/${project}/files?branch=${encodeURIComponent(branch)}`);
      expect(refused.status, branch).toBe(400);
      expect(refused.body["error"].code).toBe("VALIDATION_ERROR");
    }
    for (const path of ["..%2F..%2Fetc%2Fpasswd", "src/..%2F..%2F.env", "link-out"]) {
      const escaped = await api("carol", "GET", `/api/projects/${project}/files/${path}`);
      expect([400, 403, 404], path).toContain(escaped.status);
      expect(JSON.stringify(escaped.body)).not.toContain("root:");
    }
  });

  it("is read by any member; a non-member gets 404 for the project as for a missing one", async () => {
    expect((await api("bob", "GET", `/api/projects/${project}/files/README.md`)).body["content"]).toBe("# Calc\n");
    const outsider = await api("mallory", "GET", `/api/projects/${project}/files?branch=main`);
    expect(outsider).toMatchObject({ status: 404, body: { error: { code: "PROJECT_NOT_FOUND" } } });
    expect((await api("mallory", "GET", `/api/projects/${project}/files/README.md`)).status).toBe(404);
  });

  it("refuses writes through the files API with REPOSITORY_FILES_READ_ONLY, a viewer's with PROJECT_FORBIDDEN; nothing reaches the stored files (case 342)", async () => {
    const upload = await api("bob", "PUT", `/api/projects/${project}/files/docs/new.md`, { raw: "# New\n" });
    expect(upload).toMatchObject({ status: 409, body: { error: { code: "REPOSITORY_FILES_READ_ONLY", message: expect.stringContaining("git") } } });
    expect((await api("bob", "DELETE", `/api/projects/${project}/files/README.md`)).body["error"].code).toBe("REPOSITORY_FILES_READ_ONLY");
    expect((await api("bob", "POST", `/api/projects/${project}/files/README.md?restore=1`)).body["error"].code).toBe("REPOSITORY_FILES_READ_ONLY");
    // an import is refused whole, before its archive is even read
    expect((await api("bob", "POST", `/api/projects/${project}/import`, { raw: "not a zip at all", type: "application/zip" })).body["error"].code).toBe("REPOSITORY_FILES_READ_ONLY");
    expect((await api("carol", "PUT", `/api/projects/${project}/files/docs/new.md`, { raw: "# New\n" })).body["error"].code).toBe("PROJECT_FORBIDDEN");
    expect((await api("carol", "DELETE", `/api/projects/${project}/files/README.md`)).body["error"].code).toBe("PROJECT_FORBIDDEN");
    // once detached, the project's stored files show again: the refused upload is not among them
    expect((await api("alice", "DELETE", `/api/projects/${project}/repository`)).status).toBe(200);
    const stored = await api("carol", "GET", `/api/projects/${project}/files`);
    expect(stored.body).toMatchObject({ success: true, files: [] });
  });

  it("leaves a project without a repository as it was: its stored files, revisions and writes", async () => {
    expect((await api("alice", "PUT", `/api/projects/${plain}/files/docs/brief.md`, { raw: "# Brief\n" })).status).toBe(201);
    const listed = await api("alice", "GET", `/api/projects/${plain}/files`);
    expect(listed.body).toMatchObject({ success: true, files: [{ path: "docs/brief.md", revision: 1, read_only: false }] });
    expect(listed.body["branch"]).toBeUndefined();
  });
});
