import { existsSync } from "node:fs";
import { link, lstat, mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import type { SandboxHooks } from "./sandbox-hooks.js";

let fixture: SandboxFixture;
const hooks: SandboxHooks = {};

beforeEach(async () => {
  delete hooks.beforeRename;
  fixture = await createSandboxFixture({
    hooks: { beforeRename: (tempPath, targetPath) => hooks.beforeRename?.(tempPath, targetPath) },
  });
});
afterEach(() => fixture.cleanup());

async function writeError(input: string, content = "x"): Promise<AppError> {
  const error = await fixture.sandbox.write(fixture.context, input, content).then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (failure: unknown) => failure,
  );
  if (!AppError.is(error)) throw error;
  expect(error.message).not.toContain(fixture.base);
  return error;
}

describe("Sandbox.write: allowed writes", () => {
  it("saves into the session folder, creating it, and reports a virtual path", async () => {
    const result = await fixture.sandbox.write(fixture.context, "{session-folder}/brief.md", "# Brief\n");
    expect(result).toEqual({ path: "{session-folder}/brief.md", size: 8 });
    expect(await readFile(path.join(fixture.session, "brief.md"), "utf8")).toBe("# Brief\n");
  });

  it("saves {output_folder}/x.md into the session folder", async () => {
    const result = await fixture.sandbox.write(fixture.context, "{output_folder}/prd.md", "p");
    expect(result.path).toBe("{session-folder}/prd.md");
  });

  it("overwrites an existing file and leaves no temp file behind", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/a.md", "one");
    await fixture.sandbox.write(fixture.context, "{session-folder}/a.md", "two");
    expect(await readFile(path.join(fixture.session, "a.md"), "utf8")).toBe("two");
    expect(await readdir(fixture.session)).toEqual(["a.md"]);
  });

  it("creates missing folders inside the session folder, one level at a time (docs/security.md case 21)", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/x/y/z.txt", "deep");
    expect(await readFile(path.join(fixture.session, "x", "y", "z.txt"), "utf8")).toBe("deep");
    expect((await lstat(path.join(fixture.session, "x"))).isDirectory()).toBe(true);
  });
});

describe("Sandbox.write: attacks", () => {
  it("refuses writes outside the session folder", async () => {
    expect((await writeError("/tmp/pwned.txt")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await writeError("{session-folder}/../other/x.md")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await writeError("notes.md")).message).toBe("Access denied: files can only be saved under {session-folder}");
  });

  it("refuses a write through a dangling symlink; the outside target is not created (docs/security.md case 20)", async () => {
    await mkdir(fixture.session);
    await symlink(path.join(fixture.outside, "pwned"), path.join(fixture.session, "new"));
    expect((await writeError("{session-folder}/new")).code).toBe("SYMLINK_ESCAPE");
    expect(existsSync(path.join(fixture.outside, "pwned"))).toBe(false);
  });

  it("refuses link/newdir/f.txt where link points outside; nothing is created outside (docs/security.md case 22)", async () => {
    await mkdir(fixture.session);
    await symlink(fixture.outside, path.join(fixture.session, "link"));
    expect((await writeError("{session-folder}/link/newdir/f.txt")).code).toBe("SYMLINK_ESCAPE");
    expect(existsSync(path.join(fixture.outside, "newdir"))).toBe(false);
  });

  it("refuses to write through an existing symlink to the outside; the outside file is unchanged (docs/security.md case 25)", async () => {
    await mkdir(fixture.session);
    await symlink(path.join(fixture.outside, "secret"), path.join(fixture.session, "cfg"));
    expect((await writeError("{session-folder}/cfg", "overwritten")).code).toBe("SYMLINK_ESCAPE");
    expect(await readFile(path.join(fixture.outside, "secret"), "utf8")).toBe("TOP SECRET\n");
  });

  it("refuses to write through a symlink even when it stays inside the session (docs/security.md case 19, policy: writes never follow links)", async () => {
    await mkdir(path.join(fixture.session, "real"), { recursive: true });
    await symlink(path.join(fixture.session, "real"), path.join(fixture.session, "alias"));
    const error = await writeError("{session-folder}/alias/x.md");
    expect(error.code).toBe("ACCESS_DENIED");
    expect(existsSync(path.join(fixture.session, "real", "x.md"))).toBe(false);
  });

  it("does not modify a hard-linked file's other name (docs/security.md case 26)", async () => {
    await mkdir(fixture.session);
    await link(path.join(fixture.outside, "secret"), path.join(fixture.session, "h"));
    expect((await writeError("{session-folder}/h", "overwritten")).code).toBe("ACCESS_DENIED");
    expect(await readFile(path.join(fixture.outside, "secret"), "utf8")).toBe("TOP SECRET\n");
  });

  it("refuses .git/hooks/pre-commit, .git/config, .env, .npmrc and the bundle folder (docs/security.md case 27)", async () => {
    for (const target of ["{session-folder}/.git/hooks/pre-commit", "{session-folder}/.git/config", "{session-folder}/.env", "{session-folder}/.npmrc"]) {
      expect((await writeError(target)).code).toBe("PROTECTED_PATH");
    }
    expect((await writeError("{bundle-root}/config.yaml")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{core-root}/tasks/workflow.md")).code).toBe("PROTECTED_PATH");
    expect(await readFile(path.join(fixture.bundle, "config.yaml"), "utf8")).toBe("user_name: Ada\n");
    expect(existsSync(path.join(fixture.session, ".git"))).toBe(false);
  });

  it("refuses .GIT/hooks/x and .Git/config (docs/security.md case 28)", async () => {
    expect((await writeError("{session-folder}/.GIT/hooks/x")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{session-folder}/.Git/config")).code).toBe("PROTECTED_PATH");
  });

  it("never lets the model overwrite manifest.json or its lock", async () => {
    expect((await writeError("{session-folder}/manifest.json", "{}")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{session-folder}/MANIFEST.JSON", "{}")).code).toBe("PROTECTED_PATH");
    expect((await writeError("{session-folder}/manifest.json.lock")).code).toBe("PROTECTED_PATH");
  });

  it("refuses content over the cap before touching the disk (docs/security.md case 35)", async () => {
    const error = await writeError("{session-folder}/big.md", "x".repeat(fixtureLimits.writeMaxBytes + 1));
    expect(error.code).toBe("CONTENT_TOO_LARGE");
    expect(existsSync(fixture.session)).toBe(false);
    expect((await writeError("{session-folder}/huge.md", "é".repeat(50 * 1024 * 1024))).code).toBe("CONTENT_TOO_LARGE");
  });

  it("removes the temp file and keeps the original when the disk fills mid-write (docs/security.md case 36)", async () => {
    await fixture.sandbox.write(fixture.context, "{session-folder}/doc.md", "original");
    hooks.beforeRename = () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    const error = await writeError("{session-folder}/doc.md", "replacement");
    expect(error).toMatchObject({ code: "WRITE_FAILED", message: "Could not save {session-folder}/doc.md: the disk is full" });
    expect(await readFile(path.join(fixture.session, "doc.md"), "utf8")).toBe("original");
    expect(await readdir(fixture.session)).toEqual(["doc.md"]);
  });

  it("refuses to write where a folder or a FIFO has the name", async () => {
    await mkdir(path.join(fixture.session, "dir"), { recursive: true });
    expect((await writeError("{session-folder}/dir")).code).toBe("NOT_A_FILE");
    await writeFile(path.join(fixture.session, "file"), "f");
    expect((await writeError("{session-folder}/file/x.md")).code).toBe("INVALID_PATH");
  });

  it("refuses a session folder that was replaced by a symlink", async () => {
    await mkdir(fixture.output, { recursive: true });
    await symlink(fixture.outside, fixture.session);
    expect((await writeError("{session-folder}/x.md")).code).toBe("SYMLINK_ESCAPE");
    expect(existsSync(path.join(fixture.outside, "x.md"))).toBe(false);
  });

  it("never creates a literal {foo} folder", async () => {
    expect((await writeError("{session-folder}/{project_name}/brief.md")).code).toBe("UNRESOLVED_VARIABLE");
    expect((await writeError("{output_folder}/brief-{{date}}.md")).code).toBe("UNRESOLVED_VARIABLE");
    expect(existsSync(fixture.session)).toBe(false);
  });
});
