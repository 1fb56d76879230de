/**
 * BMAD's implementation phase through the whole system (issue 40 "How it is checked"; docs/repositories.md,
 * docs/commands.md), on a real BMAD 6.12 install and the scripted model: alice's project has a repository, a small
 * Node project whose `node --test` fails, with a story made to 6.12's spec template and the sprint board. Amelia (the
 * 6.12 dev agent, `bmm/dev`) runs `bmad-build` as its step files say: she loads the skill, renders it with BMAD's
 * `render_skill.py`, reads the workflow, step 1, the story and the board, takes step 1's early exit to step 3, checks
 * the working tree (`git status`), captures the baseline commit, moves the story and the board to in-progress, runs
 * the story's `## Verification` command (it fails), fixes the code with edit_file, runs it again (it passes), writes
 * the diff since the baseline to `{diff_file}` in her scratch space and reads it, marks the task done, and in step 5
 * marks the story done, moves the board to review and commits. The journey checks what the tools answered her, then
 * that bob (an editor) clones the chat's branch over `/git/<id>.git` with a personal token of his and finds the commit,
 * authored by alice with the `Agent:` and `Chat:` trailers, whose tests pass in his clone; that carol (a viewer)
 * fetches and cannot push, that dave (no member) gets 404, and that the chat and the branch's commits show it over
 * the API.
 *
 * The team's configuration: `node --test` is the project's `repository.verify` command, so it runs without asking (a
 * team names its checks once: every step that verifies runs them, and an approval each time would teach members to
 * approve without reading); the commit waits for alice, the default for a command that is not a read-only git one,
 * because it changes the branch's history. Step 4's review layers are subagents (the orchestrator's subagent tests
 * cover run_subagent); this journey goes from step 3 straight to step 5. Its cases run in order: each takes up where
 * the one before left the project, as the team's steps do.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachBundle } from "@agent-orchestrator/testing/attach-bundle";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import type { ChatRequestBody, ScriptedToolCall, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";
import { makeTestRepository } from "@agent-orchestrator/tool-runner/testing";

const tokens = { alice: "alice-token-7", bob: "bob-token-7", carol: "carol-token-7", dave: "dave-token-7" };
type Person = keyof typeof tokens;
const agent = "bmm/dev";
const story = "{project-root}/_bmad-output/implementation-artifacts/1-1-add-numbers.md";
const run = promisify(execFile);

const storyFile = `---
title: 'Add numbers'
type: 'bugfix'
created: '2026-11-27'
status: 'ready-for-dev'
route: 'dispatch'
review_loop_iteration: 0
context: []
---

<frozen-after-approval reason="human-owned intent — do not modify unless human renegotiates">

## Intent

**Problem:** \`add(2, 3)\` returns -1: the calculator subtracts.

**Approach:** \`add\` returns the sum of its arguments.

</frozen-after-approval>

## Code Map

- \`src/add.js\` -- the calculator's addition

## Tasks & Acceptance

**Execution:**
- [ ] \`src/add.js\` -- return \`a + b\` -- callers expect the sum

**Acceptance Criteria:**
- Given 2 and 3, when \`add\` is called, then it returns 5

## Implementation Notes

## Verification

**Commands:**
- \`node --test\` -- expected: every test passes
`;

const sprintStatus = `generated: 2026-11-27
last_updated: 2026-11-27
project: Calc
tracking_system: file-system
story_location: "{project-root}/_bmad-output/implementation-artifacts"

development_status:
  epic-1: in-progress
  1-1-add-numbers: ready-for-dev
  epic-1-retrospective: optional
`;

/** The text of a tool result (a JSON object) as the model saw it. */
const parsed = (result: string | undefined): Record<string, any> => JSON.parse(result ?? "{}") as Record<string, any>;
const content = (result: string | undefined): string => String(parsed(result)["content"] ?? "");
/** The one path in `text` that ends in `file` (a rendered skill links its files by such paths). */
const linked = (text: string, file: string): string => new RegExp(`[^\\s\`'"\\](]+/${file.replace(".", "\\.")}`).exec(text)?.[0] ?? `LOST: no link to ${file}`;

/** Amelia's calls, in order, by name (`moves` makes each). */
const steps = ["skill", "render", "workflow", "step1", "story", "board", "step3", "status", "baseline", "recordBaseline", "sync", "boardInProgress", "failing", "fix", "passing", "diff", "diffFile", "readDiff", "taskDone", "step4", "step5", "storyDone", "boardReview", "commit"] as const;
type Step = (typeof steps)[number];
/** What Amelia's earlier calls answered, by the name of the call. */
type Answers = (step: Step) => string | undefined;
const stdoutOf = (answer: string | undefined) => String(parsed(answer)["stdout"] ?? "");
const baseline = (answers: Answers) => stdoutOf(answers("baseline")).trim();
/** The first command of the story's `## Verification` section. */
const verification = (answers: Answers) => /## Verification[\s\S]*?- `([^`]+)`/.exec(content(answers("story")))?.[1] ?? "LOST: no verification command";
/** The sprint board, where step 1's story-key resolution says it is (the install's `implementation_artifacts`). */
const board = (answers: Answers) => /`(\{project-root\}\S*\/sprint-status\.yaml)`/.exec(content(answers("step1")))?.[1] ?? "LOST: no sprint board";
const diffFile = "{session-folder}/bmad-build-1-1-add-numbers.diff";

/**
 * Each of Amelia's calls, made from what the earlier calls answered. Only the fix and the names of her files
 * are hers; every path, the baseline and the verification command come from the skill's files, the story and git.
 */
const moves: Record<Step, (answers: Answers) => ScriptedToolCall> = {
  skill: () => ({ name: "load_skill", arguments: { name: "bmad-build" } }),
  render: (answers) => {
    const root = String(parsed(answers("skill"))["path"] ?? "LOST: no skill root");
    return { name: "run_script", arguments: { command: `uv run --no-cache "{project-root}/_bmad/scripts/render_skill.py" --project-root "{project-root}" --skill "${root}"` } };
  },
  workflow: (answers) => ({ name: "read_file", arguments: { file_path: /read and follow (\S+workflow\.md)/.exec(stdoutOf(answers("render")))?.[1] ?? "LOST" } }),
  step1: (answers) => ({ name: "read_file", arguments: { file_path: linked(content(answers("workflow")), "step-01-clarify-and-route.md") } }),
  story: () => ({ name: "read_file", arguments: { file_path: story } }),
  board: (answers) => ({ name: "read_file", arguments: { file_path: board(answers) } }),
  // the story is ready-for-dev on the dispatch route: step 1's early exit to step 3
  step3: (answers) => ({ name: "read_file", arguments: { file_path: linked(content(answers("step1")), "step-03-implement.md") } }),
  status: () => ({ name: "run_command", arguments: { command: "git status" } }),
  baseline: () => ({ name: "run_command", arguments: { command: "git log -1 --format=%H" } }),
  recordBaseline: (answers) => ({ name: "edit_file", arguments: { file_path: story, old_string: "status: 'ready-for-dev'", new_string: `status: 'in-progress'\nbaseline_commit: '${baseline(answers)}'` } }),
  sync: (answers) => ({ name: "read_file", arguments: { file_path: linked(content(answers("step3")), "sync-sprint-status.md") } }),
  boardInProgress: (answers) => ({ name: "edit_file", arguments: { file_path: board(answers), old_string: "1-1-add-numbers: ready-for-dev", new_string: "1-1-add-numbers: in-progress" } }),
  failing: (answers) => ({ name: "run_command", arguments: { command: verification(answers) } }),
  fix: () => ({ name: "edit_file", arguments: { file_path: "{project-root}/src/add.js", old_string: "return a - b;", new_string: "return a + b;" } }),
  passing: (answers) => ({ name: "run_command", arguments: { command: verification(answers) } }),
  diff: (answers) => ({ name: "run_command", arguments: { command: `git diff ${baseline(answers)}` } }),
  // a command's /tmp ends with it: {diff_file} lives in the chat's scratch space, where read_file and subagents reach it
  diffFile: (answers) => ({ name: "save_output", arguments: { file_path: diffFile, content: stdoutOf(answers("diff")) } }),
  readDiff: () => ({ name: "read_file", arguments: { file_path: diffFile } }),
  taskDone: () => ({ name: "edit_file", arguments: { file_path: story, old_string: "- [ ] `src/add.js`", new_string: "- [x] `src/add.js`" } }),
  step4: (answers) => ({ name: "read_file", arguments: { file_path: linked(content(answers("step3")), "step-04-review.md") } }),
  step5: (answers) => ({ name: "read_file", arguments: { file_path: linked(content(answers("step4")), "step-05-present.md") } }),
  storyDone: () => ({ name: "edit_file", arguments: { file_path: story, old_string: "status: 'in-progress'", new_string: "status: 'done'" } }),
  boardReview: (answers) => ({ name: "edit_file", arguments: { file_path: board(answers), old_string: "1-1-add-numbers: in-progress", new_string: "1-1-add-numbers: review" } }),
  commit: () => ({ name: "run_command", arguments: { command: 'git commit -am "fix: add returns the sum of its arguments"' } }),
};

/** What each call answered, as Amelia saw it (from the longest conversation the model was sent). */
let seen: string[] = [];
const answer: Answers = (step) => seen[steps.indexOf(step)];

function amelia(request: ChatRequestBody): ScriptedTurn {
  const lastUser = request.messages.findLastIndex((message) => message.role === "user");
  const results = request.messages.slice(lastUser + 1).filter((message) => message.role === "tool").map((message) => String(message.content));
  if (results.length > seen.length) seen = results;
  const step = steps[results.length];
  if (step === undefined) return { text: `Story 1-1 is built and committed: ${stdoutOf(results.at(-1)).trim()}` };
  return { toolCalls: [moves[step]((earlier) => results[steps.indexOf(earlier)])] };
}

let system: TestSystem;
let project: string;
let session: string;
let work: string;
const removals: Array<() => Promise<void>> = [];

async function api(as: Person, method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${system.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Real git, signed in with `token` as a bearer header, as docs/repositories.md shows it. */
async function git(token: string, cwd: string, args: readonly string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
  const options = ["-c", "user.name=Someone", "-c", "user.email=someone@example.com", "-c", `http.extraHeader=Authorization: Bearer ${token}`];
  try {
    const { stdout, stderr } = await run("git", [...options, ...args], { cwd, env });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

const remote = () => `${system.url}/git/${project}.git`;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "ao-bmad-build-"));
  const root = await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" });
  system = await startTestSystem({ responder: amelia, env: { BMAD_ROOT: root, AUTH_TOKENS: Object.entries(tokens).map(([user, token]) => `${user}:${token}`).join(","), COMMANDS: "on" } });
  const made = await makeTestRepository({
    "package.json": '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
    "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
    "test/add.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
    "_bmad-output/implementation-artifacts/1-1-add-numbers.md": storyFile,
    "_bmad-output/implementation-artifacts/sprint-status.yaml": sprintStatus,
  });
  removals.push(made.remove);
  project = (await api("alice", "POST", "/api/projects", { name: "Calc" })).body["project"].id as string;
  expect((await api("alice", "PUT", `/api/projects/${project}/members/bob`, { role: "editor" })).status).toBe(200);
  expect((await api("alice", "PUT", `/api/projects/${project}/members/carol`, { role: "viewer" })).status).toBe(200);
  expect((await attachBundle(system.url, project, made.bundle, tokens.alice)).status).toBe(201);
  expect((await api("alice", "PUT", `/api/projects/${project}/settings`, { repository: { verify: ["node --test"] } })).status).toBe(200);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await Promise.all(removals.map((remove) => remove()));
  if (work) await rm(work, { recursive: true, force: true });
});

describe("Amelia builds a story with bmad-build, and the team fetches her commit", { shuffle: false }, () => {
  it("follows bmad-build's steps in the working tree: the tests fail, she fixes the code, they pass, and the commit waits for alice", async () => {
    const turn = await api("alice", "POST", "/api/chat", { agent_id: agent, project_id: project, message: `Build story 1-1: ${story}` });
    const commit = 'git commit -am "fix: add returns the sum of its arguments"';
    expect(turn, JSON.stringify(turn.body)).toMatchObject({ status: 202, body: { status: "awaiting_approval", approvals: [{ tool: "run_command", arguments: { command: commit } }] } });
    session = turn.body["session_id"] as string;
    // every call but the first test run succeeded
    const failed = seen.map((result, index) => [steps[index], parsed(result)["success"]] as const).filter(([, success]) => success !== true);
    expect(failed, JSON.stringify(seen)).toEqual([["failing", false]]);

    expect(stdoutOf(answer("render"))).toMatch(/^read and follow \S+\/workflow\.md$/m);
    expect(content(answer("step1"))).toContain("# Step 1: Clarify");
    expect(board(answer)).toBe("{project-root}/_bmad-output/implementation-artifacts/sprint-status.yaml");
    expect(content(answer("step3"))).toContain("# Step 3: Implement");
    expect(content(answer("step5"))).toContain("# Step 5: Present");
    expect(parsed(answer("status"))).toMatchObject({ exit_code: 0, stdout: expect.stringMatching(new RegExp(`^On branch chat/${session}\\n[\\s\\S]*nothing to commit, working tree clean`)) });
    expect(baseline(answer)).toMatch(/^[0-9a-f]{40}$/);
    expect(verification(answer)).toBe("node --test");
    expect(parsed(answer("failing"))).toMatchObject({ success: false, exit_code: 1, error: { code: "COMMAND_FAILED" } });
    expect(stdoutOf(answer("failing"))).toMatch(/^[#ℹ] fail 1$/m);
    expect(parsed(answer("passing"))).toMatchObject({ success: true, exit_code: 0 });
    expect(stdoutOf(answer("passing"))).toMatch(/^[#ℹ] pass 1$/m);
    for (const line of ["-  return a - b;", "+  return a + b;", "-status: 'ready-for-dev'", `+baseline_commit: '${baseline(answer)}'`, "+  1-1-add-numbers: in-progress"]) {
      expect(stdoutOf(answer("diff"))).toContain(line);
    }

    expect(content(answer("readDiff"))).toBe(stdoutOf(answer("diff")));

    const approval = turn.body["approvals"][0].approval_id as string;
    expect((await api("alice", "POST", `/api/sessions/${session}/approvals/${approval}`, { decision: "approve" })).status).toBe(200);
    await expect.poll(async () => (await api("alice", "GET", `/api/sessions/${session}`)).body["session"].status, { timeout: 30_000 }).toBe("completed");
    expect(parsed(answer("commit")), answer("commit")).toMatchObject({ success: true, exit_code: 0 });
    expect(stdoutOf(answer("commit"))).toMatch(new RegExp(`^\\[chat/${session} [0-9a-f]+\\] fix: add returns the sum of its arguments`));
    const diff = await api("alice", "GET", `/api/sessions/${session}`);
    expect(diff.body["session"].files_written).toContain(diffFile);
  }, 120_000);

  it("shows the chat's branch and its commit, by alice with the agent and the chat named, over the API", async () => {
    const chat = await api("bob", "GET", `/api/sessions/${session}`);
    expect(chat.body["session"], JSON.stringify(chat.body)).toMatchObject({ branch: `chat/${session}`, status: "completed" });
    const log = await api("bob", "GET", `/api/projects/${project}/repository/branches/${encodeURIComponent(`chat/${session}`)}/commits`);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body["commits"][0]).toMatchObject({ subject: "fix: add returns the sum of its arguments", author: { name: "alice" }, agent_id: agent, chat_id: session });
    expect(log.body["commits"][1]).toMatchObject({ subject: "first" });
  });

  it("lets bob clone the chat's branch with a personal token and find the commit, whose tests pass in his clone", async () => {
    const made = await api("bob", "POST", "/api/tokens", { name: "bob's laptop" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = made.body["token"] as string;
    const clone = path.join(work, "bob");
    expect(await git(token, work, ["clone", "-q", remote(), clone])).toMatchObject({ code: 0, stderr: "" });
    expect((await git(token, clone, ["checkout", "-q", `chat/${session}`])).code).toBe(0);
    const head = await git(token, clone, ["log", "-1", "--format=%an%n%s%n%(trailers:key=Agent)%(trailers:key=Chat)"]);
    expect(head.stdout.trim()).toBe(`alice\nfix: add returns the sum of its arguments\nAgent: ${agent}\nChat: ${session}`);
    expect(await readFile(path.join(clone, "src/add.js"), "utf8")).toBe("export function add(a, b) {\n  return a + b;\n}\n");
    const spec = await readFile(path.join(clone, "_bmad-output/implementation-artifacts/1-1-add-numbers.md"), "utf8");
    expect(spec).toContain("status: 'done'");
    expect(spec).toContain(`baseline_commit: '${baseline(answer)}'`);
    expect(await readFile(path.join(clone, "_bmad-output/implementation-artifacts/sprint-status.yaml"), "utf8")).toContain("1-1-add-numbers: review");
    const tests = await run(process.execPath, ["--test"], { cwd: clone });
    expect(tests.stdout).toMatch(/^[#ℹ] pass 1$/m);
  });

  it("lets carol, a viewer, fetch and not push, and tells dave, no member, that the project is not found", async () => {
    const clone = path.join(work, "carol");
    expect((await git(tokens.carol, work, ["clone", "-q", remote(), clone])).code).toBe(0);
    expect((await git(tokens.carol, clone, ["fetch", "-q", "origin", `chat/${session}`])).code).toBe(0);
    expect((await git(tokens.carol, clone, ["log", "-1", "--format=%s", "FETCH_HEAD"])).stdout).toBe("fix: add returns the sum of its arguments\n");
    const pushed = await git(tokens.carol, clone, ["push", "origin", "FETCH_HEAD:refs/heads/carol"]);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain("remote: You are a viewer of this project: viewers fetch, editors and owners push");
    expect(pushed.stderr).toMatch(/403/);

    const hidden = await git(tokens.dave, work, ["ls-remote", remote()]);
    expect(hidden.code).not.toBe(0);
    expect(hidden.stderr).toContain("remote: Project not found");
    expect(hidden.stderr).toMatch(/not found/);
  });
});
