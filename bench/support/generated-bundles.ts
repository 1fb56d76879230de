import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The bundle folder name of generated bundle `index`. */
export const generatedBundleName = (index: number): string => `bundle-${String(index).padStart(4, "0")}`;

/** The id of a generated bundle's listed agent (its entry point). */
export const generatedEntryAgentId = (index: number): string => `${generatedBundleName(index)}-lead`;

/**
 * Writes bundles `from` … `from + count − 1` under `root/bmad/custom/bundles`: two agents each (one entry
 * point, one helper), with persona, critical actions and a small menu, the shape of a real small bundle.
 */
export async function generateBundles(root: string, count: number, from = 0): Promise<void> {
  for (let index = from; index < from + count; index++) await generateBundle(root, index);
}

async function generateBundle(root: string, index: number): Promise<void> {
  const name = generatedBundleName(index);
  const folder = join(root, "bmad/custom/bundles", name);
  await mkdir(join(folder, "agents"), { recursive: true });
  for (const role of ["lead", "helper"]) {
    await writeFile(
      join(folder, "agents", `${role}.md`),
      `# ${role}\n\n\`\`\`xml\n<agent id="${name}-${role}" name="${role}" title="${role}" icon="🧪">\n` +
        `  <persona><role>r</role><identity>i</identity><communication_style>c</communication_style><principles>p</principles></persona>\n` +
        `  <critical-actions><i>Load into memory {bundle-root}/config.yaml</i><i>Remember {user_name}</i></critical-actions>\n` +
        `  <cmds><c cmd="*help">Help</c><c cmd="*go" run-workflow="{bundle-root}/workflows/go/workflow.yaml">Go</c><c cmd="*exit">Exit</c></cmds>\n</agent>\n\`\`\`\n`,
    );
  }
  // the manifest last: a watcher that sees the bundle sees it complete
  await writeFile(
    join(folder, "bundle.yaml"),
    `type: bundle\nname: ${name}\nversion: 1.0.0\ndescription: generated\nagents:\n` +
      `  - { id: ${name}-lead, name: Lead, title: Lead, file: agents/lead.md, entry_point: true }\n` +
      `  - { id: ${name}-helper, name: Helper, title: Helper, file: agents/helper.md }\n`,
  );
}
