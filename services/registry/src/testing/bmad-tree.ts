import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A throw-away BMAD_ROOT for one test. */
export interface BmadTree {
  root: string;
  /** writes files (paths relative to the root), creating folders */
  write(files: Record<string, string>): Promise<void>;
  remove(path: string): Promise<void>;
  cleanup(): Promise<void>;
}

export async function createBmadTree(): Promise<BmadTree> {
  const root = await mkdtemp(join(tmpdir(), "registry-test-"));
  return {
    root,
    async write(files) {
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(root, path)), { recursive: true });
        await writeFile(join(root, path), content);
      }
    },
    remove: (path) => rm(join(root, path), { recursive: true, force: true }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** A small v6-early agent file. */
export function agentFile(options: { id: string; name: string; title?: string; command?: string }): string {
  const command = options.command ?? "*go";
  return [
    "# Agent",
    "",
    "```xml",
    `<agent id="${options.id}" name="${options.name}" title="${options.title ?? `${options.name} Title`}" icon="🧩">`,
    `  <persona><role>${options.name} role</role><identity>i</identity><communication_style>c</communication_style><principles>p</principles></persona>`,
    "  <critical-actions><i>Load into memory {bundle-root}/config.yaml and set variables</i></critical-actions>",
    `  <cmds><c cmd="*help">Help</c><c cmd="${command}" run-workflow="{bundle-root}/workflows/go/workflow.yaml">Go</c></cmds>`,
    "</agent>",
    "```",
    "",
  ].join("\n");
}

export interface BundleAgentSpec {
  id: string;
  name: string;
  file?: string;
  entry_point?: boolean;
}

/** Files of a multi-agent bundle `bmad/custom/bundles/<folder>` with its bundle.yaml and agent files. */
export function multiAgentBundle(folder: string, agents: BundleAgentSpec[], name = folder): Record<string, string> {
  const files: Record<string, string> = {};
  const entries = agents.map((agent) => {
    const file = agent.file ?? `agents/${agent.id}.md`;
    files[`bmad/custom/bundles/${folder}/${file}`] = agentFile({ id: agent.id, name: agent.name });
    return [`  - id: ${agent.id}`, `    name: ${agent.name}`, `    title: ${agent.name} Title`, `    file: ${file}`, `    entry_point: ${agent.entry_point ?? true}`].join("\n");
  });
  files[`bmad/custom/bundles/${folder}/bundle.yaml`] = [`type: bundle`, `name: ${name}`, `version: 1.0.0`, `description: ${name} bundle`, "agents:", ...entries, ""].join("\n");
  return files;
}

/** Files of a standalone bundle with one agent. */
export function standaloneBundle(folder: string, agent: { id: string; name: string }, name = folder): Record<string, string> {
  return {
    [`bmad/custom/bundles/${folder}/bundle.yaml`]: [
      "type: standalone",
      `name: ${name}`,
      "version: 2.0",
      "description: a standalone bundle",
      "agent:",
      `  id: ${agent.id}`,
      `  name: ${agent.name}`,
      `  title: ${agent.name} Title`,
      "  file: agent.md",
      "",
    ].join("\n"),
    [`bmad/custom/bundles/${folder}/agent.md`]: agentFile(agent),
  };
}
