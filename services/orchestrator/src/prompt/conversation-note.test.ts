import { describe, expect, it } from "vitest";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { dateNote, withConversationNote } from "./conversation-note.js";

const conversation: ChatCompletionMessageParam[] = [
  { role: "system", content: "You are Mary." },
  { role: "user", content: "hello" },
  { role: "assistant", content: "Hello Ada." },
  { role: "user", content: "go on" },
];

describe("the conversation note", () => {
  it("says today's date as a note from the system", () => {
    expect(dateNote(new Date("2026-11-22T23:59:00Z"))).toBe("[From the system: today's date is 2026-11-22.]");
  });

  it("is a message of its own between the system prompt and the conversation, which are left as they were", () => {
    const noted = withConversationNote(conversation, dateNote(new Date("2026-11-22T10:00:00Z")));
    expect(noted).toEqual([conversation[0], { role: "user", content: "[From the system: today's date is 2026-11-22.]" }, ...conversation.slice(1)]);
    expect(conversation).toHaveLength(4);
  });

  it("changes nothing without a note", () => {
    expect(withConversationNote(conversation, undefined)).toEqual(conversation);
  });
});
