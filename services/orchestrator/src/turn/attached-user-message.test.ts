import { describe, expect, it } from "vitest";
import { modelConversation, storedUserMessage } from "./attached-user-message.js";

const attachments = [{ path: "inputs/brief.pdf", markdown_path: "inputs/brief.pdf.md" }];

describe("a user message with attachments", () => {
  it("is stored as typed with its attachments beside it, and without the field when there are none", () => {
    expect(storedUserMessage({ message: "Read the brief", attachments })).toEqual({ role: "user", content: "Read the brief", attachments });
    expect(storedUserMessage({ message: "hi" })).toEqual({ role: "user", content: "hi" });
    expect(storedUserMessage({ message: "hi", attachments: [] })).toEqual({ role: "user", content: "hi" });
  });

  it("reaches the model as its text followed by the attached paths, the field dropped, on every later turn too", () => {
    const conversation = modelConversation([
      storedUserMessage({ message: "Read the brief", attachments }),
      { role: "assistant", content: "Done." },
      { role: "user", content: "thanks" },
    ]);
    expect(conversation[0]).toEqual({ role: "user", content: expect.stringMatching(/^Read the brief\n\nAttached files .*\n- \{project-root\}\/inputs\/brief\.pdf — as Markdown: \{project-root\}\/inputs\/brief\.pdf\.md$/s) });
    expect(conversation.slice(1)).toEqual([
      { role: "assistant", content: "Done." },
      { role: "user", content: "thanks" },
    ]);
  });

  it("drops a malformed attachments field rather than sending it to the model", () => {
    expect(modelConversation([{ role: "user", content: "hi", attachments: "nonsense" }])).toEqual([{ role: "user", content: "hi" }]);
  });
});
