import { ErrorCode, McpError, type ListResourcesResult, type ListResourceTemplatesResult, type ReadResourceResult, type Resource } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AppError } from "@agent-orchestrator/shared/runtime";
import {
  BranchFileReply,
  FilesListReply,
  FilesReadReply,
  ProjectListReply,
  subjects,
  subjectTokenPattern,
  type BranchFileListing,
  type FileListing,
  type ProjectView,
} from "@agent-orchestrator/shared/wire";
import { spacePath } from "../files/project-file-path.js";
import { branchFilesPage } from "../files/repository-files.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { projectSpace } from "../access/project-access.js";
import { listInstallResources, readInstallResource } from "./install-resources.js";
import { decodeCursor, encodeCursor } from "./mcp-cursor.js";
import { resourceMimeType } from "./resource-mime-type.js";
import { installResourceTemplate, parseInstallResourceUri, parseProjectResourceUri, projectResourceTemplate, projectResourceUri } from "./resource-uri.js";

/** Resources in one `resources/list` page. */
export const resourcePageSize = 100;
/** Projects whose files one page looks at: a caller in many small projects still gets pages of bounded work. */
const projectsPerPage = 10;
/** The MCP error for a resource that does not exist (the MCP specification, "Resources", "Error Handling"). */
export const resourceNotFoundCode = -32002;

/**
 * Where the next page starts: in project `project`, after the file `after` (files come sorted by path); or in the
 * installed BMAD files, which follow the projects, after the path `after`.
 */
const ResourceCursor = z.union([
  z.object({ project: z.string().regex(subjectTokenPattern), after: z.string().max(1024) }),
  z.object({ install: z.literal(true), after: z.string().max(1024) }),
]);

/**
 * Codes a read answers alike, so a non-member cannot tell a project that exists from one that does not, nor anyone
 * a protected or outside name of the install from a missing file (docs/security.md).
 */
const notFoundCodes: ReadonlySet<string> = new Set([
  "PROJECT_NOT_FOUND",
  "FILE_NOT_FOUND",
  "INVALID_PATH",
  "PROTECTED_PATH",
  "PATH_OUTSIDE_ROOT",
  "SYMLINK_ESCAPE",
  "ACCESS_DENIED",
  "UNRESOLVED_VARIABLE",
  "NOT_A_FILE",
  "NOT_A_REGULAR_FILE",
]);

/**
 * `resources/list` (docs/openai-api.md "Resources"): the own files (in a project with a git repository, its default branch's) of every project the caller is a member
 * of (the orchestrator's project list), project after project, each project's files by path, then the installed
 * BMAD files by path, paged.
 */
export async function listResources(context: GatewayContext, owner: string, cursor: string | undefined): Promise<ListResourcesResult> {
  const position = decodeCursor(cursor, ResourceCursor);
  const resources: Resource[] = [];
  if (position === undefined || "project" in position) {
    const projectsCursor = await listProjectResources(context, owner, position, resources);
    if (projectsCursor !== undefined) return { resources, nextCursor: projectsCursor };
  }
  const room = resourcePageSize - resources.length;
  if (room === 0) return { resources, nextCursor: encodeCursor({ install: true, after: "" }) };
  const page = await listInstallResources(context, position !== undefined && "install" in position ? position.after : "", room);
  resources.push(...page.resources);
  return { resources, ...(page.nextAfter !== undefined ? { nextCursor: encodeCursor({ install: true, after: page.nextAfter }) } : {}) };
}

/** Adds the projects' files to `resources` from `position`; the cursor of the next page when the page ends among them. */
async function listProjectResources(context: GatewayContext, owner: string, position: { project: string; after: string } | undefined, resources: Resource[]): Promise<string | undefined> {
  const { projects } = await callService(context, subjects.projectRequest("list"), { user: owner }, ProjectListReply);
  let index = position ? projects.findIndex((project) => project.id === position.project) : 0;
  if (index < 0) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor: its project is no longer yours to list; list again from the start");
  let after = position?.after ?? "";
  for (let looked = 0; index < projects.length && looked < projectsPerPage && resources.length < resourcePageSize; index++, looked++, after = "") {
    const project = projects[index]!;
    const room = resourcePageSize - resources.length;
    // a project with a git repository shows its default branch's files, a page of them, as the files API does
    const branch = await branchFilesPage(context, project.id, { ...(after === "" ? {} : { after }), limit: room });
    if (branch !== null) {
      resources.push(...branch.files.map((file) => branchResource(project, file)));
      if (branch.next_after !== undefined) return encodeCursor({ project: project.id, after: branch.next_after });
      continue;
    }
    const listing = await callService(context, subjects.files("list"), { space: { kind: "project", id: project.id } }, FilesListReply);
    // the cursor's `after` needs one order whatever the store's: by path, as strings compare
    const files = listing.files.filter((file) => file.path > after).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const kept = files.slice(0, room);
    resources.push(...kept.map((file) => projectResource(project, file)));
    if (kept.length < files.length) return encodeCursor({ project: project.id, after: kept.at(-1)!.path });
  }
  return index < projects.length ? encodeCursor({ project: projects[index]!.id, after: "" }) : undefined;
}

/** `resources/templates/list`: any file of a project by its path, and any installed BMAD file by its path. */
export function listResourceTemplates(): ListResourceTemplatesResult {
  return {
    resourceTemplates: [
      {
        uriTemplate: projectResourceTemplate,
        name: "project-file",
        title: "A project's file",
        description: "A file of a project you are a member of, by its path in the project (as `resources/list` names it), read as text",
      },
      {
        uriTemplate: installResourceTemplate,
        name: "bmad-install-file",
        title: "An installed BMAD file",
        description: "A file of the BMAD install every project shares (`_bmad/…`, skill folders such as `.claude/skills/…`, `.bmad-core/…`), by its path, read-only, as text",
      },
    ],
  };
}

/**
 * `resources/read`: a project file's latest revision as text, with its content type as the files API gives
 * it. The caller's role is checked first, as on `GET /api/projects/:id/files/*path`: a project the caller is
 * not a member of, a missing file and a path that cannot be one are the same "Resource not found". An installed
 * BMAD file is read with `read_file`'s checks, by any caller; a protected name is "Resource not found" too.
 */
export async function readResource(context: GatewayContext, owner: string, uri: string): Promise<ReadResourceResult> {
  const project = parseProjectResourceUri(uri);
  const installed = parseInstallResourceUri(uri);
  try {
    if (project) return await readProjectResource(context, owner, uri, project);
    if (installed) return await readInstallResource(context, uri, installed.path);
  } catch (error) {
    if (AppError.is(error) && notFoundCodes.has(error.code)) throw notFound(uri);
    throw error;
  }
  throw notFound(uri);
}

async function readProjectResource(context: GatewayContext, owner: string, uri: string, target: { projectId: string; path: string }): Promise<ReadResourceResult> {
  const space = await projectSpace(context, owner, target.projectId, "read");
  const path = spacePath(target.path.split("/"));
  // a project with a git repository: the default branch's file, as the files API reads it without `?branch`
  const branch = await callService(context, subjects.repository("read"), { project_id: space.id, path }, BranchFileReply);
  const reply = branch.file ?? (await callService(context, subjects.files("read"), { space, path }, FilesReadReply));
  return { contents: [{ uri, mimeType: resourceMimeType(target.path), text: reply.content ?? "", ...(reply.truncated === true ? { _meta: { truncated: true } } : {}) }] };
}

function projectResource(project: ProjectView, file: FileListing): Resource {
  return {
    uri: projectResourceUri(project.id, file.path),
    name: file.path,
    title: `${project.name}: ${file.path}`,
    mimeType: resourceMimeType(file.path),
    size: file.size,
    annotations: { lastModified: file.updated_at },
  };
}

function branchResource(project: ProjectView, file: BranchFileListing): Resource {
  return { uri: projectResourceUri(project.id, file.path), name: file.path, title: `${project.name}: ${file.path}`, mimeType: resourceMimeType(file.path), size: file.size };
}

const notFound = (uri: string) => new McpError(resourceNotFoundCode, "Resource not found", { uri });
