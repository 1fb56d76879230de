/**
 * Test support: the note of the day the orchestrator adds to every model call (services/orchestrator/src/loop/conversation-note.ts,
 * docs/models.md "Prompt caching"). It ends the conversation's first message when that is the user's, and is a
 * user message of its own only before a conversation that starts with the agent's greeting. Scripted models read
 * what the user typed with `withoutSystemNote`; tests that check where the note is use `endsWithDateNote` and `dateNoteAlone`.
 */

const dateNoteSource = String.raw`\[From the system: today's date is \d{4}-\d{2}-\d{2}\.\]`;
const trailingNote = /\n\n\[From the system: [^\]]*\]$/;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, String.raw`\$&`);

/** `text` as its sender wrote it: without the note the system may have added to its end. */
export const withoutSystemNote = (text: string): string => text.replace(trailingNote, "");

/** Matches the note of the day alone: the message of its own before a conversation that starts with a greeting. */
export const dateNoteAlone = new RegExp(`^${dateNoteSource}$`);

/**
 * Matches `text` exactly as the model is sent it when it opens the conversation: followed by the note of the day.
 * A pattern stands for the whole text before the note, with its flags.
 */
export const endsWithDateNote = (text: string | RegExp): RegExp =>
  typeof text === "string" ? new RegExp(`^${escapeRegExp(text)}\\n\\n${dateNoteSource}$`) : new RegExp(`^(?:${text.source})\\n\\n${dateNoteSource}$`, text.flags);
