import { describe, expect, it } from "vitest";
import type { VisibleMessage } from "@agent-orchestrator/shared/wire";
import { conversationEnvelope } from "./conversation-envelope.js";
import { holdsConversation } from "./session-matcher.js";

const user = (content: string): VisibleMessage => ({ role: "user", content });
const assistant = (content: string): VisibleMessage => ({ role: "assistant", content });

describe("holdsConversation", () => {
  const session = [user("hi"), assistant("Hello!"), user("read the config"), assistant("Reading it."), assistant("It says x.")];

  it("recognises a session holding exactly the client's earlier messages", () => {
    const earlier = [user("hi"), assistant("Hello!"), user("read the config"), assistant("Reading it.\n\nIt says x.")];
    expect(holdsConversation(session, { instructions: "", earlier })).toBe(true);
  });

  it("accepts the final text of a turn alone, and ignores whitespace at the ends", () => {
    const earlier = [user(" hi"), assistant("Hello!\n"), user("read the config"), assistant("It says x.")];
    expect(holdsConversation(session, { instructions: "", earlier })).toBe(true);
  });

  it("refuses a session with more or fewer turns, or with an edited message", () => {
    expect(holdsConversation(session, { instructions: "", earlier: [user("hi"), assistant("Hello!")] })).toBe(false);
    const edited = [user("hi"), assistant("Hello there!"), user("read the config"), assistant("It says x.")];
    expect(holdsConversation(session, { instructions: "", earlier: edited })).toBe(false);
    expect(holdsConversation([], { instructions: "", earlier: [user("hi"), assistant("Hello!")] })).toBe(false);
  });

  it("recognises a session whose first message carried the client's instructions and an older transcript", () => {
    const older = [user("one"), assistant("two")];
    const started = [user(conversationEnvelope("Be brief.", older, "three")), assistant("four")];
    expect(holdsConversation(started, { instructions: "Be brief.", earlier: [...older, user("three"), assistant("four")] })).toBe(true);
    expect(holdsConversation(started, { instructions: "Be verbose.", earlier: [...older, user("three"), assistant("four")] })).toBe(false);
  });
});
