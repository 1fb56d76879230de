import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSandbox, type Sandbox } from "../sandbox/index.js";
import type { FileAuthor, ToolContext } from "@agent-orchestrator/shared/wire";
import type { FileStore } from "../store/file-store.js";
import { openTestFileStore, type TestFileStore } from "./file-store-fixture.js";
import { fixtureLimits } from "./sandbox-fixture.js";

/** A throw-away installed project: small hand-written files in the shape of each BMAD release's layout. */
export interface InstalledProjectFixture {
  base: string;
  /** the project root (BMAD_ROOT) */
  project: string;
  /** a sibling of the project holding `secret` */
  outside: string;
  /** the store of the project's and the chat's own files */
  files: FileStore;
  /** the test store behind `files` */
  store: TestFileStore;
  sandbox: Sandbox;
  /** a context whose bundle is `bundlePath` */
  context(bundlePath?: string): { session_id: string; project_id: string; bundle_path: string };
  /** `context` as a tool call carries it: with the user and the agent */
  toolContext(bundlePath?: string): ToolContext;
  /** the author of what a test writes as the chat of `context` */
  author: FileAuthor;
  cleanup(): Promise<void>;
}

/**
 * Writes `files` (project-relative path → content) plus a default installed project: a 6.x `_bmad/` with `core`
 * and `bmm` (its config names `docs` as project knowledge and the planning folders), skills in `.claude/skills/`,
 * a 4.x `.bmad-core/`, and the project's own files (`src/`, `.env`, `package.json`) that must stay unreadable.
 * `.claude/skills/escape` links to the sibling `outside/`.
 */
export async function createInstalledProjectFixture(files: Readonly<Record<string, string>> = {}): Promise<InstalledProjectFixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-installed-")));
  const project = path.join(base, "P");
  const outside = path.join(base, "outside");
  const defaults: Record<string, string> = {
    "_bmad/core/config.yaml": "user_name: Grace\ncommunication_language: Esperanto\noutput_folder: _bmad-output\n",
    "_bmad/core/tasks/tidy.md": "# Tidy task\n",
    "_bmad/bmm/config.yaml": [
      "project_name: Lighthouse",
      'planning_artifacts: "{project-root}/_bmad-output/plans"',
      'implementation_artifacts: "{project-root}/_bmad-output/build-notes"',
      'project_knowledge: "{project-root}/docs"',
      "",
    ].join("\n"),
    "_bmad/bmm/.env": "TOKEN=1\n",
    "_bmad/bmm/id_rsa": "not a key\n",
    "_bmad/bmm/server.pem": "not a cert\n",
    ".claude/skills/tidy-desk/SKILL.md": "---\nname: tidy-desk\ndescription: Tidies the desk\n---\nTidy {skill-root}.\n",
    ".claude/skills/tidy-desk/references/order.md": "Books first.\n",
    ".bmad-core/tasks/sweep.md": "# Sweep\n",
    ".bmad-core/core-config.yaml": "devLoadAlwaysFiles: []\n",
    "docs/x.md": "project knowledge\n",
    "src/x.ts": "export const x = 1;\n",
    ".env": "SECRET=1\n",
    "package.json": "{}\n",
    "../outside/secret": "TOP SECRET\n",
    ...files,
  };
  for (const [file, content] of Object.entries(defaults)) {
    const target = path.join(project, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await symlink(outside, path.join(project, ".claude/skills/escape"));
  const store = await openTestFileStore();
  const sandbox = await createSandbox({ projectRoot: project, files: store.files, ...fixtureLimits });
  return {
    base,
    project,
    outside,
    files: store.files,
    store,
    sandbox,
    context: (bundlePath = "_bmad/bmm") => ({ session_id: "s1", project_id: "p1", bundle_path: bundlePath }),
    toolContext: (bundlePath = "_bmad/bmm") => ({ session_id: "s1", project_id: "p1", bundle_path: bundlePath, user: "alice", agent_id: "bmm/analyst" }),
    author: { user: "alice", session_id: "s1", agent_id: "bmm/analyst" },
    cleanup: async () => {
      await store.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
