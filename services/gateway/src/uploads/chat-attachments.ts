import { AppError } from "@agent-orchestrator/shared/runtime";
import {
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

/** The prefix the model sees on project paths; a client that copies a path from a chat may send it back. */
const projectRootPrefix = "{project-root}/";

/**
 * The files a chat message attaches, checked for the project the turn will run in, before the turn is queued:
 * `{path}` must be a file of that project (its own or the code snapshot's), `{name, content_base64}` is uploaded
 * to `inputs/<name>` there first (a new revision when it exists). Nothing is uploaded when one of the message's
 * attachments is refused. The caller must be allowed to run a turn there, so to write (an editor or the owner).
 * Returns the attached files with their Markdown forms, in the order given; undefined when there are none.
 */
export async function resolveAttachments(
  context: GatewayContext,
  staging: UploadStaging,
  owner: string,
  body: Pick<ChatRequestBody, "session_id" | "project_id" | "attachments">,
): Promise<AttachedFile[] | undefined> {
  const attachments = body.attachments ?? [];
  if (attachments.length === 0) return undefined;
  const paths = attachments.map((attachment, index) => attachmentPath(attachment, index));
  const project = await chatProject(context, owner, body);
  requireWriter(project);
  const space: FileSpaceRef = { kind: "project", id: project.id };
  const inline = attachments.flatMap((attachment, index) => ("content_base64" in attachment ? [{ path: paths[index] as string, content: attachment.content_base64 }] : []));
  const named = paths.filter((_path, index) => "path" in (attachments[index] as Attachment));
  const found = new Map<string, AttachedFile>();
  if (named.length > 0) {
    const { files } = await callService(context, subjects.files("stat"), { space, paths: named }, FilesStatReply);
    files.forEach((listing, index) => {
      const path = named[index] as string;
      if (!listing) throw new AppError("FILE_NOT_FOUND", `Attached file not found in this project: ${path}`);
      found.set(path, attachedFile(path, listing.conversion));
    });
  }
  if (inline.length > 0) {
    // every name's verdict before any upload: a refused one leaves the project as it was
    await callService(context, subjects.files("stat"), { space, paths: inline.map((file) => file.path), for_write: true }, FilesStatReply);
    for (const file of inline) found.set(file.path, await upload(context, staging, space, owner, file.path, file.content));
  }
  return paths.map((path) => found.get(path) as AttachedFile);
}

/**
 * The project a turn of this chat runs in, with the caller's role: a continued chat's own (the caller must be
 * its owner, as the orchestrator checks again), else the named project or the caller's default.
 */
async function chatProject(context: GatewayContext, owner: string, body: Pick<ChatRequestBody, "session_id" | "project_id">): Promise<ProjectView> {
  if (body.session_id === undefined) return getProject(context, owner, body.project_id ?? defaultProjectAlias);
  const session = await sessionAccess(context, body.session_id, owner);
  if (session.owner !== owner) throw new AppError("PROJECT_FORBIDDEN", `Only the chat's owner, ${session.owner}, runs its turns; start a chat of your own in this project`);
  const project = await getProject(context, owner, session.project_id);
  const named = body.project_id === undefined ? undefined : body.project_id === defaultProjectAlias ? (await getProject(context, owner, defaultProjectAlias)).id : body.project_id;
  if (named !== undefined && named !== project.id) throw new AppError("BAD_REQUEST", "This chat belongs to another project; a chat stays in the project it was started in");
  return project;
}

/**
 * The project path an attachment names: a `{path}` as given (a leading `{project-root}/` dropped), an inline
 * file under `inputs/`. Paths go through the file routes' check (`..`, absolute paths, control characters are
 * INVALID_PATH); a path variable other than `{project-root}` is refused too: only the project's files attach.
 */
function attachmentPath(attachment: Attachment, index: number): string {
  const given = "path" in attachment ? attachment.path : `${inputsFolder}/${attachment.name}`;
  const relative = given.startsWith(projectRootPrefix) ? given.slice(projectRootPrefix.length) : given;
  if (/^\{[^/]*\}(\/|$)/.test(relative)) {
    throw new AppError("INVALID_PATH", `attachments.${index}.path: give a path inside the project, such as inputs/brief.pdf (only {project-root}/ is understood)`);
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
