import type { HelpCatalogueEntry } from "../wire/help-messages.js";
import type { ParseOutcome } from "./parse-outcome.js";
import { cell, parseCsvTable, type CsvRow } from "./csv-table.js";

/**
 * One row of BMAD's help catalogue: a workflow or skill the method offers, its phase, whether the method
 * requires it, what comes before it and what it produces (`after`: skills that should have run first;
 * `agent` and `sequence`: 6.0.x only). The install's own catalogue is what `bmad-help` uses to say what to do
 * next (docs/bmad-releases.md "Help catalogue").
 */
export type HelpEntry = Omit<HelpCatalogueEntry, "agent_id">;

/**
 * Reads a help catalogue (`_bmad/_config/bmad-help.csv`, or a module's `module-help.csv`) of any release that
 * ships one: 6.0.x (`module,phase,name,code,sequence,workflow-file,command,required,agent-name,…`), 6.5
 * (`module,skill,display-name,menu-code,…,phase,after,before,required,output-location,outputs`) and 6.12
 * (`…,phase,preceded-by,followed-by,…`). Rows without a skill or command, and the `_meta` rows, are left out.
 */
export function parseHelpCatalogue(text: string): ParseOutcome<HelpEntry[]> {
  const table = parseCsvTable(text);
  if (!table.ok) return table;
  const entries: HelpEntry[] = [];
  for (const row of table.value) {
    const entry = helpEntry(row);
    if (entry) entries.push(entry);
  }
  return { ok: true, value: entries };
}

function helpEntry(row: CsvRow): HelpEntry | undefined {
  const skill = cell(row, "skill") || cell(row, "command");
  if (skill === "" || skill === "_meta") return undefined;
  const workflow = cell(row, "workflow-file");
  const agent = cell(row, "agent-name");
  const sequence = Number.parseInt(cell(row, "sequence"), 10);
  const after = (cell(row, "preceded-by") || cell(row, "after"))
    .split(/[|;]/)
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return {
    module: cell(row, "module"),
    skill,
    ...(workflow ? { workflow } : {}),
    name: cell(row, "display-name") || cell(row, "name") || skill,
    code: cell(row, "menu-code") || cell(row, "code"),
    description: cell(row, "description"),
    phase: cell(row, "phase"),
    required: cell(row, "required").toLowerCase() === "true",
    after,
    outputLocation: cell(row, "output-location"),
    outputs: cell(row, "outputs"),
    ...(agent ? { agent } : {}),
    ...(Number.isFinite(sequence) ? { sequence } : {}),
  };
}
