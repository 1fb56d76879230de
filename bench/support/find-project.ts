/**
 * Measure 13's project for `find_files`: 10,000 files in nested folders, as a product repository with BMAD's
 * outputs in it holds them (planning documents, 350 stories, docs, and source files with their tests, 0.3–1.5 KB
 * each), and the globs it is searched with, each with the `find` command that lists the same files.
 */
import { prose } from "./generated-prose.js";
import type { ProjectDocument } from "./bmad-project-documents.js";

export const findProjectFiles = 10_000;

/** A glob as find_files and `rg --files -g` take it, and the `find` arguments (from the root) that list the same files. */
export interface FindQuery {
  glob: string;
  find: string[];
}

export const findQueries: readonly FindQuery[] = [
  { glob: "**/*prd*.md", find: [".", "-type", "f", "-name", "*prd*.md"] },
  // stories folders hold no folders, so `*/stories/*.md` (where * crosses /) lists the same files
  { glob: "**/stories/*.md", find: [".", "-type", "f", "-path", "*/stories/*.md"] },
  { glob: "src/**/*.test.ts", find: ["src", "-type", "f", "-name", "*.test.ts"] },
];

function markdown(path: string, seed: number): string {
  const words = prose(seed);
  let text = `# ${words.sentence(5)}\n\n`;
  const bytes = 300 + words.below(1_200);
  while (text.length < bytes) text += `${words.sentence(12 + words.below(12))}\n\n`;
  return `${text}<!-- ${path} -->\n`;
}

function source(path: string, seed: number): string {
  const words = prose(seed);
  let text = `// ${path}\nimport { ${words.word()}Service } from "../${words.word()}/index.js";\n\n`;
  const bytes = 300 + words.below(1_200);
  for (let line = 1; text.length < bytes; line += 1) {
    text += `export function ${words.word()}${line}(${words.word()}: string): number {\n  return ${words.word()}.length * ${line};\n}\n\n`;
  }
  return text;
}

/** The 10,000 files, the same on every run. */
export function findProjectDocuments(): ProjectDocument[] {
  const paths: string[] = [];
  const planning = "_bmad-output/planning-artifacts";
  paths.push(...["prd.md", "prd-validation-report.md", "product-brief.md", "architecture.md", "epics.md", "ux-design-specification.md"].map((name) => `${planning}/${name}`));
  paths.push(...["market", "domain", "technical", "competitors"].map((topic) => `${planning}/research/${topic}-research.md`));
  for (let epic = 1; epic <= 12; epic += 1) {
    for (let story = 1; story <= 25; story += 1) paths.push(`_bmad-output/implementation-artifacts/stories/${epic}-${story}-story.md`);
  }
  for (const year of [2024, 2025]) {
    paths.push(`docs/archive/${year}/prd-v1.md`, `docs/archive/${year}/prd-v2.md`);
    for (let story = 1; story <= 25; story += 1) paths.push(`docs/archive/${year}/stories/story-${story}.md`);
  }
  const areas = ["guides", "reference", "decisions", "runbooks", "meetings"];
  for (let page = 0; page < 600; page += 1) paths.push(`docs/${areas[page % areas.length]}/topic-${Math.floor(page / 50)}/page-${page}.md`);
  for (let file = 0; paths.length < findProjectFiles; file += 1) {
    const folder = `src/packages/pkg-${file % 16}/src/module-${Math.floor(file / 16) % 24}`;
    paths.push(`${folder}/unit-${file}${file % 3 === 2 ? ".test" : ""}.ts`);
  }
  return paths.map((path, index) => ({ path, content: path.endsWith(".md") ? markdown(path, index + 1) : source(path, index + 1) }));
}
