import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHttpRemote, type GitHttpRemote } from "@agent-orchestrator/testing/git-http-remote";
import { appErrorOf } from "../testing/app-error-of.js";
import { makeTestRepository, openTestRepositories, testGit, type TestRepositories } from "../testing/repository-fixture.js";
import { pushBranch, pushRefusal } from "./remote-push.js";

const secret = "push-s3cret-5b4a";
let system: TestRepositories;
let remote: GitHttpRemote;
let served: string;
let work: string;
let project: string;
let bundleProject: string;
const removals: Array<() => Promise<void>> = [];

/** The commit a branch of the remote's repository is at, or "" when it has none. */
const remoteHead = (branch: string) => execFileSync("git", ["--git-dir", path.join(served, "app.git"), "for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`], { encoding: "utf8" }).trim();

beforeAll(async () => {
  system = await openTestRepositories();
  const made = await makeTestRepository({ "README.md": "# app\n" }, { feature: { "src/feature.js": "export const on = true;\n" } });
  removals.push(made.remove);
  work = made.folder;
  served = await mkdtemp(path.join(tmpdir(), "ao-push-remote-"));
  removals.push(() => rm(served, { recursive: true, force: true }));
  testGit(served, ["clone", "-q", "--bare", work, path.join(served, "app.git")]);
  remote = await startGitHttpRemote(served, { username: "ci", password: secret });
  project = `p${Date.now().toString(36)}`;
  await system.repositories.attachClone(project, { url: `${remote.url}app.git`, username: "ci", credential: secret }, "alice");
  bundleProject = await system.attached(made.bundle);
});

afterAll(async () => {
  await remote?.close();
  await system?.close();
  await Promise.all(removals.map((remove) => remove()));
});

describe("pushBranch", () => {
  it("pushes a branch's commit to the remote with the credential, and says so when the remote has it already", async () => {
    const commit = remoteHead("feature");
    testGit(served, ["--git-dir", path.join(served, "app.git"), "update-ref", "-d", "refs/heads/feature"]);
    expect(remoteHead("feature")).toBe("");
    remote.authorizations.length = 0;
    const pushed = await pushBranch(system.repositories, project, "feature");
    expect(pushed).toEqual({ branch: "feature", commit, remote: { url: `${remote.url}app.git` }, pushed: true });
    expect(remoteHead("feature")).toBe(commit);
    expect(remote.authorizations).toContain(`Basic ${Buffer.from(`ci:${secret}`).toString("base64")}`);
    expect(await pushBranch(system.repositories, project, "feature")).toMatchObject({ commit, pushed: "up-to-date" });
  });

  it("answers REMOTE_PUSH_FAILED with git's reason when the remote refuses, naming neither the credential nor a host folder", async () => {
    testGit(work, ["commit", "-q", "--allow-empty", "-m", "on the remote only"]);
    testGit(work, ["push", "-q", path.join(served, "app.git"), "main"]);
    const before = remoteHead("main");
    const error = await appErrorOf(pushBranch(system.repositories, project, "main"), tmpdir());
    expect(error.code).toBe("REMOTE_PUSH_FAILED");
    expect(error.message).toMatch(/rejected.*main/);
    expect(error.message).not.toContain(secret);
    expect(remoteHead("main")).toBe(before);
  });

  it("refuses a repository that came from a bundle, and a branch it does not have", async () => {
    expect((await appErrorOf(pushBranch(system.repositories, bundleProject, "main"), tmpdir())).code).toBe("REPOSITORY_NO_REMOTE");
    expect((await appErrorOf(pushBranch(system.repositories, project, "nothing"), tmpdir())).code).toBe("BRANCH_NOT_FOUND");
    expect((await appErrorOf(pushBranch(system.repositories, "p-none", "main"), tmpdir())).code).toBe("NOT_FOUND");
  });

  it("checks the remote's URL again at the push: a host no longer allowed is refused before git runs", async () => {
    const narrowed = await openTestRepositories({ remoteHosts: ["git.example.com"] });
    try {
      await narrowed.repositories.bucket.createRecord(project, (await system.repositories.bucket.record(project)).value!);
      const error = await appErrorOf(pushBranch(narrowed.repositories, project, "feature"), tmpdir());
      expect(error).toMatchObject({ code: "REMOTE_PUSH_FAILED", message: expect.stringContaining("REPOSITORY_REMOTE_HOSTS") });
    } finally {
      await narrowed.close();
    }
  });
});

describe("a remote that is not the one cloned from (cases 324, 325)", () => {
  it("is never reached: a redirect is not followed, and a file:// or ssh:// URL is refused before git runs", async () => {
    const redirector = createServer((request, response) => response.writeHead(302, { location: `${remote.url}app.git${request.url ?? ""}` }).end());
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    const elsewhere = await openTestRepositories();
    /** The project's record, credential and main branch in other buckets, with its remote at `url`. */
    const movedTo = async (url: string) => {
      const id = `p${randomUUID().slice(0, 8)}`;
      const { value: record } = await system.repositories.bucket.record(project);
      const moved = { ...record!, remote: { ...record!.remote!, url } };
      await elsewhere.repositories.bucket.createRecord(id, moved);
      await elsewhere.repositories.bucket.putCredential(id, moved.generation, secret);
      await elsewhere.repositories.bucket.changeRefs(id, moved.generation, () => ({ refs: [{ name: "refs/heads/main", id: remoteHead("main") }] }));
      return id;
    };
    try {
      remote.authorizations.length = 0;
      const redirected = await movedTo(`http://127.0.0.1:${(redirector.address() as AddressInfo).port}/app.git`);
      expect((await appErrorOf(pushBranch(elsewhere.repositories, redirected, "main"), tmpdir())).code).toBe("REMOTE_PUSH_FAILED");
      expect(remote.authorizations).toEqual([]);
      for (const url of [`file://${served}/app.git`, "ssh://git@127.0.0.1/app.git", "ext::sh -c touch% /tmp/pwned"]) {
        const error = await appErrorOf(pushBranch(elsewhere.repositories, await movedTo(url), "main"), tmpdir());
        expect(error, url).toMatchObject({ code: "REMOTE_PUSH_FAILED", message: expect.stringMatching(/must start with https|not a URL/) });
      }
    } finally {
      await elsewhere.close();
      await new Promise((resolve) => redirector.close(resolve));
    }
  });
});

describe("the push's time (the gateway's wait)", () => {
  it("stops git in time to answer before the caller stops waiting, and sends nothing when no time is left", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const elsewhere = await openTestRepositories();
    try {
      const { value: record } = await system.repositories.bucket.record(project);
      const moved = { ...record!, remote: { ...record!.remote!, url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/app.git` } };
      await elsewhere.repositories.bucket.createRecord(project, moved);
      await elsewhere.repositories.bucket.changeRefs(project, moved.generation, () => ({ refs: [{ name: "refs/heads/main", id: remoteHead("main") }] }));
      const stopped = await appErrorOf(pushBranch(elsewhere.repositories, project, "main", Date.now() + 3_000), tmpdir());
      expect(stopped).toMatchObject({ code: "REMOTE_PUSH_FAILED", message: expect.stringContaining("did not end within") });
      const late = await appErrorOf(pushBranch(system.repositories, project, "feature", Date.now() + 1_000), tmpdir());
      expect(late).toMatchObject({ code: "REMOTE_PUSH_FAILED", message: expect.stringContaining("nothing was sent") });
    } finally {
      await elsewhere.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe("pushRefusal", () => {
  it("keeps git's reasons and takes out the credential, the host's folders and git's hints", () => {
    const stderr = [
      "To http://127.0.0.1:4567/app.git",
      " ! [rejected]        0123abc -> main (non-fast-forward)",
      `error: failed to push some refs to 'http://127.0.0.1:4567/app.git' with ${secret}`,
      "hint: Updates were rejected because the tip of your current branch is behind",
      "remote: fatal: could not open /var/lib/ao/cache/repositories-x/p1.abc/repo.git/objects/pack",
    ].join("\n");
    const reason = pushRefusal(stderr, { secrets: [secret], folder: "/var/lib/ao/cache/repositories-x/p1.abc" });
    expect(reason).toBe(
      "! [rejected] 0123abc -> main (non-fast-forward); error: failed to push some refs to 'http://127.0.0.1:4567/app.git' with ***; remote: fatal: could not open …",
    );
    expect(pushRefusal("fatal: cannot read /home/runner/.gitconfig", { secrets: [], folder: "/nowhere" })).toBe("fatal: cannot read …");
  });
});
