import { watch } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { createBmadTree, type BmadTree } from "../testing/bmad-tree.js";
import { changeCounter } from "../testing/change-counter.js";
import type { TreeWatcher } from "./watch-tree.js";
import { watchInstall } from "./watch-install.js";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";

const logger = createLogger("registry-test", "silent");

describe("watchInstall", () => {
  let tree: BmadTree;
  let watcher: TreeWatcher | undefined;
  beforeEach(async () => {
    tree = await createBmadTree();
    await tree.write({
      "_bmad/bmm/config.yaml": "a: 1\n",
      ".claude/skills/bmad-agent-owl/SKILL.md": "---\nname: bmad-agent-owl\n---\n",
      "src/app.ts": "export {};\n",
      "node_modules/pkg/index.js": "\n",
    });
  });
  afterEach(async () => {
    watcher?.close();
    await tree.cleanup();
  });

  const start = async (counter: ReturnType<typeof changeCounter>) => {
    watcher = await watchInstall({ root: tree.root, pollMs: 60_000, debounceMs: 20, forcePoll: false, onChange: counter.onChange, logger });
    expect(watcher.mode).toBe("watch");
  };

  it("sees a team customization file appear under _bmad/custom and an edit inside a tool folder's skill", async () => {
    const counter = changeCounter();
    await start(counter);
    await tree.write({ "_bmad/custom/bmad-agent-owl.toml": "[agent]\nicon = \"🦉\"\n" });
    await counter.next();
    await writeFile(join(tree.root, ".claude/skills/bmad-agent-owl/customize.toml"), "[agent]\n");
    await counter.next();
  });

  it("follows a tool folder created after the start down to its new skills", async () => {
    const counter = changeCounter();
    await start(counter);
    await mkdir(join(tree.root, ".agents"));
    await counter.next();
    await mkdir(join(tree.root, ".agents/skills"));
    // the change is reported after the watchers are updated (rearmThenChange), and watchTree resolves once
    // armed: from here skills/ is watched as a tree, and an edit deep inside is seen
    await counter.next();
    await tree.write({ ".agents/skills/bmad-agent-fox/SKILL.md": "---\nname: bmad-agent-fox\n---\n" });
    await counter.next();
    await writeFile(join(tree.root, ".agents/skills/bmad-agent-fox/SKILL.md"), "---\nname: bmad-agent-fox\n---\n# Fox\n");
    await counter.next();
  });

  it("ignores the rest of the project: sources and node_modules", async () => {
    const counter = changeCounter();
    await start(counter);
    // a witness watching those folders shows when their events have reached this process; the install's
    // debounce runs on a fake clock, so an event it took would leave a timer pending, then a call
    const seen = new Set<string>();
    const witnesses = ["src", "node_modules/pkg"].map((folder) => watch(join(tree.root, folder), (_event, name) => void seen.add(`${folder}/${String(name)}`)));
    onTestFinished(() => witnesses.forEach((witness) => witness.close()));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => void vi.useRealTimers());
    await writeFile(join(tree.root, "src/app.ts"), "export const changed = 1;\n");
    await writeFile(join(tree.root, "node_modules/pkg/index.js"), "changed\n");
    await waitUntil(() => seen.has("src/app.ts") && seen.has("node_modules/pkg/index.js"), { message: "the edits' events" });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(counter.calls).toBe(0);
    // the control: an edit it does watch, made the same way, is a pending debounce and then a call
    await writeFile(join(tree.root, "_bmad/bmm/config.yaml"), "a: 2\n");
    await waitUntil(() => vi.getTimerCount() > 0, { message: "the watched edit's debounce" });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(counter.calls).toBe(1);
  });
});
