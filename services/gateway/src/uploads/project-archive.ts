import { Readable } from "node:stream";
import type { Response } from "express";
import { ZipFile } from "yazl";
import { parseJson, type Logger } from "@agent-orchestrator/shared/runtime";
import { FilesListReply, SourceInfoReply, SourceManifest, subjects, type ProjectView } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import type { ContentReader } from "../files/content-reader.js";

/** One file the archive holds: where it goes and which content it is. */
interface ArchivedFile {
  path: string;
  sha256: string;
  size: number;
  mtime: Date;
}

/**
 * Streams the project's own files as a zip laid out as a BMAD project (`_bmad-output/…`, `docs/…`,
 * `inputs/…`), with their latest contents, so a user can drop it into their repository (docs/uploads.md "Export
 * and import"); with `source`, the code snapshot's files too. Installed BMAD files are never in it. Each content
 * is read chunk by chunk while the zip is written, so memory stays flat whatever the project's size. A failure
 * after the first byte cannot change the status any more: the response is cut, and the client sees a broken zip.
 */
export async function projectArchive(context: GatewayContext, contents: ContentReader, response: Response, options: { project: ProjectView; source: boolean }): Promise<void> {
  const { project } = options;
  const space = { kind: "project" as const, id: project.id };
  const listing = await callService(context, subjects.files("list"), { space }, FilesListReply);
  const files: ArchivedFile[] = listing.files.map((file) => ({ path: file.path, sha256: file.sha256, size: file.size, mtime: new Date(file.updated_at) }));
  if (options.source) files.push(...(await snapshotFiles(context, contents, project.id, new Set(files.map((file) => file.path)))));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const zip = new ZipFile();
  for (const file of files) {
    zip.addReadStreamLazy(file.path, { size: file.size, mtime: file.mtime, compress: compressible(file.path) }, (callback) => callback(null, Readable.from(contents.chunks(file.sha256))));
  }
  zip.end();
  response.status(200);
  response.set({ "content-type": "application/zip", "content-disposition": `attachment; filename="${archiveName(project)}.zip"`, "cache-control": "no-store" });
  const logger = response.locals["logger"] as Logger;
  zip.on("error", (error: unknown) => {
    logger.error({ err: error, project_id: project.id }, "project archive cut short");
    response.destroy();
  });
  zip.outputStream.pipe(response);
}

/** The code snapshot's files, but none where the project has its own file (which cannot happen, but a zip must not hold a path twice). */
async function snapshotFiles(context: GatewayContext, contents: ContentReader, projectId: string, own: ReadonlySet<string>): Promise<ArchivedFile[]> {
  const { source } = await callService(context, subjects.files("source_info"), { project_id: projectId }, SourceInfoReply);
  if (!source) return [];
  const parts: Uint8Array[] = [];
  for await (const chunk of contents.chunks(source.manifest)) parts.push(chunk);
  const parsed = parseJson(Buffer.concat(parts).toString("utf8"));
  const manifest = SourceManifest.parse(parsed.ok ? parsed.value : undefined);
  const mtime = new Date(source.uploaded_at);
  return manifest.files.filter((file) => !own.has(file.path)).map((file) => ({ ...file, mtime }));
}

/** Formats that are compressed already: deflating them again costs CPU and saves nothing (stored as they are). */
const compressedFormats = /\.(pdf|docx|xlsx|pptx|odt|zip|gz|tgz|bz2|xz|zst|7z|png|jpe?g|gif|webp|mp[34]|mov|woff2?)$/i;

function compressible(path: string): boolean {
  return !compressedFormats.test(path);
}

/** The download's file name: the project's name in characters every system keeps, else its id. */
export function archiveName(project: ProjectView): string {
  const name = project.name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "").slice(0, 80);
  return name === "" ? project.id : name;
}
