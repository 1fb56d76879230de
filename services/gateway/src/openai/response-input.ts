import type { OpenAiMessage, ResponseContentPart, ResponseCreateRequest } from "@agent-orchestrator/shared/wire";
import { readClientConversation, type ClientConversation } from "./openai-conversation.js";

/**
 * What a `/v1/responses` request says, read by the same rules as chat completions' messages: its input items
 * are messages (a string is one user message), `input_text` and `output_text` parts are text, `input_file` parts
 * are files of the last user message; `instructions` come first among the client's instructions.
 */
export function readResponseInput(body: Pick<ResponseCreateRequest, "input" | "instructions">): ClientConversation {
  const messages: OpenAiMessage[] =
    typeof body.input === "string"
      ? [{ role: "user", content: body.input }]
      : body.input.map((item) => ({ role: item.role, content: typeof item.content === "string" ? item.content : item.content.map(chatPart) }));
  const conversation = readClientConversation(messages, "input");
  const instructions = [body.instructions ?? "", conversation.instructions].filter((text) => text.trim() !== "").join("\n\n");
  return { ...conversation, instructions };
}

function chatPart(part: ResponseContentPart): Exclude<OpenAiMessage["content"], string | null | undefined>[number] {
  if (part.type === "input_file") return { type: "file", file: { filename: part.filename, file_data: part.file_data, file_id: part.file_id } };
  return { type: "text", text: part.text };
}
