import { describe, expect, it } from "vitest";
import { readResponseInput } from "./response-input.js";

describe("readResponseInput", () => {
  it("reads a string as the user's message", () => {
    expect(readResponseInput({ input: "hi" })).toEqual({ instructions: "", earlier: [], message: "hi", attachments: [] });
  });

  it("reads messages as chat completions does: instructions first, then system and developer messages; the history; the last user message", () => {
    const conversation = readResponseInput({
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Answer in English." },
        { role: "user", content: [{ type: "input_text", text: "one" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "two" }] },
        { role: "user", content: "three" },
      ],
    });
    expect(conversation).toEqual({
      instructions: "Be brief.\n\nAnswer in English.",
      earlier: [
        { role: "user", content: "one" },
        { role: "assistant", content: "two" },
      ],
      message: "three",
      attachments: [],
    });
  });

  it("attaches the last message's input_file parts as chat completions attaches file parts", () => {
    const conversation = readResponseInput({
      input: [{ role: "user", content: [{ type: "input_text", text: "summarise" }, { type: "input_file", filename: "brief.md", file_data: "data:text/markdown;base64,IyBCcmllZg==" }, { type: "input_file", file_id: "docs/notes.md" }] }],
    });
    expect(conversation.attachments).toEqual([{ name: "brief.md", content_base64: "IyBCcmllZg==" }, { path: "docs/notes.md" }]);
  });

  it("refuses an input that does not end with the user's message, naming input", () => {
    expect(() => readResponseInput({ input: [{ role: "assistant", content: "hello" }] })).toThrow(/^input: the last message must be a non-empty user message/);
  });
});
