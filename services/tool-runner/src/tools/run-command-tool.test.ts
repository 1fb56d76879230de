import { randomUUID } from "node:crypto";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import type { ToolContext } from "@agent-orchestrator/shared/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandRunner } from "../commands/index.js";
import type { WorkingTrees } from "../repository/index.js";
import { createCommandFixture, type CommandFixture } from "../testing/command-fixture.js";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { runCommandTool } from "./run-command-tool.js";
import type { ToolDependencies } from "./tool-handler.js";

// docs/commands.md: run_command in a chat's working tree of the project's repository, durable before it answers.
const nodeProject = {
  "package.json": '{ "name": "calc", "type": "module", "scripts": { "test": "node --test" } }\n',
  "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
  "test/add.test.js": 'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("adds", () => assert.equal(add(2, 3), 5));\n',
};

let system: TestRepositories;
let commands: CommandFixture;
let sandbox: SandboxFixture;
let bundle: string;
let removeRepository: () => Promise<void>;

beforeAll(async () => {
  system = await openTestRepositories();
  commands = await createCommandFixture({ runner: { timeoutMs: 20_000, diskMb: 64 } });
  sandbox = await createSandboxFixture();
  const made = await makeTestRepository(nodeProject);
  bundle = made.bundle;
  removeRepository = made.remove;
});

afterAll(async () => {
  await system.close();
  await commands.cleanup();
  await sandbox.cleanup();
  await removeRepository();
});

const deps = (more: { trees?: WorkingTrees; commands?: CommandRunner } = {}): ToolDependencies => ({
  sandbox: sandbox.sandbox,
  replyBudget: () => 1024 * 1024 - 4096,
  logger: createLogger("tool-runner-test", "silent"),
  commands: commands.runner,
  trees: system.trees,
  ...more,
});

const contextOf = (project: string, session = "s1"): ToolContext => ({ session_id: session, project_id: project, user: "alice", agent_id: "dev", bundle_path: "_bmad" });
let calls = 0;
const run = (context: ToolContext, command: string, more: { timeout_ms?: number; dependencies?: ToolDependencies } = {}) =>
  runCommandTool({ command, ...(more.timeout_ms === undefined ? {} : { timeout_ms: more.timeout_ms }) }, context, more.dependencies ?? deps(), { call_id: `run1:${++calls}` });

describe("run_command in a chat's working tree", () => {
  it("fails the project's test, fixes it, passes, commits as the member, and another replica's next command sees the commit", async () => {
    const context = contextOf(await system.attached(bundle));
    expect(await run(context, "git status --short && git branch --show-current")).toMatchObject({ success: true, exit_code: 0, stdout: "chat/s1\n", truncated: false });
    const failing = await run(context, "npm test");
    expect(failing).toMatchObject({ success: false, error: { code: "COMMAND_FAILED" } });
    expect(failing["stdout"]).toMatch(/^[#ℹ] fail 1$/m);
    expect(await run(context, "sed -i 's/a - b/a + b/' src/add.js && npm test >/dev/null && git commit -qam 'add: fix the sum' && git log -1 --format='%an <%ae> %s%n%(trailers:only)'")).toMatchObject({
      success: true,
      stdout: "alice <alice@users.noreply.invalid> add: fix the sum\nAgent: dev\nChat: s1\n\n",
    });
    const other = await system.replica();
    expect(await run(context, "git log --format=%s && git status --short", { dependencies: deps({ trees: other.trees }) })).toMatchObject({ success: true, stdout: "add: fix the sum\nfirst\n" });
  });

  it("keeps what a command wrote before its time ran out, and says which limit stopped it (case 297)", async () => {
    const context = contextOf(await system.attached(bundle));
    const stopped = await run(context, "echo draft > notes.txt; sleep 60", { timeout_ms: 1500 });
    expect(stopped).toMatchObject({ success: false, exit_code: null, error: { code: "COMMAND_TIMEOUT" } });
    expect(await run(context, "cat notes.txt")).toMatchObject({ success: true, stdout: "draft\n" });
  });

  it("keeps nothing of a command stopped at its disk limit (case 296)", async () => {
    const context = contextOf(await system.attached(bundle));
    const stopped = await run(context, "echo small > kept.txt; i=0; while [ $i -lt 64 ]; do head -c 16M /dev/zero > big$i; i=$((i+1)); done");
    expect(stopped).toMatchObject({ success: false, exit_code: null, error: { code: "COMMAND_LIMIT_EXCEEDED" } });
    expect((stopped as { error: { message: string } }).error.message).toMatch(/disk limit \(64 MiB written\).*nothing it changed was kept/);
    expect(await run(context, "ls")).toMatchObject({ success: true, stdout: "package.json\nsrc\ntest\n" });
  });

  it("answers REPOSITORY_REQUIRED in a project without a repository, and COMMANDS_DISABLED where commands are off", async () => {
    await expect(run(contextOf(`p${randomUUID().slice(0, 8)}`), "git status")).rejects.toMatchObject({ code: "REPOSITORY_REQUIRED" });
    await expect(run(contextOf(await system.attached(bundle)), "git status", { dependencies: { ...deps(), commands: undefined } })).rejects.toMatchObject({ code: "COMMANDS_DISABLED" });
  });
});
