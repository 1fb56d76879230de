import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandFixture, type CommandFixture } from "../testing/command-fixture.js";
import { makeTestRepository, openTestRepositories, type TestRepositories } from "../testing/repository-fixture.js";

// docs/repositories.md "git status in a command": the command's git asks the checkout's monitor, and answers as without it.
const files = {
  "README.md": "# calc\n",
  "src/add.js": "export const add = (a, b) => a + b;\n",
  "src/sub.js": "export const sub = (a, b) => a - b;\n",
  "src/deep/mul.js": "export const mul = (a, b) => a * b;\n",
  "test/add.test.js": "// the test\n",
  ".gitignore": "*.log\n",
};

let system: TestRepositories;
let commands: CommandFixture;
let bundle: string;
let removeRepository: () => Promise<void>;
let sessions = 0;

beforeAll(async () => {
  system = await openTestRepositories();
  commands = await createCommandFixture({ runner: { timeoutMs: 20_000 } });
  const made = await makeTestRepository(files);
  bundle = made.bundle;
  removeRepository = made.remove;
});

afterAll(async () => {
  await system.close();
  await commands.cleanup();
  await removeRepository();
});

/** A chat of its own in a project of its own; `run` runs one command in its working tree as run_command does. */
async function chatTree() {
  const chat = { project: await system.attached(bundle), session: `s${++sessions}` };
  const author = { user: "alice", session_id: chat.session, agent_id: "dev" };
  const run = async (command: string) => {
    const done = await system.trees.withWorkingTree(chat, (place, commits) => commands.runner.run({ place, command, network: false, gitEnvironment: commits.environment, chat: chat.session, user: "alice" }), author);
    expect(done.stderr).toBe("");
    expect(done.exitCode).toBe(0);
    return done.stdout;
  };
  /**
   * `git status` with the hook and without it (`--no-optional-locks`: it writes no index, so the next command's git
   * still has the hook's token); the two outputs and the paths the hook answered (none when it answered `/`).
   */
  const status = async (before = "") => {
    const out = await run(
      `${before}GIT_TRACE_FSMONITOR=/tmp/trace git status --porcelain -uall > /tmp/with && git --no-optional-locks -c core.fsmonitor=false status --porcelain -uall > /tmp/without && cat /tmp/with && echo === && cat /tmp/without && echo === && grep -o "fsmonitor_refresh_callback '[^']*'" /tmp/trace | cut -d"'" -f2 | sort -u; true`,
    );
    const [withHook = "", without = "", answered = ""] = out.split("===\n");
    return { withHook, without, answered: answered.split("\n").filter((line) => line !== "") };
  };
  return { chat, author, run, status };
}

describe("the command's git status with the checkout's monitor", () => {
  it("answers everything at first, then exactly what each kind of change touched, as git status without the hook", async () => {
    const { status } = await chatTree();
    const first = await status();
    expect(first.withHook).toBe("");
    expect(first.without).toBe("");
    // a fresh watcher: the hook answers "/" (everything), so git looks at every file
    expect(first.answered).toEqual([]);

    const cases: Array<{ change: string; shows: string[]; answered: string[] }> = [
      { change: "echo changed >> src/add.js", shows: [" M src/add.js"], answered: ["src/add.js"] },
      { change: "rm src/sub.js", shows: [" D src/sub.js"], answered: ["src/sub.js"] },
      { change: "mv README.md READ.md", shows: [" D README.md", "?? READ.md"], answered: ["READ.md", "README.md"] },
      { change: "mkdir -p lib/a/b && echo x > lib/a/b/c.js && echo y > lib/top.js", shows: ["?? lib/a/b/c.js", "?? lib/top.js"], answered: ["lib"] },
      { change: "echo log > debug.log", shows: [], answered: ["debug.log"] },
    ];
    for (const { change, shows, answered } of cases) {
      // each case's status shows what is left of every change before it
      const seen = await status(`${change} && `);
      expect(seen.withHook).toBe(seen.without);
      for (const line of shows) expect(seen.withHook.split("\n")).toContain(line);
      for (const name of answered) expect(seen.answered).toContain(name);
    }
  });

  it("takes a fresh checkout's files for unchanged at its first status, though the host's git wrote the index as another uid", async () => {
    const { run } = await chatTree();
    // listed: an entry whose stat data git takes for changed, which git status would hash again (every file, by uid alone)
    expect(await run("git diff-files --name-only")).toBe("");
  });

  it("sees a change a previous command made, and one a file tool made between commands", async () => {
    const { chat, author, run, status } = await chatTree();
    await status();
    await run("echo one > src/add.js && mkdir -p src/new && echo n > src/new/n.js");
    const afterCommand = await status();
    expect(afterCommand.withHook).toBe(" M src/add.js\n?? src/new/n.js\n");
    expect(afterCommand.withHook).toBe(afterCommand.without);
    expect(afterCommand.answered).toContain("src/add.js");

    await system.trees.change(chat, async () => [{ path: "src/deep/mul.js", content: Buffer.from("export const mul = 0;\n") }], author);
    const afterTool = await status();
    expect(afterTool.withHook).toBe(" M src/add.js\n M src/deep/mul.js\n?? src/new/n.js\n");
    expect(afterTool.withHook).toBe(afterTool.without);
    expect(afterTool.answered).toContain("src/deep/mul.js");
  });

  it("reads a folder again when folders trade places, whose inner files no event named", async () => {
    const { run, status } = await chatTree();
    await run("mkdir -p one two && echo 1 > one/a.txt && echo 2 > two/b.txt");
    await status();
    await status();
    const swapped = await status("mv one swap && mv two one && mv swap two && ");
    expect(swapped.withHook).toBe("?? one/b.txt\n?? two/a.txt\n");
    expect(swapped.withHook).toBe(swapped.without);
    // and the watches follow the folders' new names: a write in one of them afterwards is named by its new path
    const after = await status("echo more > one/b2.txt && ");
    expect(after.withHook).toBe("?? one/b.txt\n?? one/b2.txt\n?? two/a.txt\n");
    expect(after.answered).toContain("one/b2.txt");
  });

  it("answers everything after a change the watcher doubts (an ignore file), and the output is still git's own", async () => {
    const { status } = await chatTree();
    await status();
    const doubted = await status("echo '*.js' >> .gitignore && echo x > src/new.js && ");
    expect(doubted.answered).toEqual([]);
    expect(doubted.withHook).toBe(" M .gitignore\n");
    expect(doubted.withHook).toBe(doubted.without);
    const next = await status("echo y > other.txt && ");
    expect(next.answered).toEqual(["other.txt"]);
    expect(next.withHook).toBe(next.without);
  });

  it("answers / to a token of another epoch, a forged one, or one past the log's end; the hook and the log are read-only (cases 343, 345)", async () => {
    const { run, status } = await chatTree();
    await status();
    const out = await run(
      [
        "epoch=$(cd /fsmonitor && ls log-* | sed 's/log-//')",
        "/fsmonitor/query 2 0123456789abcdef:0 | tr '\\0' '|'; echo",
        '/fsmonitor/query 2 "$epoch:99999999" | tr \'\\0\' \'|\' | cut -d"|" -f2',
        "/fsmonitor/query 2 '$(touch /project/pwned)' | tr '\\0' '|' | cut -d'|' -f2",
        "{ echo x > /fsmonitor/query; } 2>/dev/null && echo wrote-hook",
        '{ echo x >> "/fsmonitor/log-$epoch"; } 2>/dev/null && echo wrote-log',
        "ls pwned 2>/dev/null; true",
      ].join("; "),
    );
    const [stale, pastEnd, forged, ...rest] = out.split("\n");
    expect(stale).toMatch(/^[0-9a-f]{16}:[0-9]+\|\/\|$/);
    expect(pastEnd).toBe("/");
    expect(forged).toBe("/");
    expect(rest.join("\n")).toBe("");
  });

  it("answers as git would when the command litters the cookie folder with links, folders and cookie-like names (case 346)", async () => {
    const { status } = await chatTree();
    await status();
    const littered = await status("for n in 1 2 3 4 5 6 7 8 9; do mkdir -p /fsmonitor-cookies/$n-1; done; ln -s / /fsmonitor-cookies/10-1; touch /fsmonitor-cookies/x && echo z >> src/add.js && ");
    expect(littered.withHook).toBe(" M src/add.js\n");
    expect(littered.withHook).toBe(littered.without);
    // the host emptied the folder before this command: the hook's cookies work again
    const next = await status("echo w >> README.md && ");
    expect(next.answered).toContain("README.md");
  });

  it("never runs a core.fsmonitor the command put in .git/config on the host (case 344)", async () => {
    const { run, status } = await chatTree();
    await run("printf '#!/bin/sh\\necho ran > ran-by-host\\n' > .hook && chmod +x .hook && git config core.fsmonitor ./.hook && git config core.fsmonitorHookVersion 1");
    // the host reads this command's changes back, brings the checkout to the state, a file tool writes: no hook runs
    await status("echo more >> src/add.js && ");
    expect(await run("ls ran-by-host 2>/dev/null; true")).toBe("");
  });
});
