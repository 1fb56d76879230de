import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { type FileSpaceRef } from "@agent-orchestrator/shared/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";
import { moveLegacySessions } from "./output-root-migration.js";
import { liveFiles } from "../store/space-index.js";

const logger = createLogger("tool-runner-test", "silent");
let base: string;
let outputRoot: string;
let store: TestFileStore;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-legacy-")));
  outputRoot = path.join(base, "agent-outputs");
  store = await openTestFileStore();
  const files: Record<string, string> = {
    // a session of before projects, with the system's own files beside the chat's
    "s1/manifest.json": JSON.stringify({ session_id: "s1", owner: "alice", files: [] }),
    "s1/manifest.json.lock": "",
    "s1/manifest.json.lock.0a1b.draft": "",
    "s1/plans/.ao-0123456789abcdef.tmp": "half a write",
    "s1/.tool-calls/run1-1-call_a.json": "{}",
    "s1/brief.md": "# Brief\n",
    "s1/plans/deep/prd.md": "# PRD\n",
    "s1/.env": "SECRET=1\n",
    "s1/.git/config": "[core]\n",
    "s1/evil\u001b[31m.md": "x",
    // one with no manifest
    "s2/memlog.md": "decided\n",
    // not a session: a name that is no session id, and a file at the top
    "not a session/x.md": "x",
    "stray.md": "x",
    "../outside/secret": "TOP SECRET\n",
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(outputRoot, file)), { recursive: true });
    await writeFile(path.join(outputRoot, file), content);
  }
  await symlink(path.join(base, "outside", "secret"), path.join(outputRoot, "s1", "leak.md"));
  await symlink(path.join(base, "outside"), path.join(outputRoot, "s1", "linked-folder"));
  await symlink(path.join(base, "outside"), path.join(outputRoot, "s3"));
  execFileSync("mkfifo", [path.join(outputRoot, "s2", "pipe")]);
});
afterEach(async () => {
  await store.close();
  await rm(base, { recursive: true, force: true });
});

async function stored(id: string): Promise<string[]> {
  return liveFiles(await store.files.index({ kind: "session", id }))
    .map((file) => file.path)
    .sort();
}

describe("moveLegacySessions", () => {
  it("moves each session folder's own files into its chat's space once, with the old owner as the author", async () => {
    expect(await moveLegacySessions(store.files, outputRoot, logger)).toEqual({ chats: 2, files: 3 });
    expect(await stored("s1")).toEqual(["brief.md", "plans/deep/prd.md"]);
    expect(await stored("s2")).toEqual(["memlog.md"]);
    const s1: FileSpaceRef = { kind: "session", id: "s1" };
    expect(new TextDecoder().decode((await store.files.read(s1, "plans/deep/prd.md")).content)).toBe("# PRD\n");
    expect((await store.files.stat(s1, "brief.md"))?.author).toEqual({ user: "alice", session_id: "s1" });
    expect((await store.files.stat({ kind: "session", id: "s2" }, "memlog.md"))?.author).toEqual({ user: "unknown", session_id: "s2" });

    // a second start (or a second replica) moves nothing again, and changes nothing
    await writeFile(path.join(outputRoot, "s1", "brief.md"), "# Changed on disk\n");
    expect(await moveLegacySessions(store.files, outputRoot, logger)).toEqual({ chats: 0, files: 0 });
    expect((await store.files.revisions(s1, "brief.md")).map((revision) => revision.revision)).toEqual([1]);
    expect(new TextDecoder().decode((await store.files.read(s1, "brief.md")).content)).toBe("# Brief\n");
  });

  it("never moves the system's names, protected names, unservable names, links, FIFOs or what is not a session", async () => {
    await moveLegacySessions(store.files, outputRoot, logger);
    const moved = [...(await stored("s1")), ...(await stored("s2"))].join("\n");
    for (const left of ["manifest.json", ".ao-", "half a write", ".tool-calls", ".env", ".git", "evil", "leak", "linked-folder", "secret", "pipe"]) expect(moved).not.toContain(left);
    // a session folder that is a link out is no session; a folder named like no session id neither
    expect(await stored("s3")).toEqual([]);
    expect((await store.files.index({ kind: "session", id: "s3" })).kvRevision).toBe(0);
    expect(JSON.stringify(await store.files.index({ kind: "session", id: "s1" }))).not.toContain("TOP SECRET");
  });

  it("does nothing for an OUTPUT_ROOT that does not exist", async () => {
    expect(await moveLegacySessions(store.files, path.join(base, "never"), logger)).toEqual({ chats: 0, files: 0 });
  });
});
