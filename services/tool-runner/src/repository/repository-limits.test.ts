import { randomUUID } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorOf as errorOf } from "../testing/app-error-of.js";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import { objectId } from "../git/tree-object.js";

let system: TestRepositories;
let bundle: string;
const removals: Array<() => Promise<void>> = [];
const alice = { user: "alice", session_id: "s1", agent_id: "dev" };
const appErrorOf = (promise: Promise<unknown>) => errorOf(promise, tmpdir());
const newProject = () => `p${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  system = await openTestRepositories({ maxFiles: 3, maxRefs: 2, remoteHosts: ["git.example.com"], allowHttp: false });
  const made = await makeTestRepository({ "a.txt": "a\n", "b.txt": "b\n" }, { one: { "c.txt": "c\n" } });
  bundle = made.bundle;
  removals.push(made.remove);
});

afterAll(async () => {
  await system.close();
  await Promise.all(removals.map((remove) => remove()));
});

describe("a repository's limits", () => {
  it("refuses a bundle past REPOSITORY_MAX_FILES or REPOSITORY_MAX_REFS whole, storing nothing (case 287)", async () => {
    const many = await makeTestRepository({ "1.txt": "1", "2.txt": "2", "3.txt": "3", "4.txt": "4" });
    removals.push(many.remove);
    const project = newProject();
    const files = await appErrorOf(system.repositories.attachBundle(project, many.bundle, "alice"));
    expect(files).toMatchObject({ code: "REPOSITORY_REFUSED", message: expect.stringContaining("REPOSITORY_MAX_FILES") });
    const branches = await makeTestRepository({ "a.txt": "a" }, { one: { "b.txt": "b" }, two: { "c.txt": "c" } });
    removals.push(branches.remove);
    const refs = await appErrorOf(system.repositories.attachBundle(project, branches.bundle, "alice"));
    expect(refs).toMatchObject({ code: "REPOSITORY_REFUSED", message: expect.stringContaining("REPOSITORY_MAX_REFS") });
    expect(await system.repositories.view(project)).toBeNull();
  });

  it("refuses a bundle whose pack claims more objects than its bytes hold, before git reads it, storing nothing (case 334)", async () => {
    const bytes = await readFile(bundle);
    const pack = bytes.indexOf("PACK");
    bytes.writeUInt32BE(0xfffffff0, pack + 8);
    const forged = path.join(tmpdir(), `forged-${randomUUID()}.bundle`);
    await writeFile(forged, bytes);
    removals.push(() => rm(forged, { force: true }));
    const project = newProject();
    const refused = await appErrorOf(system.repositories.attachBundle(project, forged, "alice"));
    expect(refused).toMatchObject({ code: "REPOSITORY_REFUSED", message: expect.stringContaining(`claims ${0xfffffff0} objects`) });
    expect(await system.repositories.view(project)).toBeNull();
  });

  it("refuses a body that is not a bundle or whose pack is cut short, and tells a bundle the store could not give back from one git refused", async () => {
    const bytes = await readFile(bundle);
    const project = newProject();
    const source = (parts: Buffer[], failure?: Error) => ({
      size: bytes.byteLength,
      chunks: (async function* () {
        yield* parts;
        if (failure) throw failure;
      })(),
    });
    const notBundle = await appErrorOf(system.repositories.attachBundle(project, source([Buffer.from("hello\n\nworld")]), "alice"));
    expect(notBundle).toMatchObject({ code: "REPOSITORY_REFUSED", message: expect.stringContaining("not a git bundle") });
    const cut = await appErrorOf(system.repositories.attachBundle(project, source([bytes.subarray(0, bytes.byteLength - 30)]), "alice"));
    expect(cut).toMatchObject({ code: "REPOSITORY_REFUSED", message: expect.stringContaining("its pack is damaged") });
    const lost = await appErrorOf(system.repositories.attachBundle(project, source([bytes.subarray(0, bytes.indexOf("PACK") + 40)], new Error("the store went away")), "alice"));
    expect(lost.code).toBe("WRITE_FAILED");
    expect(await system.repositories.view(project)).toBeNull();
  });

  it("refuses a change that would pass REPOSITORY_MAX_FILES, keeping the working tree as it was", async () => {
    const project = newProject();
    await system.repositories.attachBundle(project, bundle, "alice");
    const chat = { project, session: "s1" };
    await system.trees.change(chat, async () => [{ path: "c.txt", content: Buffer.from("c") }], alice);
    const refused = await appErrorOf(system.trees.change(chat, async () => [{ path: "d.txt", content: Buffer.from("d") }], alice));
    expect(refused.code).toBe("QUOTA_EXCEEDED");
    const view = await system.trees.view(chat);
    expect((await system.trees.lookup(view!, "d.txt")).found).toBe("none");
  });

  it("keeps no object a command wrote under another object's name, nor a commit that names it (case 288)", async () => {
    const project = newProject();
    await system.repositories.attachBundle(project, bundle, "alice");
    const claimed = objectId("blob", Buffer.from("what another project holds\n"));
    const refused = await appErrorOf(
      system.trees.withWorkingTree(
        { project, session: "s1" },
        async ({ directory, gitDirectory }) => {
          const folder = path.join(gitDirectory, "objects", claimed.slice(0, 2));
          await mkdir(folder, { recursive: true });
          await writeFile(path.join(folder, claimed.slice(2)), deflateSync(Buffer.from("blob 6\0forged")));
          const tree = testGit(directory, ["mktree", "--missing"], `100644 blob ${claimed}\tstolen.txt\n`).trim();
          const commit = testGit(directory, ["commit-tree", tree, "-p", "HEAD", "-m", "steal"]).trim();
          testGit(directory, ["update-ref", "HEAD", commit]);
        },
        alice,
      ),
    );
    expect(refused.code).toBe("WRITE_FAILED");
    const view = await system.trees.view({ project, session: "s1" });
    await expect(view!.repository.local.read(claimed)).rejects.toThrow(/missing/);
    expect((await system.trees.lookup(view!, "stolen.txt")).found).toBe("none");
    expect(view!.state.head).toBe((await system.repositories.view(project))?.branches.find((branch) => branch.name === "main")?.head);
  });
});

describe("a repository's pack list", () => {
  it("stays short: the small packs file writes add are made one, and a new replica reads every file", async () => {
    const packed = await openTestRepositories({ maxPacks: 3 });
    try {
      const project = newProject();
      await packed.repositories.attachBundle(project, bundle, "alice");
      const chat = { project, session: "s1" };
      for (let round = 0; round < 8; round += 1) {
        await packed.trees.change(chat, async () => [{ path: `notes/${round}.md`, content: Buffer.from(`note ${round}\n`) }], alice);
        await (await packed.trees.view(chat))!.repository.local.settled();
      }
      const view = (await packed.trees.view(chat))!;
      const packs = (await view.repository.bucket.packList(project, view.repository.record.generation)).value?.packs ?? [];
      expect(packs.length).toBeLessThanOrEqual(4);
      const other = await packed.replica();
      const seen = (await other.trees.view(chat))!;
      for (let round = 0; round < 8; round += 1) {
        const found = await other.trees.lookup(seen, `notes/${round}.md`);
        expect(found.found === "entry" ? (await seen.repository.reader.blob(found.entry.id)).toString("utf8") : undefined).toBe(`note ${round}\n`);
      }
    } finally {
      await packed.close();
    }
  });
});

describe("a clone's remote (case 291)", () => {
  it("is https only, with no user or secret in the url, on a host the operator allows", async () => {
    for (const url of ["file:///etc", "ssh://git@git.example.com/app.git", "git://git.example.com/app.git", "http://git.example.com/app.git", "ext::sh -c touch% /tmp/pwned", "https://alice:secret@git.example.com/app.git", "https://evil.example.com/app.git", "https://169.254.169.254/latest/meta-data"]) {
      const refused = await appErrorOf(system.repositories.attachClone(newProject(), { url }, "alice"));
      expect(refused.code, url).toBe("REPOSITORY_REFUSED");
      expect(refused.message, url).not.toContain("secret");
    }
  });
});
