/** One document of the generated project: its path under `{project-root}` and its text. */
export interface ProjectDocument {
  path: string;
  content: string;
}

/** The folder `list_files` is measured on: BMAD 6's `{planning_artifacts}`. */
export const planningFolder = "_bmad-output/planning-artifacts";

const implementationFolder = "_bmad-output/implementation-artifacts";

// what a BMAD 6 project holds after the analysis, planning, solutioning and a first sprint, with the sizes
// such documents have (a PRD and an architecture run to tens of KB, a story to a few, the status files to less)
const layout: ReadonlyArray<{ path: string; kiB: number }> = [
  { path: `${planningFolder}/product-brief.md`, kiB: 8 },
  { path: `${planningFolder}/prd.md`, kiB: 40 },
  { path: `${planningFolder}/architecture.md`, kiB: 36 },
  { path: `${planningFolder}/ux-design-specification.md`, kiB: 28 },
  { path: `${planningFolder}/epics.md`, kiB: 22 },
  { path: `${planningFolder}/implementation-readiness-report.md`, kiB: 12 },
  { path: `${planningFolder}/brainstorming-session-results.md`, kiB: 6 },
  { path: `${planningFolder}/bmm-workflow-status.yaml`, kiB: 3 },
  { path: `${planningFolder}/research/market-research.md`, kiB: 18 },
  { path: `${planningFolder}/research/technical-research.md`, kiB: 15 },
  { path: `${implementationFolder}/sprint-status.yaml`, kiB: 4 },
  ...Array.from({ length: 16 }, (_, index) => ({
    path: `${implementationFolder}/${Math.floor(index / 4) + 1}-${(index % 4) + 1}-story-${index + 1}.md`,
    kiB: 5 + ((index * 7) % 8),
  })),
  { path: "docs/project-context.md", kiB: 9 },
  { path: "docs/index.md", kiB: 2 },
  { path: "docs/source-tree-analysis.md", kiB: 14 },
];

const words = (
  "the user team story epic acceptance criteria system service api data model event queue store cache " +
  "latency budget release sprint backlog owner review test deploy monitor metric error retry session " +
  "project workflow agent document section requirement constraint risk decision interface schema"
).split(" ");

/** A deterministic stream of words, so every run writes the same bytes. */
function wordSource(seed: number): () => string {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return words[state % words.length] as string;
  };
}

function sentence(next: () => string, length: number): string {
  const text = Array.from({ length }, next).join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Markdown as BMAD's templates shape it: a title, numbered sections, prose, requirement lines and lists. */
function markdown(path: string, bytes: number, seed: number): string {
  const next = wordSource(seed);
  const title = (path.split("/").pop() ?? path).replace(/\.md$/, "");
  let text = `---\nstepsCompleted: [1, 2, 3, 4]\ninputDocuments: ["${planningFolder}/product-brief.md"]\n---\n\n# ${title}\n\n`;
  for (let section = 1; text.length < bytes; section += 1) {
    text += `## ${section}. ${sentence(next, 4)}\n\n${sentence(next, 24)} ${sentence(next, 18)}\n\n`;
    for (let item = 1; item <= 4; item += 1) text += `- **FR${section * 10 + item}:** ${sentence(next, 14)}\n`;
    text += `\n${sentence(next, 30)}\n\n`;
  }
  return text.slice(0, bytes);
}

/** YAML as the status files hold it: one key per story or workflow, with its state. */
function yaml(path: string, bytes: number, seed: number): string {
  const next = wordSource(seed);
  let text = `# generated: 2026-11-25\nproject: bench\ntracking_system: file-system\nstory_location: "{project-root}/${implementationFolder}"\n\ndevelopment_status:\n`;
  for (let entry = 1; text.length < bytes; entry += 1) {
    text += `  ${Math.ceil(entry / 6)}-${entry}-${next()}-${next()}: ${["backlog", "ready-for-dev", "in-progress", "review", "done"][entry % 5]}\n`;
  }
  return text.slice(0, bytes);
}

/** The 30 documents of the benchmark's project (2–40 KiB each; about 350 KiB together). */
export function bmadProjectDocuments(): ProjectDocument[] {
  return layout.map(({ path, kiB }, index) => ({
    path,
    content: (path.endsWith(".yaml") ? yaml : markdown)(path, kiB * 1024, index + 1),
  }));
}
