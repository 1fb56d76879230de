import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLogger } from "@agent-orchestrator/shared";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBmadTree, type BmadTree } from "./__fixtures__/bmad-tree.js";
import { changeCounter } from "./__fixtures__/change-counter.js";
import { watchTree, type TreeWatcher } from "./watch-tree.js";

const logger = createLogger("registry-test", "silent");

describe("watchTree", () => {
  let tree: BmadTree;
  let watcher: TreeWatcher | undefined;
  beforeEach(async () => {
    tree = await createBmadTree();
    await mkdir(join(tree.root, "bmad"), { recursive: true });
  });
  afterEach(async () => {
    watcher?.close();
    await tree.cleanup();
  });

  it("uses fs.watch and reports a change in a new nested folder, debounced into one call", async () => {
    const counter = changeCounter();
    watcher = await watchTree({ directory: join(tree.root, "bmad"), pollMs: 60_000, debounceMs: 50, forcePoll: false, onChange: counter.onChange, logger });
    expect(watcher.mode).toBe("watch");
    const started = Date.now();
    await tree.write({ "bmad/custom/bundles/x/bundle.yaml": "a: 1\n", "bmad/custom/bundles/x/agent.md": "b" });
    await counter.next();
    expect(Date.now() - started).toBeLessThan(1000);
    await new Promise((wait) => setTimeout(wait, 200));
    expect(counter.calls).toBe(1);
    await writeFile(join(tree.root, "bmad/custom/bundles/x/agent.md"), "changed");
    await counter.next();
  });

  it("polls when told to", async () => {
    const counter = changeCounter();
    watcher = await watchTree({ directory: join(tree.root, "bmad"), pollMs: 50, debounceMs: 10, forcePoll: true, onChange: counter.onChange, logger });
    expect(watcher.mode).toBe("poll");
    await counter.next();
    await counter.next();
  });

  it("polls while the folder is missing and watches once it appears", async () => {
    await rm(join(tree.root, "bmad"), { recursive: true });
    const counter = changeCounter();
    watcher = await watchTree({ directory: join(tree.root, "bmad"), pollMs: 50, debounceMs: 10, forcePoll: false, onChange: counter.onChange, logger });
    expect(watcher.mode).toBe("poll");
    await mkdir(join(tree.root, "bmad"));
    await counter.next();
    expect(watcher.mode).toBe("watch");
  });

  it("stops calling after close", async () => {
    const counter = changeCounter();
    watcher = await watchTree({ directory: join(tree.root, "bmad"), pollMs: 50, debounceMs: 10, forcePoll: true, onChange: counter.onChange, logger });
    watcher.close();
    const calls = counter.calls;
    await new Promise((wait) => setTimeout(wait, 150));
    expect(counter.calls).toBe(calls);
  });
});
