import type { Subscription } from "nats";
import { AppError, decodeJson } from "@agent-orchestrator/shared/runtime";
import { ProjectChanged, subjects, type RunEvent, type SessionSummary } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";
import { sessionAccess } from "../access/session-access.js";

/** Answers that mean the user may no longer read the chat; any other is a check that could not be made (a timeout). */
const refusals = new Set(["SESSION_NOT_FOUND", "PROJECT_NOT_FOUND", "PROJECT_FORBIDDEN"]);

export interface WatchAccessOptions {
  context: GatewayContext;
  user: string;
  /** the chat as the watch's first check found it */
  session: SessionSummary;
  /** whether the socket's sign-in still holds, if it can end (auth/bearer-sign-in.ts); asked with each check */
  stillSignedIn: () => Promise<boolean>;
  /** called once, when the user has lost access: the watch stops there */
  onLost: () => void;
}

/**
 * Keeps a `watch` to those who may read the chat for as long as it lasts (docs/projects.md "What a project is"):
 * access is checked again when the orchestrator says the chat's project changed (`project.changed.<project>`: a
 * member removed, the project deleted) and before each new turn's first event, so a notice that was lost costs at
 * most the turn already running. A refusal ends the watch with `ended` as its reason; so does a check before a turn
 * that could not be made (the client may watch again), while one after a notice is left to the next turn's.
 */
export class WatchAccess {
  private readonly subscription: Subscription;
  private lost: AppError | undefined;

  constructor(private readonly options: WatchAccessOptions) {
    const { context, session } = options;
    this.subscription = context.connection.subscribe(context.subjectPrefix + subjects.projectChanged(session.project_id), {
      callback: (error, message) => {
        if (error) return context.logger.warn({ err: error }, "project change notices stopped");
        try {
          decodeJson(message.data, ProjectChanged);
        } catch (invalid) {
          return context.logger.error({ err: invalid, subject: message.subject }, "invalid project change notice skipped");
        }
        void this.check(false);
      },
    });
  }

  /** Why the watch ended, once the user lost access. */
  get ended(): AppError | undefined {
    return this.lost;
  }

  /** The events, a new turn's let through only once access has been checked again. */
  async *gate(events: AsyncIterable<RunEvent>): AsyncGenerator<RunEvent> {
    const { session } = this.options;
    let runId = session.status === "running" ? session.run_id : null;
    for await (const event of events) {
      if (event.run_id !== runId) {
        runId = event.run_id;
        if (!(await this.check(true))) return;
      }
      if (this.lost) return;
      yield event;
    }
  }

  /** Stops listening for project changes. */
  close(): void {
    this.subscription.unsubscribe();
  }

  /**
   * Whether the user may still read the chat; if not, the watch ends (onLost). `strict`: a check that could not be
   * made ends it too.
   */
  private async check(strict: boolean): Promise<boolean> {
    const { context, user, session } = this.options;
    let ended: AppError | undefined;
    try {
      if (!(await this.options.stillSignedIn())) ended = new AppError("UNAUTHORIZED", "This watch has ended: its socket's sign-in has ended");
      else await sessionAccess(context, session.id, user);
    } catch (error) {
      if (AppError.is(error) && refusals.has(error.code)) {
        ended = new AppError("SESSION_NOT_FOUND", "This watch has ended: you may no longer read this chat (removed from its project, or the project or chat deleted)");
      } else if (strict) {
        ended = new AppError("SERVICE_UNAVAILABLE", "This watch has ended: whether you may still read this chat could not be checked; watch it again", { cause: error });
      } else {
        context.logger.warn({ err: error, session_id: session.id }, "a watch's access could not be checked; checked again at the next turn");
      }
    }
    if (ended && !this.lost) {
      this.lost = ended;
      this.options.onLost();
    }
    return this.lost === undefined;
  }
}
