/**
 * What a real BMAD install says about itself, read straight from the installer's own files, so the release
 * tests compare the system with the install rather than with a list typed into the test: the agents it ships
 * (4.x agent files, the 6.0–6.3 agent manifest, the 6.3+ `bmad-agent-*` skill folders) and their stable ids.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";

/** The releases and tool targets the suite installs (docs/bmad-releases.md lists what each looks like). */
export const releaseMatrix: ReadonlyArray<{ version: string; tool: string }> = [
  { version: "4.44.3", tool: "claude-code" },
  { version: "4.44.3", tool: "codex" },
  { version: "6.0.4", tool: "claude-code" },
  { version: "6.1.0", tool: "codex" },
  { version: "6.2.0", tool: "claude-code" },
  { version: "6.3.0", tool: "codex" },
  { version: "6.5.0", tool: "claude-code" },
  { version: "6.8.0", tool: "codex" },
  { version: "6.10.0", tool: "claude-code" },
  { version: "6.11.0", tool: "codex" },
  { version: "6.12.0", tool: "claude-code" },
  { version: "6.12.0", tool: "codex" },
];

/** The skill folder a tool target installs into (`--tools claude-code` → `.claude/skills`). */
export function skillFolderOf(tool: string): string {
  return tool === "claude-code" ? ".claude/skills" : ".agents/skills";
}

/** The agent ids an install ships, sorted: `<module>/<name>`, as the install's own files list them. */
export async function shippedAgentIds(root: string, tool: string): Promise<string[]> {
  const v4 = join(root, ".bmad-core", "agents");
  if (existsSync(v4)) {
    return (await readdir(v4)).filter((name) => name.endsWith(".md")).map((name) => `bmm/${name.slice(0, -3)}`).sort();
  }
  const manifest = join(root, "_bmad", "_config", "agent-manifest.csv");
  if (existsSync(manifest)) {
    const rows = parseCsv(await readFile(manifest, "utf8"), { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
    return rows.map((row) => `${row["module"] ?? ""}/${(row["name"] ?? "").replace(/^bmad-agent-/, "")}`).sort();
  }
  const skills = await readdir(join(root, skillFolderOf(tool)));
  return skills.filter((name) => name.startsWith("bmad-agent-")).map((name) => `bmm/${name.slice("bmad-agent-".length)}`).sort();
}
