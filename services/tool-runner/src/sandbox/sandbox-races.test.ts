import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { createSandbox } from "./index.js";
import type { SandboxHooks } from "./sandbox-hooks.js";

// Races are injected at the exact point between the checks and the open (or the rename), on a real fs.
let fixture: SandboxFixture;
const hooks: SandboxHooks = {};

beforeEach(async () => {
  delete hooks.beforeOpen;
  fixture = await createSandboxFixture({
    hooks: {
      beforeOpen: (hostPath) => hooks.beforeOpen?.(hostPath),
    },
  });
});
afterEach(() => fixture.cleanup());

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (caught: unknown) => caught,
  );
  if (!AppError.is(error)) throw error;
  return error;
}

describe("Sandbox races", () => {
  it("refuses a file swapped for a symlink to the outside between validation and open (docs/security.md case 23)", async () => {
    const target = path.join(fixture.bundle, "f.md");
    await writeFile(target, "inside");
    hooks.beforeOpen = async () => {
      await rename(target, `${target}.old`);
      await symlink(path.join(fixture.outside, "secret"), target);
    };
    const error = await failure(fixture.sandbox.read(fixture.context, "{bundle-root}/f.md"));
    expect(error).toMatchObject({ code: "PATH_CHANGED", message: "Access denied" });
    expect(JSON.stringify(error)).not.toContain("TOP SECRET");
  });

  it("refuses a parent folder swapped for a symlink to the outside before open (docs/security.md case 24, dev/ino check)", async () => {
    await mkdir(path.join(fixture.bundle, "d"));
    await writeFile(path.join(fixture.bundle, "d", "secret"), "inside");
    hooks.beforeOpen = async () => {
      await rename(path.join(fixture.bundle, "d"), path.join(fixture.bundle, "d-old"));
      await symlink(fixture.outside, path.join(fixture.bundle, "d"));
    };
    const error = await failure(fixture.sandbox.read(fixture.context, "{bundle-root}/d/secret"));
    expect(error.code).toBe("PATH_CHANGED");
  });

  it("refuses a parent folder moved outside and linked back, same inode (docs/security.md case 24, /proc/self/fd check)", async () => {
    await mkdir(path.join(fixture.bundle, "d"));
    await writeFile(path.join(fixture.bundle, "d", "file.md"), "inside");
    hooks.beforeOpen = async () => {
      // the very same file is opened, but through a path outside the roots: only the fd path shows it
      await rename(path.join(fixture.bundle, "d"), path.join(fixture.outside, "d"));
      await symlink(path.join(fixture.outside, "d"), path.join(fixture.bundle, "d"));
    };
    const error = await failure(fixture.sandbox.read(fixture.context, "{bundle-root}/d/file.md"));
    expect(error.code).toBe("PATH_CHANGED");
    expect(error.detail).toMatchObject({ reason: "opened file is not the checked one" });
  });

  it("fails closed when the project root is replaced by a symlink to / after start-up (docs/security.md case 29)", async () => {
    await rename(fixture.project, `${fixture.project}-old`);
    await symlink("/", fixture.project);
    const error = await failure(fixture.sandbox.read(fixture.context, "{project-root}/etc/passwd"));
    expect(error.code).toBe("PATH_CHANGED");
    expect((await failure(fixture.sandbox.read(fixture.context, "{bundle-root}/config.yaml"))).code).toBe("PATH_CHANGED");
  });

  it("fails closed when the root is swapped between the checks and the open (docs/security.md case 29, post-open check)", async () => {
    hooks.beforeOpen = async () => {
      await rename(fixture.project, `${fixture.project}-old`);
      await symlink(`${fixture.project}-old`, fixture.project);
    };
    const error = await failure(fixture.sandbox.read(fixture.context, "{bundle-root}/config.yaml"));
    expect(error.code).toBe("PATH_CHANGED");
  });

  it("refuses a folder swapped for a symlink before it is listed", async () => {
    await mkdir(path.join(fixture.bundle, "d"));
    hooks.beforeOpen = async () => {
      await rename(path.join(fixture.bundle, "d"), path.join(fixture.bundle, "d-old"));
      await symlink(fixture.outside, path.join(fixture.bundle, "d"));
    };
    expect((await failure(fixture.sandbox.list(fixture.context, "{bundle-root}/d"))).code).toBe("PATH_CHANGED");
  });

  it("refuses a write when the project root was replaced after start-up: nothing is stored (docs/security.md case 29)", async () => {
    await rename(fixture.project, `${fixture.project}-old`);
    await symlink(`${fixture.project}-old`, fixture.project);
    const error = await failure(fixture.sandbox.write(fixture.context, "{session-folder}/x.md", "x", fixture.author));
    expect(error.code).toBe("PATH_CHANGED");
    expect((await fixture.files.index({ kind: "session", id: "s1" })).kvRevision).toBe(0);
  });

  it("keeps every one of many simultaneous writes of one file by two replicas and two chats as its own revision", async () => {
    // the store's race, which replaced the session folder's rename races: each write moves the index by compare-and-set
    const other = await createSandbox({ projectRoot: fixture.project, files: await fixture.store.replica(), ...fixtureLimits });
    const writes = Array.from({ length: 12 }, (_, index) => {
      const sandbox = index % 2 === 0 ? fixture.sandbox : other;
      const context = { ...fixture.context, session_id: index % 3 === 0 ? "s1" : "s2" };
      return sandbox.write(context, "{planning_artifacts}/sprint-status.yaml", `writer ${index}\n`, { user: `u${index}` });
    });
    const results = await Promise.all(writes);
    expect(results.map((result) => result.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    const revisions = await fixture.files.revisions({ kind: "project", id: "p1" }, results[0]?.path.replace("{project-root}/", "") ?? "");
    expect(revisions).toHaveLength(12);
    expect(new Set(revisions.map((revision) => revision.author.user)).size).toBe(12);
    const latest = await fixture.sandbox.read(fixture.context, results[0]?.path ?? "");
    expect(latest.revision).toBe(12);
    expect(latest.content).toBe(`writer ${revisions[0]?.author.user.slice(1)}\n`);
  });
});
