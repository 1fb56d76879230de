import { truncateMiddle } from "../loop/truncate-middle.js";
import type { HandoffFile, HandoffFiles } from "./handoff-files.js";

/** What a hand-off holds besides the files: the summary, the user's latest messages (oldest first), the changed paths. */
export interface HandoffContent {
  summary: string;
  userMessages: string[];
  files: HandoffFiles;
  /** every file the chat changed, the latest last */
  changedPaths: string[];
}

/** Estimated tokens of a text: four bytes a token, as the rest of the count (loop/context-budget.ts). */
export const textTokens = (text: string): number => Math.ceil(Buffer.byteLength(text, "utf8") / 4);

/** Characters of `text` that make about `tokens` (its bytes a character on average). */
const charsFor = (text: string, tokens: number): number => Math.max(0, Math.floor((tokens * 4 * text.length) / Math.max(1, Buffer.byteLength(text, "utf8"))));

/**
 * The hand-off message (docs/models.md "Compaction"): the summary, the user's latest messages, the workflow's file
 * and its current step file as they are on disk now, and the files the chat changed last, within `budgetTokens`.
 * The step file comes first among the files (it is where the work is), then the workflow's file, then the changed
 * files' contents, newest first; a file cut to fit says so and how to read it whole. The model reads it as the
 * first message of the conversation, after the agent's activation (the system prompt, which is never repeated here).
 */
export function handoffText(content: HandoffContent, budgetTokens: number): string {
  const parts: string[] = [
    "[From the system: this conversation was compacted to fit the model's context window. What came before is summarised below; the files named here are given as they are on disk now. Go on from where the work stands: do not restart the workflow, do not ask again what the user already answered, and keep writing into the same documents.]",
    `## Summary of the conversation so far\n\n${content.summary || "(no summary could be written; the files below show where the work stands)"}`,
  ];
  if (content.userMessages.length > 0) parts.push(`## The user's latest messages, oldest first\n\n${content.userMessages.map((message) => `> ${message.replaceAll("\n", "\n> ")}`).join("\n\n")}`);
  if (content.changedPaths.length > 0) parts.push(`## Files this chat changed, the latest last\n\n${content.changedPaths.map((path) => `- ${path}`).join("\n")}`);
  let left = budgetTokens - textTokens(parts.join("\n\n"));
  const { workflow, step, changed } = content.files;
  const fileParts: Array<{ heading: string; file: HandoffFile; share: number }> = [
    ...(step ? [{ heading: "The current step file", file: step, share: 0.6 }] : []),
    ...(workflow ? [{ heading: workflow.name ? `The workflow being run: the skill ${workflow.name}` : "The workflow being run", file: workflow, share: 0.7 }] : []),
    ...changed.map((file) => ({ heading: "A file this chat changed", file, share: 1 })),
  ];
  for (const { heading, file, share } of fileParts) {
    const head = `## ${heading}: ${file.path}\n\n`;
    const room = Math.floor(left * share) - textTokens(head);
    if (room < 64) continue;
    const text = textTokens(file.text) <= room ? file.text : `${truncateMiddle(file.text, charsFor(file.text, room - 32))}\n[… cut to fit; read_file ${file.path} to read it whole]`;
    parts.push(head + text);
    left -= textTokens(head + text);
  }
  return parts.join("\n\n");
}
