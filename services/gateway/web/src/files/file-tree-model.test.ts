import { describe, expect, it } from "vitest";
import type { FileListing } from "@agent-orchestrator/shared/wire";
import { buildFileTree, parentOf, type TreeNode } from "./file-tree-model.js";

const listing = (path: string, readOnly = false): FileListing => ({
  path,
  revision: 1,
  size: 1,
  sha256: "0".repeat(64),
  author: { user: "local" },
  updated_at: "2026-01-01T00:00:00.000Z",
  read_only: readOnly,
});

const outline = (node: TreeNode, depth = 0): string[] => [
  `${"  ".repeat(depth)}${node.name || "/"}${node.kind === "folder" && node.readOnly ? " (read-only)" : ""}`,
  ...(node.kind === "folder" ? node.children.flatMap((child) => outline(child, depth + 1)) : []),
];

describe("buildFileTree", () => {
  it("nests files in folders, folders first, names in natural order", () => {
    const tree = buildFileTree(["notes.md", "inputs/brief.pdf.md", "inputs/brief.pdf", "docs/v10.md", "docs/v2.md", "docs/research/market.md"].map((path) => listing(path)));
    expect(outline(tree)).toEqual(["/", "  docs", "    research", "      market.md", "    v2.md", "    v10.md", "  inputs", "    brief.pdf", "    brief.pdf.md", "  notes.md"]);
  });

  it("marks a folder read-only when every file below it belongs to the code snapshot", () => {
    const tree = buildFileTree([listing("src/index.ts", true), listing("src/lib/a.ts", true), listing("docs/own.md"), listing("docs/snapshot.md", true)]);
    expect(outline(tree)).toEqual(["/", "  docs", "    own.md", "    snapshot.md", "  src (read-only)", "    lib (read-only)", "      a.ts", "    index.ts"]);
  });

  it("takes folder names such as __proto__ as plain names", () => {
    expect(outline(buildFileTree([listing("__proto__/constructor.md")]))).toEqual(["/", "  __proto__", "    constructor.md"]);
  });
});

describe("parentOf", () => {
  it("names the folder above, the root as empty, and nothing above the root", () => {
    expect([parentOf("a/b/c.md"), parentOf("c.md"), parentOf("")]).toEqual(["a/b", "", undefined]);
  });
});
