import { z } from "zod";
import { ErrorReply } from "../error-code.js";
import { subjectTokenPattern } from "../subjects.js";

/** The two services of git's smart HTTP protocol (docs/repositories.md "Plain git over HTTP"). */
export const GitService = z.enum(["git-upload-pack", "git-receive-pack"]);
export type GitService = z.infer<typeof GitService>;

/** A `Git-Protocol` header as git clients send it (`version=2`), passed to the server's git as GIT_PROTOCOL. */
export const GitProtocolHeader = z.string().max(256).regex(/^[A-Za-z0-9=:.,_-]*$/);

/**
 * A body between the gateway and the tool-runner: in the message itself (base64) when it is small, else the name
 * of an object in the uploads store (docs/uploads.md "How an upload travels"), which the reader removes.
 */
export const GitBody = z.union([
  z.object({ inline: z.base64() }),
  z.object({ staged: z.string().regex(subjectTokenPattern), bytes: z.number().int().nonnegative() }),
]);
export type GitBody = z.infer<typeof GitBody>;

const ProjectId = z.string().regex(subjectTokenPattern);
const ObjectId = z.string().regex(/^[0-9a-f]{40}$/);

/** gateway → tool-runner on `project.git.advertise`: the answer to `GET …/info/refs?service=…`. */
export const GitAdvertiseRequest = z.object({ project_id: ProjectId, service: GitService, protocol: GitProtocolHeader.optional() });

/**
 * gateway → tool-runner on `project.git.upload_pack` and `project.git.receive_pack`: the body of a `POST` (already
 * decompressed). `cut_at` says the gateway stopped reading a push's body at that many bytes (GIT_PUSH_MAX_BYTES):
 * `body` is then only its start, and the push is refused in git's own report.
 */
export const GitRpcRequest = z.object({
  project_id: ProjectId,
  service: GitService,
  protocol: GitProtocolHeader.optional(),
  body: GitBody,
  /** who asks, for the working trees a push moves */
  user: z.string().min(1),
  cut_at: z.number().int().positive().optional(),
});
export type GitRpcRequest = z.infer<typeof GitRpcRequest>;

/** One ref a push asked to move: `old` and `new` as the client sent them (40 zeros: none), and what became of it. */
export const GitRefUpdate = z.object({
  ref: z.string(),
  old: ObjectId,
  new: ObjectId,
  /** `ok`, or git's reason for refusing it (shown to the person as `[remote rejected] … (reason)`) */
  status: z.string(),
});
export type GitRefUpdate = z.infer<typeof GitRefUpdate>;

/** The tool-runner's answer: the response body, and for a push what became of each ref (the gateway's audit record). */
export const GitRpcReply = z.union([z.object({ success: z.literal(true), body: GitBody, updates: z.array(GitRefUpdate).optional() }), ErrorReply]);
export type GitRpcReply = z.infer<typeof GitRpcReply>;
