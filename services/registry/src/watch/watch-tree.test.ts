import { watch } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { createBmadTree, type BmadTree } from "../testing/bmad-tree.js";
import { changeCounter } from "../testing/change-counter.js";
import { watchTree, type TreeWatcher } from "./watch-tree.js";
import { waitUntil } from "@agent-orchestrator/testing/wait-until";

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
    // the debounce runs on a fake clock, so the burst cannot be split by a slow machine; fs.watch stays real.
    // An independent watcher on the same files shows when their events have reached this process.
    const seen = new Set<string>();
    const witness = watch(join(tree.root, "bmad"), { recursive: true }, (_event, name) => void seen.add(String(name)));
    onTestFinished(() => witness.close());
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => void vi.useRealTimers());
    await tree.write({ "bmad/custom/bundles/x/bundle.yaml": "a: 1\n", "bmad/custom/bundles/x/agent.md": "b" });
    await waitUntil(() => seen.has("custom/bundles/x/bundle.yaml") && seen.has("custom/bundles/x/agent.md"), { message: "the files' events" });
    expect(counter.calls).toBe(0);
    await vi.advanceTimersByTimeAsync(50);
    expect(counter.calls).toBe(1);
    // well past the debounce and the burst deadline, nothing is left to fire: the burst was one call
    await vi.advanceTimersByTimeAsync(5_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(counter.calls).toBe(1);
    await writeFile(join(tree.root, "bmad/custom/bundles/x/agent.md"), "changed");
    await waitUntil(() => vi.getTimerCount() === 1, { message: "the edit's debounce" });
    await vi.advanceTimersByTimeAsync(50);
    expect(counter.calls).toBe(2);
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
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    onTestFinished(() => void vi.useRealTimers());
    watcher = await watchTree({ directory: join(tree.root, "bmad"), pollMs: 50, debounceMs: 10, forcePoll: true, onChange: counter.onChange, logger });
    // open, it calls on every poll of the fake clock; closed, the same stretch of time gives no call
    await vi.advanceTimersByTimeAsync(150);
    expect(counter.calls).toBe(3);
    watcher.close();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(counter.calls).toBe(3);
  });
});
