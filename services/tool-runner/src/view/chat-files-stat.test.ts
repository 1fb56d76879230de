import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";
import { statChatFiles } from "./chat-files-stat.js";

let system: TestRepositories;
let project: string;
const removals: Array<() => Promise<void>> = [];
const found = (reply: Awaited<ReturnType<typeof statChatFiles>>) => {
  if (!reply.success) throw new Error(JSON.stringify(reply));
  return reply.files?.map((file) => file?.path ?? null);
};

beforeAll(async () => {
  system = await openTestRepositories();
  const made = await makeTestRepository(
    { "README.md": "# Calc\n", "src/add.js": "export {};\n", ".env": "TOKEN=x\n", "_bmad/bmm/config.yaml": "x: 1\n", "link-out": { link: "/etc/passwd" } },
    { feature: { "src/mul.js": "export {};\n" } },
  );
  removals.push(made.remove);
  project = await system.attached(made.bundle);
  await system.trees.change({ project, session: "s1" }, async () => [{ path: "notes/draft.md", content: Buffer.from("# Draft\n") }], { user: "alice", session_id: "s1" });
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

describe("a chat message's attachments in a repository", () => {
  it("finds a file in the chat's working tree, uncommitted ones included, and not in another chat's", async () => {
    expect(found(await statChatFiles(system.trees, { project_id: project, session_id: "s1", paths: ["notes/draft.md", "README.md"] }))).toEqual(["notes/draft.md", "README.md"]);
    expect(found(await statChatFiles(system.trees, { project_id: project, session_id: "s2", paths: ["notes/draft.md", "README.md"] }))).toEqual([null, "README.md"]);
  });

  it("a new chat started on a branch sees that branch's files", async () => {
    expect(found(await statChatFiles(system.trees, { project_id: project, session_id: "s3", branch: "feature", paths: ["src/mul.js"] }))).toEqual(["src/mul.js"]);
    expect(found(await statChatFiles(system.trees, { project_id: project, session_id: "s3", paths: ["src/mul.js"] }))).toEqual([null]);
  });

  it("finds no link, protected name or install place, and no folder, as the files API (case 350)", async () => {
    expect(found(await statChatFiles(system.trees, { project_id: project, session_id: "s1", paths: ["link-out", ".env", "_bmad/bmm/config.yaml", "src"] }))).toEqual([null, null, null, null]);
  });

  it("refuses a path out of the tree and answers null for a project without a repository", async () => {
    await expect(statChatFiles(system.trees, { project_id: project, session_id: "s1", paths: ["../x"] })).rejects.toMatchObject({ code: "INVALID_PATH" });
    expect(await statChatFiles(system.trees, { project_id: "no-repository", session_id: "s1", paths: ["README.md"] })).toEqual({ success: true, files: null });
  });
});
