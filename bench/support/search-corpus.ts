/**
 * Measure 13's project for `search_files`: 50 MB of text in 2,000 files of 25 KB (Markdown documents with
 * requirement lines, TypeScript sources), every file different, with rare requirement ids planted in a few of
 * them: `FR-0427` on 7 lines of 5 files, and `FR-0437` / `FR-0497` on 4 lines of 3 others. The generated ids
 * run from FR-1001 up and NFR ids have three digits, so nothing else matches the searches.
 */
import { prose, type Prose } from "./generated-prose.js";
import type { ProjectDocument } from "./bmad-project-documents.js";

const corpusFiles = 2_000;
const fileBytes = 25_000;

/** A search as search_files takes it; the pattern is also a valid ripgrep and grep -E pattern of the same meaning. */
export interface SearchQuery {
  name: string;
  pattern: string;
  literal: boolean;
  /** lines that match, as planted */
  expectedHits: number;
}

export const searchQueries: readonly SearchQuery[] = [
  { name: "literal `FR-0427`", pattern: "FR-0427", literal: true, expectedHits: 7 },
  { name: "regex `FR-04[0-9]7\\b`", pattern: "FR-04[0-9]7\\b", literal: false, expectedHits: 11 },
];

// file index → the planted lines' ids
const planted = new Map<number, string[]>([
  [17, ["FR-0427", "FR-0427"]],
  [401, ["FR-0427"]],
  [777, ["FR-0427", "FR-0427"]],
  [1203, ["FR-0427"]],
  [1999, ["FR-0427"]],
  [250, ["FR-0437"]],
  [999, ["FR-0497", "FR-0437"]],
  [1500, ["FR-0497"]],
]);

function markdownLine(words: Prose): string {
  switch (words.below(4)) {
    case 0:
      return `- **FR-${1001 + words.below(8_999)}:** ${words.sentence(10 + words.below(10))}`;
    case 1:
      return `## ${words.sentence(3 + words.below(4))}`;
    default:
      return `${words.sentence(14 + words.below(20))} ${words.sentence(8 + words.below(12))} The NFR-${100 + words.below(900)} budget applies.`;
  }
}

function sourceLine(words: Prose): string {
  switch (words.below(4)) {
    case 0:
      return `export async function ${words.word()}${words.below(1_000)}(${words.word()}: ${words.word()}Request): Promise<void> {`;
    case 1:
      return `  const ${words.word()} = await this.${words.word()}.${words.word()}(${words.word()}, { retries: ${words.below(9)} });`;
    case 2:
      return `  // ${words.sentence(6 + words.below(10))}`;
    default:
      return `}`;
  }
}

function corpusFile(index: number): ProjectDocument {
  const words = prose(100_000 + index);
  const markdown = index % 5 < 3;
  const path = markdown ? `docs/area-${index % 20}/section-${Math.floor(index / 100)}/doc-${index}.md` : `src/pkg-${index % 10}/module-${Math.floor(index / 50)}/file-${index}.ts`;
  const lines: string[] = [];
  let bytes = 0;
  while (bytes < fileBytes) {
    const line = markdown ? markdownLine(words) : sourceLine(words);
    lines.push(line);
    bytes += line.length + 1;
  }
  for (const [position, id] of (planted.get(index) ?? []).entries()) {
    lines.splice(10 + position * 200, 0, markdown ? `- **${id}:** The export keeps every field the audit needs.` : `  // ${id}: the export keeps every field the audit needs`);
  }
  return { path, content: `${lines.join("\n")}\n` };
}

/** The 2,000 files, the same on every run. */
export function searchCorpusDocuments(): ProjectDocument[] {
  return Array.from({ length: corpusFiles }, (_, index) => corpusFile(index));
}
