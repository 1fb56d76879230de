import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appErrorOf } from "../testing/app-error-of.js";
import { createInstalledProjectFixture, type InstalledProjectFixture } from "../testing/installed-project-fixture.js";

// A project's code snapshot (docs/uploads.md "A code snapshot") is part of the project view: the model lists,
// reads and searches it under {project-root}/ like the project's own files, and never writes into it.
let fixture: InstalledProjectFixture;
beforeEach(async () => {
  fixture = await createInstalledProjectFixture();
});
afterEach(() => fixture.cleanup());

const chat = (projectId = "p1") => ({ session_id: "s1", project_id: projectId, bundle_path: "_bmad/bmm" });
const failure = (promise: Promise<unknown>) => appErrorOf(promise, fixture.base);
const author = { user: "alice", session_id: "s1", agent_id: "bmm/analyst" };

/** Makes `files` the snapshot of project p1. */
async function snapshot(files: Record<string, string>): Promise<void> {
  const entries = [];
  for (const [path, content] of Object.entries(files)) {
    const bytes = Buffer.from(content);
    entries.push({ path, size: bytes.length, sha256: await fixture.files.storeBytes(bytes) });
  }
  await fixture.files.sources.replace("p1", { files: entries }, "alice", new Date("2026-11-01T10:00:00Z"));
}

describe("the code snapshot in the project view", () => {
  it("reads and lists the snapshot's files under {project-root}/, marked read-only, beside the project's own files (docs/security.md case 167)", async () => {
    await snapshot({ "src/index.ts": "export const answer = 42;\n", "package.json": '{"name":"shop"}\n', "docs/architecture.md": "# Old architecture\n" });
    await fixture.sandbox.write(chat(), "{project-root}/_bmad-output/plans/brief.md", "# Brief\n", author);

    expect(await fixture.sandbox.read(chat(), "{project-root}/src/index.ts")).toMatchObject({ path: "{project-root}/src/index.ts", content: "export const answer = 42;\n", revision: 1 });
    const root = (await fixture.sandbox.list(chat(), "{project-root}")).entries.map((entry) => entry.name);
    expect(root).toEqual(expect.arrayContaining(["_bmad", "_bmad-output", "docs", "package.json", "src"]));
    expect((await fixture.sandbox.list(chat(), "{project-root}/src")).entries).toEqual([{ name: "index.ts", type: "file", size: 26, read_only: true }]);
    expect((await failure(fixture.sandbox.read(chat(), "{project-root}/src"))).code).toBe("NOT_A_FILE");
    // another project has no snapshot
    expect((await failure(fixture.sandbox.read(chat("p2"), "{project-root}/src/index.ts"))).code).toBe("FILE_NOT_FOUND");
  });

  it("refuses a write over a snapshot file and a new file in its folders, but lets agents save in BMAD's output places (case 168)", async () => {
    await snapshot({ "src/index.ts": "x\n", "docs/architecture.md": "# Old\n" });
    const over = await failure(fixture.sandbox.write(chat(), "{project-root}/src/index.ts", "pwned", author));
    expect(over.code).toBe("PROTECTED_PATH");
    expect(over.message).toMatch(/read-only code snapshot/);
    expect((await failure(fixture.sandbox.write(chat(), "{project-root}/src/new/evil.ts", "x", author))).code).toBe("PROTECTED_PATH");
    expect((await failure(fixture.sandbox.modify(chat(), "{project-root}/src/index.ts", (text) => `${text ?? ""}more`, author))).code).toBe("PROTECTED_PATH");
    expect((await failure(fixture.sandbox.write(chat(), "{project-root}/docs/architecture.md", "# New\n", author))).code).toBe("PROTECTED_PATH");
    // docs/ is the install's project_knowledge: a new file beside the code's own docs is the project's
    expect(await fixture.sandbox.write(chat(), "{project_knowledge}/index.md", "# Index\n", author)).toMatchObject({ path: "{project-root}/docs/index.md" });
    expect((await fixture.sandbox.read(chat(), "{project-root}/src/index.ts")).content).toBe("x\n");
  });

  it("is replaced whole by the next snapshot and gone once removed", async () => {
    await snapshot({ "src/a.ts": "a\n" });
    await snapshot({ "lib/b.ts": "b\n" });
    expect((await failure(fixture.sandbox.read(chat(), "{project-root}/src/a.ts"))).code).toBe("FILE_NOT_FOUND");
    expect(await fixture.sandbox.read(chat(), "{project-root}/lib/b.ts")).toMatchObject({ content: "b\n", revision: 2 });
    await fixture.files.sources.remove("p1");
    expect((await failure(fixture.sandbox.read(chat(), "{project-root}/lib/b.ts"))).code).toBe("FILE_NOT_FOUND");
    // its folders are writable again
    expect(await fixture.sandbox.write(chat(), "{project-root}/lib/b.ts", "mine\n", author)).toMatchObject({ revision: 1 });
  });

  it("keeps protected names unreadable even if a snapshot held one", async () => {
    await snapshot({ ".env": "SECRET=1\n", "config/.env.local": "SECRET=2\n", "src/index.ts": "x\n" });
    // a dot-name at the top is also where tool folders live: denied either way
    expect((await failure(fixture.sandbox.read(chat(), "{project-root}/.env"))).message).toMatch(/^Access denied/);
    expect((await failure(fixture.sandbox.read(chat(), "{project-root}/config/.env.local"))).code).toBe("PROTECTED_PATH");
    expect((await fixture.sandbox.list(chat(), "{project-root}/config")).entries).toEqual([]);
  });
});
