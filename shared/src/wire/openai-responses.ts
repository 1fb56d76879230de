import { z } from "zod";
import { maxOpenAiMessages } from "./openai-api.js";
import { maxUserMessageChars } from "./run-messages.js";
import { subjectTokenPattern } from "./subjects.js";
import { Usage } from "./usage.js";

/** A response id: `resp_` and the id of the turn that answered it (a KV key, so no dots). */
export const responseIdPattern = /^resp_[A-Za-z0-9_-]{1,128}$/;
const ResponseId = z.string().regex(responseIdPattern, "not a response id");

const InputText = z.object({ type: z.literal("input_text"), text: z.string().max(maxUserMessageChars) });
/** What an assistant message the client sends back holds: the text of one of our earlier responses. */
const OutputText = z.looseObject({ type: z.literal("output_text"), text: z.string().max(maxUserMessageChars) });

/**
 * A file as the Responses API sends it: the bytes inline (`file_data`, a data URL or plain base64, with its
 * `filename`), or `file_id`, which on this server is the path of a file of the chat's project. The same as a
 * chat-completions file part (openai-api.ts); `file_url` is not fetched, so it is refused.
 */
const ResponseInputFile = z
  .object({
    type: z.literal("input_file"),
    filename: z.string().min(1).max(255).optional(),
    file_data: z.string().min(1).optional(),
    file_id: z.string().min(1).max(1024).optional(),
  })
  .refine((file) => (file.file_data === undefined) !== (file.file_id === undefined), "give file_data or file_id, not both")
  .refine((file) => file.file_data === undefined || file.filename !== undefined, "file_data needs a filename");

const supportedPartTypes = ["input_text", "output_text", "input_file"];

/** One content part; an unsupported type (input_image, input_audio, …) is named before the parts' own schemas run. */
export const ResponseContentPart = z
  .looseObject({ type: z.string() })
  .superRefine((part, context) => {
    if (!supportedPartTypes.includes(part.type)) {
      context.addIssue({ code: "custom", path: ["type"], message: `content parts of type ${JSON.stringify(part.type)} are not supported; send "input_text" and "input_file" parts` });
    }
  })
  .pipe(z.discriminatedUnion("type", [InputText, OutputText, ResponseInputFile]));
export type ResponseContentPart = z.infer<typeof ResponseContentPart>;

const ResponseMessage = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string().max(maxUserMessageChars), z.array(ResponseContentPart).max(100)]),
});

/**
 * One input item. Only messages are run: function calls and their outputs, reasoning and the other item types
 * belong to a client that runs tools itself, and the agent's tools run on this server.
 */
const ResponseInputItem = z
  .looseObject({ type: z.string().optional() })
  .superRefine((item, context) => {
    if (item.type !== undefined && item.type !== "message") {
      context.addIssue({
        code: "custom",
        path: ["type"],
        message: `input items of type ${JSON.stringify(item.type)} are not supported: the agent's tools run on this server; send messages`,
      });
    }
  })
  .pipe(ResponseMessage);

/**
 * The body of `POST /v1/responses` (docs/openai-api.md "Responses"). `model` is an agent. Sampling parameters
 * are accepted and ignored, as on chat completions; what this server cannot honour is refused by name: a
 * request's own tools (the agent's tools are the server's), structured output, and the Conversations API
 * (`previous_response_id` continues a chat). `project_id` is this server's extension, as on chat completions.
 */
export const ResponseCreateRequest = z.looseObject({
  model: z.string().min(1).max(256),
  input: z.union([z.string().min(1).max(maxUserMessageChars), z.array(ResponseInputItem).min(1).max(maxOpenAiMessages)]),
  instructions: z.string().max(maxUserMessageChars).nullish(),
  previous_response_id: ResponseId.nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  tools: z.array(z.unknown()).max(0, "the agent's own tools run on this server; a request may not bring tools").nullish(),
  text: z
    .looseObject({
      format: z.looseObject({ type: z.literal("text", "the agent answers in text; structured output (json_schema, json_object) is not supported") }).optional(),
    })
    .nullish(),
  conversation: z.undefined("conversations are not supported: continue a chat with previous_response_id").nullish(),
  project_id: z.string().regex(subjectTokenPattern).optional(),
});
export type ResponseCreateRequest = z.infer<typeof ResponseCreateRequest>;

/**
 * `incomplete` is never stored: it is how a read shows a response left in progress by a turn that is no longer
 * running (its gateway stopped before the end was stored).
 */
const ResponseStatus = z.enum(["in_progress", "completed", "failed", "cancelled", "incomplete"]);

/**
 * A response as the gateway keeps it in its KV bucket `responses`, under its id: the chat and the turn it
 * was, and what it answered. The chat stays the state (its conversation is in the sessions bucket); this is
 * only the way from a response id back to it, and what `GET /v1/responses/:id` shows. Who may read it is
 * decided by the chat on every read, never by this record.
 */
export const StoredResponse = z.object({
  id: ResponseId,
  session_id: z.string(),
  run_id: z.string(),
  /** the agent */
  model: z.string(),
  project_id: z.string(),
  /** seconds since the epoch */
  created_at: z.number().int().nonnegative(),
  status: ResponseStatus,
  /** the instructions in effect for this turn (null: none); cut when the record would outgrow one KV value */
  instructions: z.string().nullable(),
  /** sha256 of the whole instructions: what a follow-up compares its own with */
  instructions_sha256: z.string().nullable(),
  previous_response_id: ResponseId.nullable(),
  /** the turn's answer; cut (response_truncated) to fit one KV value; the whole is in the chat */
  output_text: z.string(),
  response_truncated: z.boolean(),
  usage: Usage.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type StoredResponse = z.infer<typeof StoredResponse>;
