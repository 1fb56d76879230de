import { encodeJson, decodeJson } from "@agent-orchestrator/shared/runtime";
import {
  GreetingRequest,
  ProjectCreateRequest,
  ProjectDeleteRequest,
  ProjectGetRequest,
  ProjectListRequest,
  ProjectMemberDeleteRequest,
  ProjectMemberPutRequest,
  ProjectMembersRequest,
  ProjectRenameRequest,
  roleOf,
  RunStartRequest,
  SessionDeleteRequest,
  SessionGetRequest,
  SessionListRequest,
  SessionRenameRequest,
  SessionSearchRequest,
  subjects,
  toProjectView,
  zeroUsage,
  type ErrorCode,
  type ProjectChanged,
  type Greeting,
  type ProjectRecord,
  type RunEventBody,
  type SessionSummary,
  type SessionView,
} from "@agent-orchestrator/shared/wire";
import type { GatewayFixture } from "./gateway-fixture.js";

const refuse = (code: ErrorCode, message: string) => ({ success: false, error: { code, message } });
const notFound = () => refuse("PROJECT_NOT_FOUND", "Project not found");

/**
 * The orchestrator's side of projects, chats and turns as the shared schemas define it, in memory: enough
 * of its rules (members, roles, default projects) for the gateway's routes to be tested before and apart
 * from the real one. Every request it receives is kept, as the gateway sent it.
 */
export class FakeOrchestrator {
  readonly projects = new Map<string, ProjectRecord>();
  readonly chats = new Map<string, SessionSummary>();
  /** what a chat's view shows besides its state, by chat id (no messages and no activity when absent) */
  readonly views = new Map<string, Pick<SessionView, "messages" | "workflows" | "files_written">>();
  /** projects with a running turn: deleting them is refused */
  readonly busy = new Set<string>();
  readonly received: { subject: string; request: unknown }[] = [];
  /** what a turn does before it answers (a test's stand-in for its tools) */
  onTurn: (request: RunStartRequest) => void = () => undefined;
  /** what a turn publishes after its `session` event: by default one delta and `done` with the answer "ok" */
  turnEvents: (request: RunStartRequest) => RunEventBody[] = () => [
    { type: "delta", text: "ok" },
    { type: "done", response: "ok", iterations: 1, usage: zeroUsage(), usage_by_call: [zeroUsage()], session_usage: zeroUsage() },
  ];
  /** what both greeting subjects answer */
  greeting: Greeting = { text: "Hello Ada! I'm Tess, your Test Agent.", menu: [{ number: 1, trigger: "*help", description: "Show the menu" }], user_name: "Ada", language: "English" };
  private created = 0;

  constructor(private readonly fixture: GatewayFixture) {}

  static defaultProjectOf = (user: string) => `default-${user}`;

  addProject(id: string, owner: string, members: ProjectRecord["members"] = {}): ProjectRecord {
    const now = new Date().toISOString();
    const record: ProjectRecord = { id, name: id, owner, members, personal: false, created_at: now, updated_at: now };
    this.projects.set(id, record);
    return record;
  }

  addChat(id: string, projectId: string, owner: string, status: SessionSummary["status"] = "idle"): SessionSummary {
    const now = new Date().toISOString();
    const chat: SessionSummary = {
      id,
      agent_id: "a",
      project_id: projectId,
      owner,
      status,
      run_id: status === "running" ? `${id}-run` : null,
      run_started_at: status === "running" ? now : null,
      last_run_id: null,
      turns: 1,
      usage: zeroUsage(),
      title: "hello",
      created_at: now,
      updated_at: now,
    };
    this.chats.set(id, chat);
    return chat;
  }

  /** Subscribes every subject; call it in a `beforeAll` after the fixture's. */
  answer(): void {
    const on = this.on.bind(this);
    on("create", ProjectCreateRequest, ({ user, name }) => {
      const record = this.addProject(`p${++this.created}`, user);
      record.name = name;
      return { success: true, project: toProjectView(record, "owner") };
    });
    on("list", ProjectListRequest, ({ user }) => ({
      success: true,
      projects: [...this.projects.values()].flatMap((record) => {
        const role = roleOf(record, user);
        return role ? [toProjectView(record, role)] : [];
      }),
    }));
    on("get", ProjectGetRequest, ({ user, project_id }) => {
      const id = project_id ?? FakeOrchestrator.defaultProjectOf(user);
      if (project_id === undefined && !this.projects.has(id)) this.addProject(id, user).personal = true;
      return this.asMember(id, user, (record, role) => ({ success: true, project: toProjectView(record, role) }));
    });
    on("rename", ProjectRenameRequest, ({ user, project_id, name }) =>
      this.asOwner(project_id, user, (record) => {
        record.name = name;
        return { success: true, project: toProjectView(record, "owner") };
      }),
    );
    on("delete", ProjectDeleteRequest, ({ user, project_id }) =>
      this.asOwner(project_id, user, () => {
        if (this.busy.has(project_id)) return refuse("PROJECT_BUSY", "A turn is running in this project");
        this.projects.delete(project_id);
        this.announce(project_id, "deleted");
        return { success: true, deleted: { sessions: 0, files: 0 } };
      }),
    );
    on("members", ProjectMembersRequest, ({ user, project_id }) => this.asMember(project_id, user, (record) => this.members(record)));
    on("member_put", ProjectMemberPutRequest, ({ user, project_id, member, role }) =>
      this.asOwner(project_id, user, (record) => {
        record.members[member] = role;
        this.announce(project_id, "members");
        return this.members(record);
      }),
    );
    on("member_delete", ProjectMemberDeleteRequest, ({ user, project_id, member }) =>
      this.asOwner(project_id, user, (record) => {
        delete record.members[member];
        this.announce(project_id, "members");
        return this.members(record);
      }),
    );
    this.fixture.respond(subjects.sessionGet, SessionGetRequest, (request) => {
      this.received.push({ subject: subjects.sessionGet, request });
      const chat = this.chats.get(request.session_id);
      const project = chat && this.projects.get(chat.project_id);
      if (!chat || !project || !roleOf(project, request.user)) return refuse("SESSION_NOT_FOUND", "Session not found");
      const view = this.views.get(chat.id) ?? { messages: [], workflows: [], files_written: [] };
      return { success: true, session: { ...chat, ...view }, next_message_offset: null };
    });
    this.answerChatManagement();
    this.fixture.respond(subjects.sessionList, SessionListRequest, (request) => {
      this.received.push({ subject: subjects.sessionList, request });
      const visible = [...this.chats.values()].filter((chat) => {
        const project = this.projects.get(chat.project_id);
        return project && roleOf(project, request.user) && (request.project_id === undefined || chat.project_id === request.project_id);
      });
      return { success: true, sessions: visible };
    });
    this.answerGreetings();
    this.runTurns();
  }

  /** `agent.session.start` makes an idle chat in the project (its owner or an editor), `agent.session.greeting` answers any member; both with `greeting`. */
  private answerGreetings(): void {
    const projectOf = ({ user, project_id }: GreetingRequest) => {
      const id = project_id ?? FakeOrchestrator.defaultProjectOf(user);
      if (project_id === undefined && !this.projects.has(id)) this.addProject(id, user).personal = true;
      return id;
    };
    this.fixture.respond(subjects.sessionStart, GreetingRequest, (request) => {
      this.received.push({ subject: subjects.sessionStart, request });
      const projectId = projectOf(request);
      return this.asMember(projectId, request.user, (_record, role) => {
        if (role === "viewer") return refuse("PROJECT_FORBIDDEN", "A viewer of this project cannot run turns or write to it");
        const chat = this.addChat(`greeted${++this.created}`, projectId, request.user);
        chat.turns = 0;
        return { success: true, session_id: chat.id, project_id: projectId, greeting: this.greeting };
      });
    });
    this.fixture.respond(subjects.sessionGreeting, GreetingRequest, (request) => {
      this.received.push({ subject: subjects.sessionGreeting, request });
      const projectId = projectOf(request);
      return this.asMember(projectId, request.user, () => ({ success: true, project_id: projectId, greeting: this.greeting }));
    });
  }

  /** Rename and delete (the chat's owner or the project's owner; delete refused while it runs) and search by title. */
  private answerChatManagement(): void {
    const manage = (sessionId: string, user: string, then: (chat: SessionSummary) => unknown) => {
      const chat = this.chats.get(sessionId);
      const project = chat && this.projects.get(chat.project_id);
      if (!chat || !project || !roleOf(project, user)) return refuse("SESSION_NOT_FOUND", "Session not found");
      return chat.owner === user || project.owner === user ? then(chat) : refuse("PROJECT_FORBIDDEN", "Only the chat's owner or the project's owner may do this");
    };
    this.fixture.respond(subjects.sessionRename, SessionRenameRequest, (request) => {
      this.received.push({ subject: subjects.sessionRename, request });
      return manage(request.session_id, request.user, (chat) => {
        chat.title = request.title;
        return { success: true, session: chat };
      });
    });
    this.fixture.respond(subjects.sessionDelete, SessionDeleteRequest, (request) => {
      this.received.push({ subject: subjects.sessionDelete, request });
      return manage(request.session_id, request.user, (chat) => {
        if (chat.status === "running") return refuse("SESSION_BUSY", "This chat is running a turn");
        this.chats.delete(chat.id);
        return { success: true };
      });
    });
    this.fixture.respond(subjects.sessionSearch, SessionSearchRequest, (request) => {
      this.received.push({ subject: subjects.sessionSearch, request });
      return this.asMember(request.project_id, request.user, () => ({
        success: true,
        sessions: [...this.chats.values()]
          .filter((chat) => chat.project_id === request.project_id && chat.title.toLowerCase().includes(request.query.toLowerCase()))
          .map((chat) => ({ ...chat, match: chat.title })),
      }));
    });
  }

  /** Each queued turn is answered at once: `session` (naming the chat's project), then `turnEvents`. */
  private runTurns(): void {
    const { prefix } = this.fixture;
    const connection = this.fixture.connection();
    connection.subscribe(prefix + subjects.runRequestAll, {
      callback: (_error, message) => {
        const request = decodeJson(message.data, RunStartRequest);
        this.received.push({ subject: subjects.runRequest(request.session_id), request });
        const projectId = request.project_id ?? FakeOrchestrator.defaultProjectOf(request.owner);
        this.addChat(request.session_id, projectId, request.owner);
        this.onTurn(request);
        const events: RunEventBody[] = [{ type: "session", agent_id: request.agent_id, project_id: projectId, attempt: 1 }, ...this.turnEvents(request)];
        events.forEach((event, seq) =>
          connection.publish(prefix + subjects.runEvents(request.session_id, request.run_id), encodeJson({ ...event, session_id: request.session_id, run_id: request.run_id, seq })),
        );
      },
    });
  }

  /** `project.changed.<project>`, as the orchestrator publishes it after a member change or a deletion. */
  private announce(projectId: string, change: ProjectChanged["change"]): void {
    const notice: ProjectChanged = { project_id: projectId, change };
    this.fixture.connection().publish(this.fixture.prefix + subjects.projectChanged(projectId), encodeJson(notice));
  }

  /** The requests the gateway sent on `subject`. */
  requests(subject: string): unknown[] {
    return this.received.filter((entry) => entry.subject === subject).map((entry) => entry.request);
  }

  private on<S extends Parameters<GatewayFixture["respond"]>[1]>(operation: string, schema: S, reply: (request: ReturnType<S["parse"]>) => unknown): void {
    const subject = subjects.projectRequest(operation);
    this.fixture.respond(subject, schema, (request) => {
      this.received.push({ subject, request });
      return reply(request as ReturnType<S["parse"]>);
    });
  }

  private asMember(id: string, user: string, then: (record: ProjectRecord, role: NonNullable<ReturnType<typeof roleOf>>) => unknown): unknown {
    const record = this.projects.get(id);
    const role = record && roleOf(record, user);
    return record && role ? then(record, role) : notFound();
  }

  private asOwner(id: string, user: string, then: (record: ProjectRecord) => unknown): unknown {
    return this.asMember(id, user, (record, role) => (role === "owner" ? then(record) : refuse("PROJECT_FORBIDDEN", "Only the owner may do this")));
  }

  private members(record: ProjectRecord) {
    return { success: true, members: [{ user: record.owner, role: "owner" }, ...Object.entries(record.members).map(([user, role]) => ({ user, role }))] };
  }
}
