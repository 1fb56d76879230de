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

  it("ends the conversation's first user message, so user and assistant still alternate, and leaves the rest as it was", () => {
    const noted = withConversationNote(conversation, dateNote(new Date("2026-11-22T10:00:00Z")));
    expect(noted).toEqual([conversation[0], { role: "user", content: "hello\n\n[From the system: today's date is 2026-11-22.]" }, ...conversation.slice(2)]);
    expect(conversation[1]).toEqual({ role: "user", content: "hello" });
  });

  it("joins a first message of parts as one more text part", () => {
    const parts: ChatCompletionMessageParam[] = [{ role: "system", content: "S" }, { role: "user", content: [{ type: "text", text: "hi" }] }];
    expect(withConversationNote(parts, "N")[1]).toEqual({ role: "user", content: [{ type: "text", text: "hi" }, { type: "text", text: "N" }] });
  });

  it("is a user message of its own before a conversation that starts with the agent's greeting", () => {
    const greeted: ChatCompletionMessageParam[] = [conversation[0]!, { role: "assistant", content: "Hello Ada." }, { role: "user", content: "go on" }];
    expect(withConversationNote(greeted, "N")).toEqual([greeted[0], { role: "user", content: "N" }, ...greeted.slice(1)]);
  });

  it("changes nothing without a note", () => {
    expect(withConversationNote(conversation, undefined)).toEqual(conversation);
  });
});
