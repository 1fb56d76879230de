import { AppError } from "@agent-orchestrator/shared/runtime";
import {
  ChatFilesStatReply,
  FilesStatReply,
  FilesUploadReply,
  subjects,
  type AttachedFile,
  type Attachment,
  type ChatRequestBody,
  type FileConversion,
  type FileSpaceRef,
  type ProjectView,
} from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import type { UploadStaging } from "./upload-staging.js";
import { defaultProjectAlias, getProject, requireWriter } from "../access/project-access.js";
import { spacePath } from "../files/project-file-path.js";
import { sessionAccess } from "../access/session-access.js";

/** Where an inline attachment is stored in the chat's project. */
const inputsFolder = "inputs";

/** The prefixes the model sees on paths; a client that copies a path from a chat may send it back. */
const projectRootPrefix = "{project-root}/";
const sessionFolderPrefix = "{session-folder}/";

/**
 * The files a chat message attaches, checked for the project the turn will run in, before the turn is queued:
 * `{path}` must be a file of that project (its own or the code snapshot's), `{name, content_base64}` is uploaded
 * to `inputs/<name>` there first (a new revision when it exists). In a project with a git repository, where
 * `{project-root}` is the chat's working tree (docs/repositories.md "Attachments in a chat"), `{path}` is looked up
 * there as the chat's tools see it, and an inline file goes into the chat's scratch space, `{session-folder}/inputs/<name>`,
 * never into the repository. `{path, folder: "session"}` must be a file of the chat's own scratch space (a large
 * file uploaded there first, `PUT /api/sessions/:id/files/<path>`); a new chat has none yet (SESSION_REQUIRED).
 * Nothing is uploaded when one of the message's attachments is refused. The caller must be allowed to run a turn
 * there, so to write (an editor or the owner). `sessionId` is the chat's id, picked already for a new chat. Returns
 * the attached files with their Markdown forms, in the order given; undefined when there are none.
 */
export async function resolveAttachments(
  context: GatewayContext,
  staging: UploadStaging,
  owner: string,
  body: Pick<ChatRequestBody, "session_id" | "project_id" | "attachments" | "branch">,
  sessionId: string,
): Promise<AttachedFile[] | undefined> {
  const attachments = body.attachments ?? [];
  if (attachments.length === 0) return undefined;
  const paths = attachments.map((attachment, index) => attachmentPath(attachment, index));
  const chat = await chatProject(context, owner, body);
  const { project } = chat;
  requireWriter(project);
  const scratchAt = attachments.flatMap((attachment, index) => ("path" in attachment && attachment.folder === "session" ? [index] : []));
  if (scratchAt.length > 0 && body.session_id === undefined) {
    throw new AppError(
      "SESSION_REQUIRED",
      `attachments.${scratchAt[0] as number}: a new chat has no scratch space yet; start the chat with POST /api/sessions, upload the file with PUT /api/sessions/<id>/files/<path>, then send the message with that session_id`,
    );
  }
  // one question says whether the project has a repository, and where each named file is in the chat's working tree
  const tree = { project_id: project.id, session_id: sessionId, ...(chat.branch === undefined ? {} : { branch: chat.branch }) };
  const inTree = (await callService(context, subjects.repository("stat"), { ...tree, paths }, ChatFilesStatReply)).files;
  const space: FileSpaceRef = inTree === null ? { kind: "project", id: project.id } : { kind: "session", id: sessionId };
  const namedAt = attachments.flatMap((attachment, index) => ("path" in attachment && attachment.folder === undefined ? [index] : []));
  const inlineAt = attachments.flatMap((attachment, index) => ("content_base64" in attachment ? [index] : []));
  const resolved: AttachedFile[] = [];
  if (namedAt.length > 0) {
    const named = namedAt.map((index) => paths[index] as string);
    const listings = inTree === null ? (await callService(context, subjects.files("stat"), { space, paths: named }, FilesStatReply)).files : namedAt.map((index) => inTree[index] ?? null);
    listings.forEach((listing, position) => {
      const path = named[position] as string;
      if (!listing) throw new AppError("FILE_NOT_FOUND", `Attached file not found in this ${inTree === null ? "project" : "chat's working tree"}: ${path}`);
      resolved[namedAt[position] as number] = attachedFile(path, "conversion" in listing ? listing.conversion : undefined);
    });
  }
  if (scratchAt.length > 0) {
    const scratch = scratchAt.map((index) => paths[index] as string);
    const listings = (await callService(context, subjects.files("stat"), { space: { kind: "session", id: sessionId }, paths: scratch }, FilesStatReply)).files;
    listings.forEach((listing, position) => {
      const path = scratch[position] as string;
      if (!listing) throw new AppError("FILE_NOT_FOUND", `Attached file not found in this chat's scratch space: ${path} (GET /api/sessions/:id/files lists it)`);
      resolved[scratchAt[position] as number] = { ...attachedFile(path, listing.conversion), folder: "session" };
    });
  }
  if (inlineAt.length > 0) {
    // every name's verdict before any upload: a refused one leaves the project (or the chat's scratch space) as it was
    await callService(context, subjects.files("stat"), { space, paths: inlineAt.map((index) => paths[index] as string), for_write: true }, FilesStatReply);
    for (const index of inlineAt) {
      const uploaded = await upload(context, staging, space, owner, paths[index] as string, (attachments[index] as { content_base64: string }).content_base64);
      resolved[index] = inTree === null ? uploaded : { ...uploaded, folder: "session" };
    }
  }
  return resolved;
}

/**
 * The project a turn of this chat runs in, with the caller's role, and the branch the chat was started on: a
 * continued chat's own (the caller must be its owner, as the orchestrator checks again), else the named project
 * or the caller's default, and the branch the body names.
 */
async function chatProject(context: GatewayContext, owner: string, body: Pick<ChatRequestBody, "session_id" | "project_id" | "branch">): Promise<{ project: ProjectView; branch: string | undefined }> {
  if (body.session_id === undefined) return { project: await getProject(context, owner, body.project_id ?? defaultProjectAlias), branch: body.branch };
  const session = await sessionAccess(context, body.session_id, owner);
  if (session.owner !== owner) throw new AppError("PROJECT_FORBIDDEN", `Only the chat's owner, ${session.owner}, runs its turns; start a chat of your own in this project`);
  const project = await getProject(context, owner, session.project_id);
  const named = body.project_id === undefined ? undefined : body.project_id === defaultProjectAlias ? (await getProject(context, owner, defaultProjectAlias)).id : body.project_id;
  if (named !== undefined && named !== project.id) throw new AppError("BAD_REQUEST", "This chat belongs to another project; a chat stays in the project it was started in");
  return { project, branch: session.branch };
}

/**
 * The path an attachment names in its space: a `{path}` as given (a leading `{project-root}/`, or with
 * `folder: "session"` `{session-folder}/`, dropped), an inline file under `inputs/`. Paths go through the file
 * routes' check (`..`, absolute paths, control characters are INVALID_PATH); any other path variable is refused
 * too: a path names a file of the chat's project, or of its own scratch space, never another place.
 */
function attachmentPath(attachment: Attachment, index: number): string {
  const given = "path" in attachment ? attachment.path : `${inputsFolder}/${attachment.name}`;
  const prefix = "path" in attachment && attachment.folder === "session" ? sessionFolderPrefix : projectRootPrefix;
  const relative = given.startsWith(prefix) ? given.slice(prefix.length) : given;
  if (/^\{[^/]*\}(\/|$)/.test(relative)) {
    throw new AppError("INVALID_PATH", `attachments.${index}.path: give a path inside the ${prefix === projectRootPrefix ? "project, such as inputs/brief.pdf (only {project-root}/ is understood)" : "chat's scratch space, such as inputs/big.pdf (only {session-folder}/ is understood)"}`);
  }
  try {
    return spacePath(relative.split("/"));
  } catch (error) {
    if (AppError.is(error)) throw new AppError(error.code, `attachments.${index}.path: ${error.message}`);
    throw error;
  }
}

async function upload(context: GatewayContext, staging: UploadStaging, space: FileSpaceRef, user: string, path: string, contentBase64: string): Promise<AttachedFile> {
  const bytes = Buffer.from(contentBase64, "base64");
  const staged = await staging.stage(
    (async function* () {
      yield bytes;
    })(),
    context.config.UPLOAD_MAX_BYTES,
  );
  const reply = await callService(context, subjects.files("upload"), { space, path, staged: staged.name, author: { user } }, FilesUploadReply, {
    timeoutMs: context.config.UPLOAD_TIMEOUT_MS,
  });
  return attachedFile(path, reply.file.conversion, reply.markdown?.path);
}

function attachedFile(path: string, conversion: FileConversion | undefined, markdownPath?: string): AttachedFile {
  const markdown = markdownPath ?? (conversion && "markdown_path" in conversion ? conversion.markdown_path : undefined);
  return markdown === undefined ? { path } : { path, markdown_path: markdown };
}
