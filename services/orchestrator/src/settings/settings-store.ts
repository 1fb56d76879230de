import type { KV, NatsConnection } from "nats";
import { AppError, decodeJson, encodeJson, firstIssue, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { MemberSettings, ProjectSettings } from "@agent-orchestrator/shared/wire";
import type { z } from "zod";
import { retryOnConflict } from "../nats/compare-and-set.js";

/** A project's settings and one member's. */
export interface SettingsDocuments {
  project: ProjectSettings;
  member: MemberSettings;
}

/** User names may hold characters KV keys do not allow (`@`, spaces, …): the key holds them base64url-encoded. */
const memberKey = (user: string): string => `member_settings.${Buffer.from(user, "utf8").toString("base64url")}`;
const projectKey = (projectId: string): string => `settings.${projectId}`;

/**
 * BMAD's settings documents (docs/settings.md) in the `projects` bucket, beside the records they belong to:
 * `settings.<project>` for a project's, `member_settings.<user, base64url>` for a member's. Any orchestrator replica
 * reads them; a `PUT` replaces the top-level keys it names by compare-and-set, so two owners' writes to different
 * keys both land.
 */
export class SettingsStore {
  private constructor(private readonly kv: KV) {}

  static async open(connection: NatsConnection, bucket: string): Promise<SettingsStore> {
    return new SettingsStore(await connection.jetstream().views.kv(bucket, { history: 1 }));
  }

  project(projectId: string): Promise<ProjectSettings> {
    return this.read(projectKey(projectId), ProjectSettings);
  }

  member(user: string): Promise<MemberSettings> {
    return this.read(memberKey(user), MemberSettings);
  }

  /** The two documents a turn of `user` in `projectId` reads, read at once (turn-settings.ts, approvals/project-approvals.ts). */
  async documents(projectId: string, user: string): Promise<SettingsDocuments> {
    const [project, member] = await Promise.all([this.project(projectId), this.member(user)]);
    return { project, member };
  }

  /** Replaces the top-level keys `change` names; the result is checked again whole (its size bound). */
  putProject(projectId: string, change: ProjectSettings): Promise<ProjectSettings> {
    return this.replaceKeys(projectKey(projectId), ProjectSettings, change);
  }

  putMember(user: string, change: MemberSettings): Promise<MemberSettings> {
    return this.replaceKeys(memberKey(user), MemberSettings, change);
  }

  /** Forgets a deleted project's settings; idempotent. */
  async deleteProject(projectId: string): Promise<void> {
    await retryWhileLeaderless(() => this.kv.purge(projectKey(projectId)));
  }

  private async read<S extends z.ZodType<object>>(key: string, schema: S): Promise<z.infer<S>> {
    const entry = await retryWhileLeaderless(() => this.kv.get(key));
    if (!entry || entry.operation !== "PUT" || entry.length === 0) return {} as z.infer<S>;
    return decodeJson(entry.value, schema);
  }

  private replaceKeys<S extends z.ZodType<object>>(key: string, schema: S, change: z.infer<S>): Promise<z.infer<S>> {
    return retryOnConflict(async () => {
      const entry = await retryWhileLeaderless(() => this.kv.get(key));
      const stored = entry && entry.operation === "PUT" && entry.length > 0 ? decodeJson(entry.value, schema) : {};
      const parsed = schema.safeParse({ ...stored, ...change });
      // each key was checked alone; together they may outgrow the document's bound
      if (!parsed.success) throw new AppError("VALIDATION_ERROR", `Invalid settings: ${firstIssue(parsed.error, "settings")}`);
      const next = parsed.data;
      if (!entry) await retryWhileLeaderless(() => this.kv.create(key, encodeJson(next)));
      else await retryWhileLeaderless(() => this.kv.update(key, encodeJson(next), entry.revision));
      return next;
    });
  }
}
