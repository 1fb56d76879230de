import { zeroUsage, type Usage } from "@agent-orchestrator/shared/wire";
import type { ModelCaller } from "../loop/model-caller.js";
import { toModelError } from "../loop/model-error.js";
import { withoutSecrets } from "./without-secrets.js";

/** What the writer of a hand-off is told. The agent that goes on reads the note alone, with the workflow's files beside it. */
const instructions = (words: number): string =>
  [
    "You write the hand-off note for an AI agent whose conversation is being shortened to fit its context window.",
    "The agent goes on from your note alone; the workflow's current files and the user's latest messages are given to it beside the note.",
    `Write at most ${words} words, in the language of the conversation, with these parts:`,
    "1. Goal: what the user wants and the workflow or task being run (its skill or workflow name).",
    "2. Where it stands: the step reached (the step file, and the document's stepsCompleted when it says), and what the agent was doing or about to do.",
    "3. Decisions and answers: every answer and decision the user gave, keeping names, numbers and wording; questions already answered must not be asked again.",
    "4. Documents: each file written or changed, by its path, and which sections it already holds.",
    "5. Open: what waits for the user, if anything.",
    "Write only what the conversation says. Never copy a secret (a key, password or token): write [secret] instead. Answer with the note only.",
  ].join("\n");

/** The longest note kept (characters), whatever the model writes. */
const maxNoteChars = 24_000;

/** A hand-off note and the tokens its writing cost. */
export interface HandoffSummary {
  text: string;
  usage: Usage;
}

/**
 * Asks `model` (the turn's own, or the compaction route's) for the hand-off note of `transcript`, with no tools.
 * The note is bounded, stripped of well-known secret shapes (without-secrets.ts), and empty when the model said
 * nothing; a failure is thrown classified as the loop's are.
 */
export async function handoffSummary(model: ModelCaller, transcript: string, words: number, signal: AbortSignal): Promise<HandoffSummary> {
  let text = "";
  let usage = zeroUsage();
  try {
    const stream = model.stream({
      messages: [
        { role: "system", content: instructions(words) },
        { role: "user", content: `The conversation so far:\n\n${transcript}\n\nWrite the hand-off note now.` },
      ],
      tools: [],
      signal,
    });
    for await (const part of stream) {
      if (part.type === "usage") usage = part.usage;
      else if (part.type === "text" && text.length < maxNoteChars) text += part.text;
    }
  } catch (error) {
    throw toModelError(error, { textStreamed: text.length > 0, signal });
  }
  if (signal.aborted) throw toModelError(new Error("aborted"), { textStreamed: false, signal });
  return { text: withoutSecrets(text.slice(0, maxNoteChars).trim()), usage };
}
