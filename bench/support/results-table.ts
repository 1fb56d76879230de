import type { MeasureReport } from "./measure-report.js";
import type { Machine, Versions } from "./run-environment.js";

export interface RunResults {
  startedAt: string;
  durationS: number;
  quick: boolean;
  command: string;
  machine: Machine & { loadAverage1mAtEnd: number };
  versions: Versions;
  measures: MeasureReport[];
}

/** The run as Markdown: what it ran on, one table of every measure's lines, then how each was measured. */
export function formatResultsTable(results: RunResults): string {
  const { machine, versions } = results;
  const lines = [
    `Run ${results.startedAt} (${results.durationS} s${results.quick ? ", QUICK MODE: indicative only" : ""}): \`${results.command}\``,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Linux ${machine.kernel}; load average ${machine.loadAverage1m} at start, ${machine.loadAverage1mAtEnd} at end.`,
    `Versions: node ${versions.node}, nats-server ${versions.natsServer}, nats ${versions.nats}, openai ${versions.openai}, @openai/agents ${versions.openaiAgents}; commit ${versions.commit}.`,
    "",
    "| # | measure | baseline | system | result | target | met |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const measure of results.measures) {
    for (const row of measure.rows) {
      const met = row.met === undefined ? "" : row.met ? "yes" : "**no**";
      lines.push(`| ${measure.id} | ${measure.title}: ${row.label} | ${row.baseline} | ${row.system} | ${row.result} | ${row.target ?? ""} | ${met} |`);
    }
  }
  lines.push("");
  for (const measure of results.measures) {
    lines.push(`${measure.id}. **${measure.title}**: ${measure.method}`);
    for (const note of measure.notes) lines.push(`   - ${note}`);
  }
  return lines.join("\n");
}
