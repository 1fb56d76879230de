import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSandbox, type Sandbox, type SandboxHooks, type SandboxOptions } from "../sandbox/index.js";
import type { FileAuthor, ToolContext } from "@agent-orchestrator/shared/wire";
import type { FileStore } from "../store/file-store.js";
import type { SpaceQuota } from "../store/space-quota.js";
import { openTestFileStore, type TestFileStore } from "./file-store-fixture.js";

/** A throw-away project for tests; every path is a real folder in a fresh temp dir. */
export interface SandboxFixture {
  /** the temp dir that holds everything */
  base: string;
  /** `W`, the project root (BMAD_ROOT) */
  project: string;
  /** `<W>/bmad/custom/bundles/studio`, the bundle of `context` */
  bundle: string;
  /** a sibling of W holding `secret` */
  outside: string;
  /** the store of the project's and the chat's own files */
  files: FileStore;
  /** the test store behind `files`: its prefix, a second replica on the same buckets */
  store: TestFileStore;
  context: { session_id: string; project_id: string; bundle_path: string };
  /** `context` as a tool call carries it: with the user and the agent */
  toolContext: ToolContext;
  /** the author of what a test writes as the chat of `context` */
  author: FileAuthor;
  sandbox: Sandbox;
  cleanup(): Promise<void>;
}

export { fixtureQuota } from "./file-store-fixture.js";

/** Size limits small enough for tests to cross them cheaply. */
export const fixtureLimits = { readMaxBytes: 4096, writeMaxBytes: 4096, listMaxEntries: 50 };

/**
 * Builds W with a custom bundle, an installed module (`bmad/bmm`), a core folder and a few files, a
 * sibling `outside/secret`, a sibling `W-evil/secret` that shares W's prefix, and a file store of its own.
 */
export async function createSandboxFixture(
  options: {
    hooks?: SandboxHooks;
    limits?: Partial<Pick<SandboxOptions, "readMaxBytes" | "writeMaxBytes" | "listMaxEntries">>;
    quotas?: { project?: SpaceQuota; session?: SpaceQuota };
  } = {},
): Promise<SandboxFixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "ao-sandbox-")));
  const project = path.join(base, "W");
  const bundle = path.join(project, "bmad", "custom", "bundles", "studio");
  const outside = path.join(base, "outside");
  const files: Record<string, string> = {
    [path.join(bundle, "config.yaml")]: "user_name: Ada\n",
    [path.join(bundle, "workflows", "brief", "instructions.md")]: "# Brief\n",
    [path.join(project, "bmad", "core", "tasks", "workflow.md")]: "# Engine\n",
    [path.join(project, "bmad", "bmm", "config.yaml")]: "project_name: Demo\n",
    [path.join(project, "bmad", "cis", "config.yaml")]: "user_name: Cis\n",
    [path.join(project, "README.md")]: "project readme\n",
    [path.join(outside, "secret")]: "TOP SECRET\n",
    [path.join(base, "W-evil", "secret")]: "EVIL SECRET\n",
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  const store = await openTestFileStore(options.quotas);
  const sandbox = await createSandbox({
    projectRoot: project,
    files: store.files,
    ...fixtureLimits,
    ...options.limits,
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  return {
    base,
    project,
    bundle,
    outside,
    files: store.files,
    store,
    context: { session_id: "s1", project_id: "p1", bundle_path: "bmad/custom/bundles/studio" },
    toolContext: { session_id: "s1", project_id: "p1", bundle_path: "bmad/custom/bundles/studio", user: "alice", agent_id: "studio/coach" },
    author: { user: "alice", session_id: "s1", agent_id: "studio/coach" },
    sandbox,
    cleanup: async () => {
      await store.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
