import { beforeAll, describe, expect, it } from "vitest";
import { BranchFileRequest, BranchFilesRequest, FilesListRequest, subjects } from "@agent-orchestrator/shared/wire";
import { FakeOrchestrator } from "../testing/fake-orchestrator.js";
import { gatewayFixture } from "../testing/gateway-fixture.js";

const fixture = gatewayFixture();
const orchestrator = new FakeOrchestrator(fixture);
const commit = "a".repeat(40);
const blob = "b".repeat(40);
const readme = { path: "README.md", size: 7, blob, executable: false, read_only: true };
const add = { path: "src/add.js", size: 3, blob, executable: false, read_only: true };
const asked: { subject: string; request: unknown }[] = [];
/** the tree the tool-runner lists; a test moves the branch between two pages by changing it once */
let tree = "c".repeat(40);
let moveAfterFirstPage: string | undefined;

// a tool-runner with one repository, of project `repo`; project `plain` has none
beforeAll(() => {
  orchestrator.answer();
  orchestrator.addProject("repo", "alice", { carol: "viewer" });
  orchestrator.addProject("plain", "alice");
  const point = (branch: string | undefined) => ({ branch: branch ?? "main", commit, working_tree: branch?.startsWith("chat/") === true });
  fixture.respond(subjects.repository("files"), BranchFilesRequest, (request) => {
    asked.push({ subject: "files", request });
    if (request.project_id !== "repo") return { success: true, files: null };
    // one file a page, as a large repository's list comes in pages that each fit one reply
    const all = [readme, add].filter((file) => file.path.startsWith(request.prefix ?? "") && file.path > (request.after ?? ""));
    const page = { ...point(request.branch), files: all.slice(0, 1), bytes: 10, unservable_names: 0, tree, ...(all.length > 1 ? { truncated: true, next_after: all[0]?.path } : {}) };
    if (moveAfterFirstPage !== undefined && request.after === undefined) {
      tree = moveAfterFirstPage;
      moveAfterFirstPage = undefined;
    }
    return { success: true, files: page };
  });
  fixture.respond(subjects.repository("read"), BranchFileRequest, (request) => {
    asked.push({ subject: "read", request });
    if (request.project_id !== "repo") return { success: true, file: null };
    if (request.download === true) return { success: true, file: { ...point(request.branch), file: readme, body: { inline: Buffer.from("# Calc\n").toString("base64") } } };
    return { success: true, file: { ...point(request.branch), file: readme, content: "# Calc\n", truncated: false } };
  });
  fixture.respond(subjects.files("list"), FilesListRequest, () => ({ success: true, files: [], bytes: 0, unservable_names: 0 }));
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });

describe("the files routes on a project's repository", () => {
  it("lists the branch asked for, naming branch and commit; the stored files of a project without a repository", async () => {
    const listed = await json(await fixture.api("carol", "/api/projects/repo/files?branch=chat%2Fs1&prefix=src/"));
    expect(listed).toEqual({ status: 200, body: { success: true, branch: "chat/s1", commit, working_tree: true, files: [add], bytes: 10, unservable_names: 0 } });
    expect(asked.at(-1)).toEqual({ subject: "files", request: { project_id: "repo", branch: "chat/s1", prefix: "src/" } });
    expect(await json(await fixture.api("alice", "/api/projects/plain/files"))).toEqual({ status: 200, body: { success: true, files: [], bytes: 0, unservable_names: 0 } });
  });

  it("lists a repository whole from its pages, each asked for after the last path of the one before, one list of one state", async () => {
    const before = asked.length;
    const listed = await json(await fixture.api("carol", "/api/projects/repo/files"));
    expect(listed).toEqual({ status: 200, body: { success: true, branch: "main", commit, working_tree: false, files: [readme, add], bytes: 10, unservable_names: 0 } });
    expect(asked.slice(before).map((entry) => (entry.request as { after?: string }).after)).toEqual([undefined, "README.md"]);
    // the branch moves between the first page and the second: the list starts again on the new state
    moveAfterFirstPage = "d".repeat(40);
    const again = asked.length;
    expect((await json(await fixture.api("carol", "/api/projects/repo/files"))).body["files"]).toEqual([readme, add]);
    expect(asked.slice(again).map((entry) => (entry.request as { after?: string }).after)).toEqual([undefined, "README.md", undefined, "README.md"]);
  });

  it("refuses a branch name git would misread before asking the tool-runner, and any branch of a project without a repository", async () => {
    const before = asked.length;
    for (const branch of ["..%2Fmain", "a..b", "main%0Ax", "%E2%80%AEmain"]) {
      expect((await json(await fixture.api("carol", `/api/projects/repo/files?branch=${branch}`))).body["error"].code, branch).toBe("VALIDATION_ERROR");
    }
    expect(asked.length).toBe(before);
    expect(await json(await fixture.api("alice", "/api/projects/plain/files?branch=main"))).toMatchObject({ status: 404, body: { error: { code: "BRANCH_NOT_FOUND" } } });
    expect((await json(await fixture.api("alice", "/api/projects/plain/files/README.md?branch=main"))).body["error"].code).toBe("BRANCH_NOT_FOUND");
  });

  it("reads a file as JSON, as raw text with the branch and commit in headers, or as a download; no revisions", async () => {
    expect(await json(await fixture.api("carol", "/api/projects/repo/files/README.md"))).toEqual({
      status: 200,
      body: { success: true, branch: "main", commit, working_tree: false, file: readme, content: "# Calc\n", truncated: false },
    });
    const raw = await fixture.api("carol", "/api/projects/repo/files/README.md?raw&branch=feature");
    expect([raw.headers.get("x-repository-branch"), raw.headers.get("x-repository-commit"), await raw.text()]).toEqual(["feature", commit, "# Calc\n"]);
    const download = await fixture.api("carol", "/api/projects/repo/files/README.md?download");
    expect([download.headers.get("content-type"), download.headers.get("content-disposition"), await download.text()]).toEqual(["application/octet-stream", expect.stringContaining("README.md"), "# Calc\n"]);
    expect(asked.at(-1)).toEqual({ subject: "read", request: { project_id: "repo", path: "README.md", download: true } });
    expect((await json(await fixture.api("carol", "/api/projects/repo/files/README.md?revisions"))).status).toBe(400);
  });
});
