import { retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import type { KV, NatsConnection } from "nats";

/**
 * Whether a project has a git repository, read from the record the tool-runner keeps in its `repositories`
 * bucket (`repo.<project>`: services/tool-runner/src/repository/repository-values.ts `recordKey`). That record
 * alone decides it for every tool-runner replica, so a turn that reads it offers `run_command` exactly when the
 * tool-runner would run it (docs/commands.md "Offered to the model"). The orchestrator only reads the records
 * (its NATS user may get nothing else of the bucket) and never creates the bucket: until the tool-runner has made
 * it, no project has a repository.
 */
export class ProjectRepositories {
  private bucket: Promise<KV | undefined> | undefined;
  /** the bucket once bound: read without waiting, so a turn's read goes out with the other reads it starts alongside */
  private bound: KV | undefined;

  constructor(
    private readonly connection: NatsConnection,
    private readonly bucketName: string,
  ) {}

  async has(projectId: string): Promise<boolean> {
    const bucket = this.bound ?? (await this.open());
    if (!bucket) return false;
    const entry = await retryWhileLeaderless(() => bucket.get(`repo.${projectId}`));
    return entry?.operation === "PUT";
  }

  private open(): Promise<KV | undefined> {
    this.bucket ??= this.bind().then(
      (bucket) => (this.bound = bucket),
      () => {
        // not made yet (or unreachable): asked again next turn
        this.bucket = undefined;
        return undefined;
      },
    );
    return this.bucket;
  }

  /** Binds to the bucket as it was made (a bound bucket reads by direct get only when told the stream allows it). */
  private async bind(): Promise<KV> {
    const info = await (await this.connection.jetstreamManager()).streams.info(`KV_${this.bucketName}`);
    return this.connection.jetstream().views.kv(this.bucketName, { bindOnly: true, allow_direct: info.config.allow_direct });
  }
}
