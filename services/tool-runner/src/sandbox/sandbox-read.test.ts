import { execFileSync } from "node:child_process";
import { link, mkdir, rename, symlink, truncate, writeFile, appendFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxFixture, fixtureLimits, type SandboxFixture } from "../testing/sandbox-fixture.js";
import type { SandboxHooks } from "./sandbox-hooks.js";

let fixture: SandboxFixture;
const hooks: SandboxHooks = {};

beforeEach(async () => {
  delete hooks.beforeOpen;
  fixture = await createSandboxFixture({ hooks: { beforeOpen: (hostPath) => hooks.beforeOpen?.(hostPath) } });
});
afterEach(() => fixture.cleanup());

/** The error a read fails with; fails the test if the read succeeds. */
async function readError(input: string, bundlePath?: string): Promise<AppError> {
  const context = bundlePath === undefined ? fixture.context : { ...fixture.context, bundle_path: bundlePath };
  const error = await fixture.sandbox.read(context, input).then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (failure: unknown) => failure,
  );
  if (!AppError.is(error)) throw error;
  // no verdict ever shows a host path
  expect(error.message).not.toContain(fixture.base);
  return error;
}

describe("Sandbox.read: allowed paths", () => {
  it("reads a bundle file by its virtual path", async () => {
    const result = await fixture.sandbox.read(fixture.context, "{bundle-root}/config.yaml");
    expect(result).toEqual({ path: "{bundle-root}/config.yaml", content: "user_name: Ada\n", size: 15, truncated: false });
  });

  it("reads the core root and names it {core-root} whatever spelling was used", async () => {
    const result = await fixture.sandbox.read(fixture.context, "{project-root}/bmad/core/tasks/workflow.md");
    expect(result.path).toBe("{core-root}/tasks/workflow.md");
  });

  it("reads a path relative to the project root when it lands in an allowed root", async () => {
    const result = await fixture.sandbox.read(fixture.context, "bmad/custom/bundles/studio/config.yaml");
    expect(result.path).toBe("{bundle-root}/config.yaml");
  });

  it("allows an absolute path inside and reports it virtually (docs/security.md case 3)", async () => {
    const result = await fixture.sandbox.read(fixture.context, path.join(fixture.bundle, "config.yaml"));
    expect(result.path).toBe("{bundle-root}/config.yaml");
  });

  it("normalises a/../b (docs/security.md case 6)", async () => {
    const result = await fixture.sandbox.read(fixture.context, "{bundle-root}/workflows/../config.yaml");
    expect(result.path).toBe("{bundle-root}/config.yaml");
  });

  it("reads a file literally named ..foo (docs/security.md case 7)", async () => {
    await writeFile(path.join(fixture.bundle, "..foo"), "dots");
    expect((await fixture.sandbox.read(fixture.context, "{bundle-root}/..foo")).content).toBe("dots");
  });

  it("reads the chat's scratch files through {session-folder} and the project's through {output_folder}, with their revision", async () => {
    await fixture.files.write({ kind: "session", id: "s1" }, "notes.md", "n", fixture.author);
    expect(await fixture.sandbox.read(fixture.context, "{session-folder}/notes.md")).toEqual({
      path: "{session-folder}/notes.md",
      content: "n",
      size: 1,
      truncated: false,
      revision: 1,
    });
    await fixture.files.write({ kind: "project", id: "p1" }, "_bmad-output/prd.md", "p1", fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "_bmad-output/prd.md", "p2", fixture.author);
    expect(await fixture.sandbox.read(fixture.context, "{output_folder}/prd.md")).toMatchObject({ path: "{project-root}/_bmad-output/prd.md", content: "p2", revision: 2 });
  });

  it("lets an installed module read the whole bmad/ tree, but not a custom bundle", async () => {
    const installed = await fixture.sandbox.read({ ...fixture.context, bundle_path: "bmad/bmm" }, "{project-root}/bmad/cis/config.yaml");
    expect(installed.path).toBe("{project-root}/bmad/cis/config.yaml");
    expect((await readError("{project-root}/bmad/cis/config.yaml")).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("follows a symlink that stays inside the readable roots (docs/security.md case 19, policy: inside → inside is allowed)", async () => {
    await symlink(path.join(fixture.bundle, "config.yaml"), path.join(fixture.bundle, "alias.yaml"));
    const result = await fixture.sandbox.read(fixture.context, "{bundle-root}/alias.yaml");
    expect(result).toMatchObject({ path: "{bundle-root}/alias.yaml", content: "user_name: Ada\n" });
  });
});

describe("Sandbox.read: attacks", () => {
  it("rejects ../../etc/passwd before touching the target (docs/security.md case 1)", async () => {
    expect((await readError("../../etc/passwd")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("{bundle-root}/../../../../../../etc/passwd")).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("rejects an absolute path outside (docs/security.md case 2)", async () => {
    const error = await readError("/etc/passwd");
    expect(error.code).toBe("PATH_OUTSIDE_ROOT");
    expect(error.message).toBe("Access denied");
  });

  it("rejects a sibling folder sharing the root's prefix (docs/security.md case 4)", async () => {
    expect((await readError(path.join(fixture.base, "W-evil", "secret"))).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("../W-evil/secret")).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("rejects src/../../W-evil/x (docs/security.md case 5)", async () => {
    expect((await readError("{bundle-root}/src/../../../../../../W-evil/secret")).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("rejects the empty path and reports a root folder as NOT_A_FILE (docs/security.md case 8)", async () => {
    expect((await readError("")).code).toBe("INVALID_PATH");
    expect((await readError("/")).code).toBe("INVALID_PATH");
    expect((await readError("{bundle-root}")).code).toBe("NOT_A_FILE");
  });

  it("rejects a NUL byte with INVALID_PATH, not a 500 (docs/security.md case 9)", async () => {
    expect((await readError("{bundle-root}/foo\u0000.txt")).code).toBe("INVALID_PATH");
  });

  it("treats %2e%2e as a literal name (docs/security.md case 10)", async () => {
    expect((await readError("{bundle-root}/%2e%2e/%2e%2e/etc/passwd")).code).toBe("FILE_NOT_FOUND");
  });

  it("treats fullwidth dots as a literal name (docs/security.md case 14)", async () => {
    expect((await readError("{bundle-root}/．．／etc")).code).toBe("FILE_NOT_FOUND");
  });

  it("rejects a deep a/../ chain that climbs out (docs/security.md case 16)", async () => {
    expect((await readError(`${"a/".repeat(1000)}${"../".repeat(1001)}etc/passwd`)).code).toBe("INVALID_PATH");
    expect((await readError(`{bundle-root}/${"a/".repeat(100)}${"../".repeat(106)}etc/passwd`)).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("refuses a file symlink to the outside and returns no bytes (docs/security.md case 17)", async () => {
    await symlink(path.join(fixture.outside, "secret"), path.join(fixture.bundle, "leak"));
    const error = await readError("{bundle-root}/leak");
    expect(error.code).toBe("SYMLINK_ESCAPE");
    expect(JSON.stringify(error)).not.toContain("TOP SECRET");
  });

  it("refuses a directory symlink to the outside (docs/security.md case 18)", async () => {
    await symlink(fixture.outside, path.join(fixture.bundle, "link"));
    expect((await readError("{bundle-root}/link/secret")).code).toBe("SYMLINK_ESCAPE");
    expect((await readError("{bundle-root}/link/missing")).code).toBe("SYMLINK_ESCAPE");
  });

  it("refuses a dangling symlink", async () => {
    await symlink(path.join(fixture.outside, "nothing"), path.join(fixture.bundle, "dangling"));
    expect((await readError("{bundle-root}/dangling")).code).toBe("SYMLINK_ESCAPE");
  });

  it("refuses a file with another hard link (docs/security.md case 26, policy: nlink > 1 is never read)", async () => {
    await link(path.join(fixture.outside, "secret"), path.join(fixture.bundle, "h"));
    const error = await readError("{bundle-root}/h");
    expect(error.code).toBe("ACCESS_DENIED");
    expect(error.message).toBe("Access denied");
  });

  it("refuses protected names for reading (docs/security.md case 27)", async () => {
    await mkdir(path.join(fixture.bundle, ".git"));
    await writeFile(path.join(fixture.bundle, ".git", "config"), "[core]");
    await writeFile(path.join(fixture.bundle, ".env"), "KEY=1");
    expect((await readError("{bundle-root}/.git/config")).code).toBe("PROTECTED_PATH");
    expect((await readError("{bundle-root}/.env")).code).toBe("PROTECTED_PATH");
    expect((await readError("{bundle-root}/.npmrc")).code).toBe("PROTECTED_PATH");
  });

  it("refuses protected names whatever their case (docs/security.md case 28)", async () => {
    expect((await readError("{bundle-root}/.GIT/hooks/x")).code).toBe("PROTECTED_PATH");
    expect((await readError("{bundle-root}/.Git/config")).code).toBe("PROTECTED_PATH");
  });

  it("refuses a symlink whose target is a protected name inside the roots", async () => {
    await writeFile(path.join(fixture.bundle, ".env"), "KEY=1");
    await symlink(path.join(fixture.bundle, ".env"), path.join(fixture.bundle, "innocent.txt"));
    expect((await readError("{bundle-root}/innocent.txt")).code).toBe("PROTECTED_PATH");
  });

  it("answers FILE_TOO_LARGE from stat for a huge sparse file, without reading it (docs/security.md case 30)", async () => {
    const sparse = path.join(fixture.bundle, "huge.txt");
    await writeFile(sparse, "");
    await truncate(sparse, 10 * 1024 ** 3);
    expect((await readError("{bundle-root}/huge.txt")).code).toBe("FILE_TOO_LARGE");
  });

  it("stops at the cap when a file grows while being read (docs/security.md case 31)", async () => {
    const growing = path.join(fixture.bundle, "growing.txt");
    await writeFile(growing, "x".repeat(fixtureLimits.readMaxBytes - 10));
    hooks.beforeOpen = () => appendFile(growing, "y".repeat(500));
    const result = await fixture.sandbox.read(fixture.context, "{bundle-root}/growing.txt");
    expect(result.truncated).toBe(true);
    expect(result.content).toHaveLength(fixtureLimits.readMaxBytes);
  });

  it("answers NOT_A_REGULAR_FILE for a FIFO at once, without hanging (docs/security.md case 32)", async () => {
    execFileSync("mkfifo", [path.join(fixture.bundle, "p")]);
    expect((await readError("{bundle-root}/p")).code).toBe("NOT_A_REGULAR_FILE");
  });

  it("refuses links to /dev/zero and /proc/self/environ (docs/security.md case 33)", async () => {
    await symlink("/dev/zero", path.join(fixture.bundle, "zero"));
    await symlink("/proc/self/environ", path.join(fixture.bundle, "environ"));
    expect((await readError("{bundle-root}/zero")).code).toBe("SYMLINK_ESCAPE");
    expect((await readError("{bundle-root}/environ")).code).toBe("SYMLINK_ESCAPE");
    expect((await readError("/proc/self/environ")).code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("flags binary and invalid UTF-8 content as BINARY_FILE (docs/security.md case 34)", async () => {
    await writeFile(path.join(fixture.bundle, "zero-byte.bin"), Buffer.from([0x41, 0x00, 0x42]));
    await writeFile(path.join(fixture.bundle, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect((await readError("{bundle-root}/zero-byte.bin")).code).toBe("BINARY_FILE");
    expect((await readError("{bundle-root}/latin1.txt")).code).toBe("BINARY_FILE");
  });

  it("cuts a truncated read on a character boundary, not inside one", async () => {
    const file = path.join(fixture.bundle, "accents.txt");
    await writeFile(file, "é".repeat(fixtureLimits.readMaxBytes / 2 - 1) + "a");
    hooks.beforeOpen = () => appendFile(file, "é".repeat(10));
    const result = await fixture.sandbox.read(fixture.context, "{bundle-root}/accents.txt");
    expect(result.truncated).toBe(true);
    expect(result.content.endsWith("a")).toBe(true);
  });

  it("answers an EACCES with an error code only: no host path, no list of roots (docs/security.md case 37)", async () => {
    hooks.beforeOpen = () => {
      throw Object.assign(new Error(`EACCES: permission denied, open '${fixture.bundle}/config.yaml'`), { code: "EACCES" });
    };
    const error = await readError("{bundle-root}/config.yaml");
    expect(error.code).toBe("ACCESS_DENIED");
    expect(error.message).toBe("Access denied");
  });

  it("names an unresolved variable and never reads a literal {foo}", async () => {
    await mkdir(path.join(fixture.bundle, "{foo}"));
    await writeFile(path.join(fixture.bundle, "{foo}", "x.md"), "x");
    const error = await readError("{bundle-root}/{foo}/x.md");
    expect(error.code).toBe("UNRESOLVED_VARIABLE");
    expect(error.message).toContain("{foo}");
  });

  it("refuses a bundle_path outside bmad/, even through a symlink", async () => {
    expect((await readError("{bundle-root}/secret", "../outside")).code).toBe("PATH_OUTSIDE_ROOT");
    await symlink(fixture.outside, path.join(fixture.project, "bmad", "custom", "evil"));
    expect((await readError("{bundle-root}/secret", "bmad/custom/evil")).code).toBe("SYMLINK_ESCAPE");
  });

  it("reads the chat's and the project's files but has no {bundle-root} when no bundle is given", async () => {
    await fixture.files.write({ kind: "session", id: "s1" }, "a.md", "a", fixture.author);
    const sessionOnly = { session_id: fixture.context.session_id, project_id: fixture.context.project_id };
    expect((await fixture.sandbox.read(sessionOnly, "{session-folder}/a.md")).content).toBe("a");
    const bundleError = await fixture.sandbox.read(sessionOnly, "{bundle-root}/config.yaml").catch((failure: unknown) => failure);
    expect(bundleError).toMatchObject({ code: "UNRESOLVED_VARIABLE" });
    const outside = await fixture.sandbox.read(sessionOnly, "../outside/secret").catch((failure: unknown) => failure);
    expect(outside).toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
  });

  it("does not read another chat's scratch files, nor another project's files", async () => {
    await fixture.files.write({ kind: "session", id: "other" }, "x.md", "theirs", { user: "bob" });
    await fixture.files.write({ kind: "project", id: "p2" }, "docs/x.md", "theirs", { user: "bob" });
    expect((await readError("{session-folder}/../other/x.md")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("{project-root}/../p2/docs/x.md")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("{project-root}/docs/x.md")).code).toBe("FILE_NOT_FOUND");
    const other = { ...fixture.context, session_id: "other", project_id: "p2" };
    expect((await fixture.sandbox.read(other, "{session-folder}/x.md")).content).toBe("theirs");
    expect((await fixture.sandbox.read(other, "{project-root}/docs/x.md")).content).toBe("theirs");
  });

  it("detects a root replaced after start-up by moving it away (docs/security.md case 29, see races for the symlink form)", async () => {
    await rename(fixture.project, `${fixture.project}-moved`);
    await mkdir(path.join(fixture.project, "bmad", "custom", "bundles", "studio"), { recursive: true });
    await writeFile(path.join(fixture.bundle, "config.yaml"), "planted");
    expect((await readError("{bundle-root}/config.yaml")).code).toBe("PATH_CHANGED");
  });
});

describe("Sandbox.read: the project's and the chat's stored files", () => {
  it("refuses protected names for reading in both spaces, even when stored by other means (docs/security.md cases 27, 28)", async () => {
    // the store takes any name from the system (a migration, an old client): the sandbox still refuses them
    await fixture.files.write({ kind: "session", id: "s1" }, ".env", "SECRET=1", fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/.git/config", "[core]", fixture.author);
    expect((await readError("{session-folder}/.env")).code).toBe("PROTECTED_PATH");
    expect((await readError("{session-folder}/.ENV")).code).toBe("PROTECTED_PATH");
    expect((await readError("{project-root}/docs/.git/config")).code).toBe("PROTECTED_PATH");
    expect((await readError("docs/.GIT/config")).code).toBe("PROTECTED_PATH");
    const listing = await fixture.sandbox.list(fixture.context, "{session-folder}");
    expect(listing.entries).toEqual([]);
  });

  it("answers FILE_TOO_LARGE from the index, BINARY_FILE for bytes that are not UTF-8 text (docs/security.md cases 30, 34)", async () => {
    await fixture.files.write({ kind: "project", id: "p1" }, "big.md", "x".repeat(fixtureLimits.readMaxBytes + 1), fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "image.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]), fixture.author);
    expect((await readError("big.md")).code).toBe("FILE_TOO_LARGE");
    expect((await readError("{project-root}/image.png")).code).toBe("BINARY_FILE");
  });

  it("answers NOT_A_FILE for a stored folder and FILE_NOT_FOUND for a deleted file", async () => {
    await fixture.files.write({ kind: "project", id: "p1" }, "docs/stories/1.md", "s", fixture.author);
    await fixture.files.write({ kind: "project", id: "p1" }, "gone.md", "g", fixture.author);
    await fixture.files.remove({ kind: "project", id: "p1" }, "gone.md", fixture.author);
    expect((await readError("docs/stories")).code).toBe("NOT_A_FILE");
    expect((await readError("{project-root}")).code).toBe("NOT_A_FILE");
    expect((await readError("{session-folder}")).code).toBe("NOT_A_FILE");
    expect((await readError("gone.md")).code).toBe("FILE_NOT_FOUND");
  });

  it("refuses the project's path to BMAD's install names that are not installed", async () => {
    // `_bmad`, `bmad`, `.bmad-*` and the tool folders (`.claude`) are BMAD's: a stored file never shows there
    await fixture.files.write({ kind: "project", id: "p1" }, ".claude/settings.json", "{}", fixture.author);
    expect((await readError("{project-root}/.claude/settings.json")).code).toBe("PATH_OUTSIDE_ROOT");
    expect((await readError("{project-root}/_bmad/planted.md")).code).toBe("PATH_OUTSIDE_ROOT");
  });
});
