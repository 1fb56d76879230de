import { describe, expect, it } from "vitest";
import { placeLayout } from "./command-place.js";

describe("a place as the sandbox holds it", () => {
  it("binds a plain working tree, .git inside, at /project and nothing else", () => {
    expect(placeLayout({ directory: "/cache/p1/tree" })).toEqual({ folders: [{ host: "/cache/p1/tree", inside: "/project", writable: true }], files: [], environment: {} });
  });

  it("binds a checkout's .git and objects at fixed places and gives git inside its own pointers to them", () => {
    const layout = placeLayout({ directory: "/cache/p1/checkouts/main/tree", gitDirectory: "/cache/p1/checkouts/main/gitdir", objectDirectory: "/cache/p1/objects" });
    expect(layout).toEqual({
      folders: [
        { host: "/cache/p1/checkouts/main/tree", inside: "/project", writable: true },
        { host: "/cache/p1/checkouts/main/gitdir", inside: "/git", writable: true },
        { host: "/cache/p1/objects", inside: "/git-objects", writable: false },
      ],
      files: [
        { inside: "/project/.git", content: "gitdir: /git\n" },
        { inside: "/git/objects/info/alternates", content: "/git-objects\n" },
      ],
      environment: {},
    });
  });

  it("binds a checkout's monitor read-only and its cookie folder writable, and gives git the hook by GIT_CONFIG_* variables", () => {
    const layout = placeLayout({
      directory: "/cache/p1/checkouts/main/tree",
      gitDirectory: "/cache/p1/checkouts/main/gitdir",
      objectDirectory: "/cache/p1/objects",
      monitor: { folder: "/cache/p1/checkouts/main/monitor", cookies: "/cache/p1/checkouts/main/monitor-cookies", untrackedCache: "keep" },
    });
    expect(layout.folders.slice(3)).toEqual([
      { host: "/cache/p1/checkouts/main/monitor", inside: "/fsmonitor", writable: false },
      { host: "/cache/p1/checkouts/main/monitor-cookies", inside: "/fsmonitor-cookies", writable: true },
    ]);
    expect(layout.environment).toEqual({
      GIT_CONFIG_COUNT: "5",
      GIT_CONFIG_KEY_0: "core.fsmonitor",
      GIT_CONFIG_VALUE_0: "/fsmonitor/query",
      GIT_CONFIG_KEY_1: "core.fsmonitorHookVersion",
      GIT_CONFIG_VALUE_1: "2",
      GIT_CONFIG_KEY_2: "core.untrackedCache",
      GIT_CONFIG_VALUE_2: "keep",
      GIT_CONFIG_KEY_3: "core.preloadIndex",
      GIT_CONFIG_VALUE_3: "false",
      GIT_CONFIG_KEY_4: "core.checkStat",
      GIT_CONFIG_VALUE_4: "minimal",
    });
  });
});
