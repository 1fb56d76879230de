import type { HelpCatalogueEntry } from "../wire/help-messages.js";
import type { FileListing } from "../wire/projects/file-entry.js";

/** What the overview reads of a project's file: where it is, who wrote it last and when, and whether it is the project's own. */
export type OverviewFile = Pick<FileListing, "path" | "author" | "updated_at" | "read_only" | "converted_from">;
import type { MethodPhase, NextStep, ProjectArtifact, ProjectOverview } from "../wire/projects/project-overview.js";

/** A kind of document the method produces: its phase, and how its file names and catalogue outputs read. */
interface ArtifactKind {
  kind: string;
  label: string;
  phase: MethodPhase;
  /** matched against a file's name, lower case */
  file: RegExp;
  /** matched against a catalogue entry's `outputs` and skill name, lower case */
  output: RegExp;
}

// in the order they are looked for: the first that matches a file or an entry names it
const kinds: readonly ArtifactKind[] = [
  { kind: "brainstorming", label: "Brainstorming", phase: "analysis", file: /brainstorm/, output: /brainstorm/ },
  { kind: "research", label: "Research", phase: "analysis", file: /research/, output: /research/ },
  { kind: "product-brief", label: "Product brief", phase: "analysis", file: /brief|prfaq/, output: /brief|prfaq/ },
  { kind: "prd", label: "PRD", phase: "planning", file: /(^|[-_.])prd([-_.]|$)/, output: /^(updated )?prd$|create-prd$|bmad-prd$/ },
  { kind: "ux-design", label: "UX design", phase: "planning", file: /(^|[-_.])ux([-_.]|$)/, output: /^ux design$|bmad-ux$|create-ux/ },
  { kind: "architecture", label: "Architecture", phase: "solutioning", file: /architecture/, output: /^architecture$|bmad-architecture$|create-architecture/ },
  { kind: "epics", label: "Epics and stories", phase: "solutioning", file: /epic/, output: /epics/ },
  { kind: "sprint-status", label: "Sprint status", phase: "implementation", file: /sprint-status/, output: /sprint status$|sprint-planning$/ },
  { kind: "story", label: "Stories", phase: "implementation", file: /^\d+-\d+-|story/, output: /^story$|create-story$/ },
];

/** The documents that move the method on, in order: the next step is the first one the project lacks. */
const milestones = ["product-brief", "prd", "architecture", "epics", "sprint-status"];

const phases: ReadonlyArray<{ phase: MethodPhase; label: string }> = [
  { phase: "analysis", label: "Analysis" },
  { phase: "planning", label: "Planning" },
  { phase: "solutioning", label: "Solutioning" },
  { phase: "implementation", label: "Implementation" },
];

/**
 * The method at a glance for one project (docs/projects.md "The method at a glance"): BMAD's four phases with
 * the documents the project already has (found by the names BMAD gives them, under `_bmad-output/` and
 * `docs/`, uploads and their Markdown forms left out), who wrote each and when, and the next recommended
 * workflow from the install's help catalogue with the agent that runs it: the one that produces the first of
 * brief → PRD → architecture → epics → sprint status the project lacks, then the implementation step.
 */
export function methodOverview(files: readonly OverviewFile[], catalogue: readonly HelpCatalogueEntry[], catalogueSource: string | null): ProjectOverview {
  const artifacts = files.flatMap((file) => {
    const found = artifactOf(file);
    return found ? [found] : [];
  });
  const present = new Set(artifacts.map((artifact) => artifact.kind));
  const next = nextStep(present, catalogue);
  const current = next?.phase ?? (present.size === 0 ? "analysis" : "implementation");
  const order = phases.map((one) => one.phase);
  return {
    phases: phases.map(({ phase, label }) => ({
      phase,
      label,
      artifacts: artifacts.filter((artifact) => artifact.phase === phase).sort((a, b) => b.updated_at.localeCompare(a.updated_at)),
      done: order.indexOf(phase) < order.indexOf(current),
    })),
    current,
    next,
    catalogue: catalogueSource,
  };
}

function artifactOf(file: OverviewFile): ProjectArtifact | undefined {
  if (file.read_only || file.converted_from !== undefined) return undefined;
  if (!/^(_bmad-output|docs)\//.test(file.path) || !/\.(md|ya?ml)$/i.test(file.path)) return undefined;
  const name = (file.path.split("/").at(-1) ?? "").toLowerCase();
  const kind = kinds.find((one) => one.file.test(name));
  if (!kind) return undefined;
  return { kind: kind.kind, label: kind.label, phase: kind.phase, path: file.path, author: file.author, updated_at: file.updated_at };
}

function nextStep(present: ReadonlySet<string>, catalogue: readonly HelpCatalogueEntry[]): NextStep | null {
  const missing = milestones.find((kind) => !present.has(kind));
  if (missing !== undefined) {
    const kind = kinds.find((one) => one.kind === missing) as ArtifactKind;
    const entry = producerOf(kind, catalogue);
    if (!entry) return null;
    return step(entry, kind.phase, present.size === 0 ? `The project has no ${kind.label.toLowerCase()} yet: the method starts here.` : `Next in the method: the project has no ${kind.label.toLowerCase()} yet.`);
  }
  const build = catalogue.find((entry) => /dev-story|bmad-build$|bmad-dev$/.test(entry.skill));
  return build ? step(build, "implementation", "Every planning document is there: build the next story.") : null;
}

/** The catalogue entry that produces `kind`: required ones first, then the earliest in the catalogue. */
function producerOf(kind: ArtifactKind, catalogue: readonly HelpCatalogueEntry[]): HelpCatalogueEntry | undefined {
  const producers = catalogue.filter((entry) => !/valid|edit|review|check/.test(entry.skill) && (kind.output.test(entry.outputs.toLowerCase()) || kind.output.test(entry.skill.toLowerCase())));
  return producers.find((entry) => entry.required && entry.agent_id !== undefined) ?? producers.find((entry) => entry.agent_id !== undefined) ?? producers[0];
}

function step(entry: HelpCatalogueEntry, phase: MethodPhase, reason: string): NextStep {
  return { phase, skill: entry.skill, name: entry.name, code: entry.code, description: entry.description, ...(entry.agent_id ? { agent_id: entry.agent_id } : {}), reason };
}
