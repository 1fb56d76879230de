import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import { InstalledFileReadReply, InstalledFilesListReply, subjects } from "@agent-orchestrator/shared/wire";
import { spacePath } from "../files/project-file-path.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { resourceMimeType } from "./resource-mime-type.js";
import { installResourceUri } from "./resource-uri.js";

/**
 * The installed BMAD files as resources (docs/openai-api.md "Resources"): the files `{project-root}` shows read-only
 * to every agent, listed and read by the tool-runner (`project.files.installed_*`), which alone reads the install.
 * The install is shared by every project, so any signed-in caller may read it, as every chat's agent may.
 */
export async function listInstallResources(context: GatewayContext, after: string, limit: number): Promise<{ resources: Resource[]; nextAfter?: string }> {
  const reply = await callService(context, subjects.files("installed_list"), { after, limit }, InstalledFilesListReply);
  const resources = reply.files.map((file) => ({
    uri: installResourceUri(file.path),
    name: file.path,
    title: `BMAD install: ${file.path}`,
    mimeType: resourceMimeType(file.path),
    size: file.size,
    annotations: { lastModified: file.updated_at },
  }));
  const last = reply.files.at(-1);
  return { resources, ...(reply.more && last ? { nextAfter: last.path } : {}) };
}

/** One installed file as text; a path that cannot be one (`..`, an empty segment) fails here, before the tool-runner is asked. */
export async function readInstallResource(context: GatewayContext, uri: string, path: string): Promise<ReadResourceResult> {
  const reply = await callService(context, subjects.files("installed_read"), { path: spacePath(path.split("/")) }, InstalledFileReadReply);
  return { contents: [{ uri, mimeType: resourceMimeType(path), text: reply.content, ...(reply.truncated ? { _meta: { truncated: true } } : {}) }] };
}
