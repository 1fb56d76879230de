import { z } from "zod";
import { maxUserMessageChars } from "./run-messages.js";
import { subjectTokenPattern } from "./subjects.js";

/** Most messages one chat-completions request may carry (a long chat resent in full by a stateless client). */
export const maxOpenAiMessages = 1_000;

/** A text part of a message's content. */
const TextPart = z.object({ type: z.literal("text"), text: z.string().max(maxUserMessageChars) });

/**
 * A file part as OpenAI clients send it: the bytes inline (`file_data`, a data URL such as
 * `data:application/pdf;base64,…` or plain base64, with its `filename`), or `file_id`, which on this server
 * is the path of a file of the chat's project (`inputs/brief.pdf`). Either way it becomes an attachment of the
 * turn (chat-attachment.ts).
 */
export const OpenAiFilePart = z.object({
  type: z.literal("file"),
  file: z
    .object({ filename: z.string().min(1).max(255).optional(), file_data: z.string().min(1).optional(), file_id: z.string().min(1).max(1024).optional() })
    .refine((file) => (file.file_data === undefined) !== (file.file_id === undefined), "give file_data or file_id, not both")
    .refine((file) => file.file_data === undefined || file.filename !== undefined, "file_data needs a filename"),
});
export type OpenAiFilePart = z.infer<typeof OpenAiFilePart>;

const supportedPartTypes = ["text", "file"];

/**
 * One part of a message's content. An unsupported type (image_url, input_audio, …) is named in the error: the
 * check runs before the parts' own schemas so the refusal says which types are supported.
 */
const ContentPart = z
  .looseObject({ type: z.string() })
  .superRefine((part, context) => {
    if (!supportedPartTypes.includes(part.type)) {
      context.addIssue({ code: "custom", path: ["type"], message: `content parts of type ${JSON.stringify(part.type)} are not supported; send "text" and "file" parts` });
    }
  })
  .pipe(z.discriminatedUnion("type", [TextPart, OpenAiFilePart]));

/** Message content: a string, an array of text and file parts, or null (an assistant message with tool calls only). */
const MessageContent = z.union([z.string().max(maxUserMessageChars), z.array(ContentPart).max(100), z.null()]);

/**
 * One message of `POST /v1/chat/completions`, as OpenAI clients send it. Extra fields (`name`, …) are
 * allowed and ignored; `tool_calls` and `tool` messages are recognised so they can be refused clearly
 * (the agent's tools run on the server).
 */
export const OpenAiMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: MessageContent.optional(),
  tool_calls: z.array(z.unknown()).optional(),
});
export type OpenAiMessage = z.infer<typeof OpenAiMessage>;

/**
 * The body of `POST /v1/chat/completions`. Sampling parameters (`temperature`, `max_tokens`, …) and
 * client `tools` are accepted and ignored: the server's model settings and the agent's own tools apply.
 * `session_id` and `project_id` are this server's extensions (the same as the `x-session-id` and `x-project-id` headers).
 */
export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1).max(256),
  messages: z.array(OpenAiMessage).min(1).max(maxOpenAiMessages),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
  /** only one answer can be produced per turn */
  n: z.literal(1).nullish(),
  session_id: z.string().regex(subjectTokenPattern).optional(),
  project_id: z.string().regex(subjectTokenPattern).optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** OpenAI's error body, used by every `/v1` error. */
export const OpenAiErrorBody = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});
export type OpenAiErrorBody = z.infer<typeof OpenAiErrorBody>;
