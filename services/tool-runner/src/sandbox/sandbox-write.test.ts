import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames, type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContentCache } from "../store/content-cache.js";
import { FileStore } from "../store/file-store.js";
import { liveFiles } from "../store/space-index.js";
import { fixtureQuota } from "../testing/file-store-fixture.js";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { createSandbox } from "./index.js";

// Writes never touch the disk: they become revisions of the project's own files or of the chat's scratch space
// in the file store. The disk-side attacks on writes (links, hard links, a swapped session folder) are gone with
// the session folder; what remains is that no write lands anywhere but in the store, and never in BMAD's folders.
let fixture: SandboxFixture;

beforeEach(async () => {
  fixture = await createSandboxFixture();
});
afterEach(() => fixture.cleanup());

const session: FileSpaceRef = { kind: "session", id: "s1" };
const project: FileSpaceRef = { kind: "project", id: "p1" };

async function writeError(input: string, content = "x"): Promise<AppError> {
  const error = await fixture.sandbox.write(fixture.context, input, content, fixture.author).then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (failure: unknown) => failure,
  );
  if (!AppError.is(error)) throw error;
  expect(error.message).not.toContain(fixture.base);
  return error;
}

/** The live paths of a space, sorted. */
async function stored(space: FileSpaceRef): Promise<string[]> {
  return liveFiles(await fixture.files.index(space))
    .map((file) => file.path)
    .sort();
}

async function text(space: FileSpaceRef, file: string): Promise<string> {
  return new TextDecoder().decode((await fixture.files.read(space, file)).content);
}

describe("Sandbox.write: allowed writes", () => {
  it("saves into the chat's scratch space as a revision with its author, and reports a virtual path", async () => {
    const result = await fixture.sandbox.write(fixture.context, "{session-folder}/brief.md", "# Brief\n", fixture.author);
    expect(result).toEqual({ path: "{session-folder}/brief.md", size: 8, revision: 1 });
    expect(await text(session, "brief.md")).toBe("# Brief\n");
    expect((await fixture.files.stat(session, "brief.md"))?.author).toEqual(fixture.author);
    // nothing on disk: the project root holds only what the fixture put there
    expect((await readdir(fixture.project)).sort()).toEqual(["README.md", "bmad"]);
  });

  it("saves {output_folder}/x.md into the project, where every chat of the project finds it", async () => {
    const result = await fixture.sandbox.write(fixture.context, "{output_folder}/prd.md", "p", fixture.author);
    expect(result.path).toBe("{project-root}/_bmad-output/prd.md");
    expect(await stored(project)).toEqual(["_bmad-output/prd.md"]);
    expect(await stored(session)).toEqual([]);
  });

  it("saves a path without a variable into the project's own files", async () => {
    expect((await fixture.sandbox.write(fixture.context, "notes.md", "n", fixture.author)).path).toBe("{project-root}/notes.md");
    expect(await text(project, "notes.md")).toBe("n");
    expect(existsSync(path.join(fixture.project, "notes.md"))).toBe(false);
  });

  it("overwrites an existing file as its next revision, keeping the first", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/a.md", "one", fixture.author);
    expect((await fixture.sandbox.write(fixture.context, "{session-folder}/a.md", "two", fixture.author)).revision).toBe(2);
    expect(await text(session, "a.md")).toBe("two");
    expect(new TextDecoder().decode((await fixture.files.read(session, "a.md", 1)).content)).toBe("one");
    expect(await stored(session)).toEqual(["a.md"]);
  });

  it("saves x/y/z.txt with x missing, and lists x as a folder (docs/security.md case 21)", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/x/y/z.txt", "deep", fixture.author);
    expect(await text(session, "x/y/z.txt")).toBe("deep");
    expect((await fixture.sandbox.list(fixture.context, "{session-folder}")).entries).toEqual([{ name: "x", type: "directory", size: 0 }]);
  });
});

describe("Sandbox.write: attacks", () => {
  it("refuses writes outside the project and the chat", async () => {
    expect((await writeError("/tmp/pwned.txt")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await writeError("{session-folder}/../other/x.md")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await writeError("{project-root}/../outside/x.md")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await writeError("../W-evil/x.md")).code).toBe("PATH_OUTSIDE_ROOT");
    expect(existsSync(path.join(fixture.outside, "x.md"))).toBe(false);
    expect([...(await stored(project)), ...(await stored(session))]).toEqual([]);
  });

  it("never follows a link on disk: the write lands in the store and the outside is untouched (docs/security.md cases 20, 22, 25)", async () => {
    // links planted in BMAD_ROOT, outside the installed folders: the project's own files are not on disk, so
    // a write by their names is a stored file, and a read of them is the stored file, never the target
    await symlink(path.join(fixture.outside, "pwned"), path.join(fixture.project, "new"));
    await symlink(fixture.outside, path.join(fixture.project, "link"));
    await symlink(path.join(fixture.outside, "secret"), path.join(fixture.project, "cfg"));
    await fixture.sandbox.write(fixture.context, "new", "n", fixture.author);
    await fixture.sandbox.write(fixture.context, "link/newdir/f.txt", "f", fixture.author);
    await fixture.sandbox.write(fixture.context, "{project-root}/cfg", "overwritten", fixture.author);
    expect(existsSync(path.join(fixture.outside, "pwned"))).toBe(false);
    expect(existsSync(path.join(fixture.outside, "newdir"))).toBe(false);
    expect(await readFile(path.join(fixture.outside, "secret"), "utf8")).toBe("TOP SECRET\n");
    expect(await stored(project)).toEqual(["cfg", "link/newdir/f.txt", "new"]);
    expect((await fixture.sandbox.read(fixture.context, "cfg")).content).toBe("overwritten");
    expect((await appErrorFrom(fixture.sandbox.read(fixture.context, "link/secret"))).code).toBe("FILE_NOT_FOUND");
  });

  it("refuses to write into an installed BMAD folder, even through a link inside it (docs/security.md case 19, policy: writes never follow links)", async () => {
    await mkdir(path.join(fixture.bundle, "real"));
    await symlink(path.join(fixture.bundle, "real"), path.join(fixture.bundle, "alias"));
    expect((await writeError("{bundle-root}/alias/x.md")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{bundle-root}/real/x.md")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{project-root}/bmad/bmm/config.yaml", "pwned")).code).toBe("PROTECTED_PATH");
    expect(await readdir(path.join(fixture.bundle, "real"))).toEqual([]);
    expect(await readFile(path.join(fixture.project, "bmad", "bmm", "config.yaml"), "utf8")).toBe("project_name: Demo\n");
  });

  it("refuses .git/hooks/pre-commit, .git/config, .env, .npmrc in both spaces, and the bundle folder (docs/security.md case 27)", async () => {
    for (const name of [".git/hooks/pre-commit", ".git/config", ".env", ".npmrc", "docs/.env.local", "keys/id_rsa"]) {
      expect((await writeError(`{session-folder}/${name}`)).code).toBe("PROTECTED_PATH");
      expect((await writeError(`{project-root}/${name}`)).code).toBe("PROTECTED_PATH");
      expect((await writeError(name)).code).toBe("PROTECTED_PATH");
    }
    expect((await writeError("{bundle-root}/config.yaml")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{core-root}/tasks/workflow.md")).code).toBe("PROTECTED_PATH");
    expect(await readFile(path.join(fixture.bundle, "config.yaml"), "utf8")).toBe("user_name: Ada\n");
    expect([...(await stored(project)), ...(await stored(session))]).toEqual([]);
  });

  it("refuses .GIT/hooks/x and .Git/config (docs/security.md case 28)", async () => {
    expect((await writeError("{session-folder}/.GIT/hooks/x")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{session-folder}/.Git/config")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{project-root}/docs/.GIT/config")).code).toBe("PROTECTED_PATH");
  });

  it("keeps the system's call-record name out of reach; manifest.json is an ordinary name now", async () => {
    expect((await writeError("{session-folder}/.tool-calls/x.json", "{}")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{session-folder}/.TOOL-CALLS/x.json", "{}")).code).toBe("PROTECTED_PATH");
    expect((await fixture.sandbox.write(fixture.context, "{session-folder}/manifest.json", "{}", fixture.author)).path).toBe("{session-folder}/manifest.json");
  });

  it("refuses content over the cap before the store (docs/security.md case 35)", async () => {
    const error = await writeError("{session-folder}/big.md", "x".repeat(fixtureLimits.writeMaxBytes + 1));
    expect(error.code).toBe("CONTENT_TOO_LARGE");
    expect((await writeError("{session-folder}/huge.md", "é".repeat(50 * 1024 * 1024))).code).toBe("CONTENT_TOO_LARGE");
    expect((await fixture.files.index(session)).kvRevision).toBe(0);
  });

  it("keeps the original when the store fails mid-write (docs/security.md case 36: the store's equivalent of ENOSPC)", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/doc.md", "original", fixture.author);
    const js = fixture.store.connection.jetstream();
    const names = jetStreamNames(fixture.store.prefix);
    const contents = await js.views.os(names.fileContentsStore);
    // the object store as a full JetStream answers it: every new content refused
    const full = new Proxy(contents, {
      get(target, key) {
        if (key === "putBlob") return () => Promise.reject(new Error("insufficient resources"));
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const failing = new FileStore({
      flush: () => fixture.store.connection.flush(),
      index: await js.views.kv(names.fileIndexBucket),
      revisions: await js.views.kv(names.fileRevisionsBucket),
      contents: full,
      cache: new ContentCache(1 << 20),
      quotas: { project: fixtureQuota, session: fixtureQuota },
      maxIndexBytes: 1 << 20,
    });
    const sandbox = await createSandbox({ projectRoot: fixture.project, files: failing, ...fixtureLimits });
    await expect(sandbox.write(fixture.context, "{session-folder}/doc.md", "replacement", fixture.author)).rejects.toMatchObject({ code: "WRITE_FAILED" });
    expect((await fixture.sandbox.read(fixture.context, "{session-folder}/doc.md")).content).toBe("original");
    expect((await fixture.files.revisions(session, "doc.md")).map((revision) => revision.revision)).toEqual([1]);
  });

  it("refuses to write where a folder has the name, or under a file", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/dir/x.md", "x", fixture.author);
    expect((await writeError("{session-folder}/dir")).code).toBe("NOT_A_FILE");
    await fixture.sandbox.write(fixture.context, "{session-folder}/file", "f", fixture.author);
    expect((await writeError("{session-folder}/file/x.md")).code).toBe("INVALID_PATH");
    expect((await writeError("{session-folder}")).code).toBe("NOT_A_FILE");
    expect(await stored(session)).toEqual(["dir/x.md", "file"]);
  });

  it("keeps each chat's scratch space to itself", async () => {
    await fixture.sandbox.write({ ...fixture.context, session_id: "s2" }, "{session-folder}/theirs.md", "theirs", { user: "bob" });
    expect((await writeError("{session-folder}/../s2/theirs.md", "mine")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await writeError(`${"\u0000"}sessions/s2/theirs.md`)).code).toBe("INVALID_PATH");
    expect(await text({ kind: "session", id: "s2" }, "theirs.md")).toBe("theirs");
  });

  it("never creates a literal {foo} folder", async () => {
    expect((await writeError("{session-folder}/{project_name}/brief.md")).code).toBe("UNRESOLVED_VARIABLE");
    expect((await writeError("{output_folder}/brief-{{date}}.md")).code).toBe("UNRESOLVED_VARIABLE");
    expect([...(await stored(project)), ...(await stored(session))]).toEqual([]);
  });
});

async function appErrorFrom(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (failure: unknown) => failure,
  );
  if (!AppError.is(error)) throw error;
  return error;
}
