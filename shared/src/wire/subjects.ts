/**
 * Every NATS subject the system uses, in one place. Subjects read general → specific, ids last.
 * Services register their endpoints with the nats.js Services framework, which puts them in a queue group,
 * so adding a replica of a service needs no configuration.
 */

/** Service names as registered with the Services framework (and seen in `$SRV` discovery). */
export const serviceNames = {
  gateway: "gateway",
  orchestrator: "orchestrator",
  toolRunner: "tool-runner",
  registry: "registry",
} as const;
export type ServiceName = (typeof serviceNames)[keyof typeof serviceNames];

export const subjects = {
  /** registry: request/reply */
  registryAgentsList: "registry.agents.list",
  registryAgentsGet: "registry.agents.get",
  /** registry: one agent's activation document (docs/design.md "Activation documents"): structured data plus LLM-ready text */
  registryAgentsActivation: "registry.agents.activation",
  /** registry: one skill's activation document for a model outside this system (docs/design.md "Activation documents") */
  registrySkillsGet: "registry.skills.get",
  /** gateway → registry: the install's help catalogue, with the agent that runs each entry */
  registryHelpGet: "registry.help.get",
  /** registry: every bundle and installed module with its status and warnings */
  registryBundlesList: "registry.bundles.list",
  /** registry: published (not request/reply) after a re-scan that changed agents or bundles */
  registryChanged: "registry.changed",
  /**
   * orchestrator: a turn to run, published by the gateway into the JetStream work-queue stream
   * `RUN_REQUESTS` (message id = run id, so a retried publish is stored once); any orchestrator takes it
   */
  runRequest: (sessionId: string) => `agent.run.request.${sessionId}`,
  runRequestAll: "agent.run.request.>",
  /**
   * orchestrator: a subagent's turn, published by the orchestrator running its parent into the same work
   * queue; one token longer than `runRequest`, so the gateway's permission (`agent.run.request.*`) cannot
   * reach it and the orchestrator's (`agent.run.request.*.*`) cannot queue a user's turn
   */
  runChildRequest: (sessionId: string, parentRunId: string) => `agent.run.request.${sessionId}.${parentRunId}`,
  /** events of one turn; the orchestrator is the only publisher; the `RUN_EVENTS` stream keeps them a while for re-attach */
  runEvents: (sessionId: string, runId: string) => `agent.run.events.${sessionId}.${runId}`,
  /** every turn's events of one session (for watchers) */
  sessionEvents: (sessionId: string) => `agent.run.events.${sessionId}.*`,
  runEventsAll: "agent.run.events.>",
  /**
   * events of a subagent's turn, for the orchestrator running its parent, which relays them on the
   * parent's run; outside `agent.run.events.>`, so session watchers and RUN_EVENTS see them only there
   */
  runChildEvents: (sessionId: string, runId: string) => `agent.run.child.events.${sessionId}.${runId}`,
  /** broadcast to every orchestrator: stop the running turn of this session */
  runCancel: (sessionId: string) => `agent.run.cancel.${sessionId}`,
  runCancelAll: "agent.run.cancel.*",
  /** orchestrator: the caller's sessions, and one session (request/reply) */
  sessionList: "agent.session.list",
  sessionGet: "agent.session.get",
  /** orchestrator: rename, delete and search chats (request/reply) */
  sessionRename: "agent.session.rename",
  sessionDelete: "agent.session.delete",
  sessionSearch: "agent.session.search",
  /** orchestrator: a new chat that opens with its agent's greeting, and the greeting alone (shared/src/wire/greeting-messages.ts) */
  sessionStart: "agent.session.start",
  sessionGreeting: "agent.session.greeting",
  /** orchestrator: compact a chat now (request/reply; shared/src/wire/compaction.ts, docs/models.md "Compaction") */
  sessionCompact: "agent.session.compact",
  /** tool-runner: one subject per tool */
  tool: (toolName: string) => `tool.${toolName}`,
  /**
   * orchestrator: projects and their members (request/reply), `agent.project.<operation>` with the operations
   * of `projectOperations` (shared/src/wire/projects/project-messages.ts)
   */
  projectRequest: (operation: string) => `agent.project.${operation}`,
  projectRequestAll: "agent.project.*",
  /**
   * orchestrator → gateways (published, not request/reply): a project's members changed or it was deleted, so a
   * gateway checks again the access of whoever watches its chats (ProjectChanged; docs/projects.md "What a project is")
   */
  projectChanged: (projectId: string) => `project.changed.${projectId}`,
  /**
   * orchestrator: pending tool calls (docs/approvals.md): a chat's or every one the caller may decide (list), and a
   * member's decision on one (decide); request/reply
   */
  approvalList: "agent.approval.list",
  approvalDecide: "agent.approval.decide",
  approvalRequestAll: "agent.approval.*",
  /** orchestrator: the caller's own spending, today and this month (request/reply; docs/models.md "Cost totals") */
  usageUser: "agent.usage.user",
  /**
   * tool-runner: the files of a project or of a chat's scratch space for the gateway and the orchestrator
   * (list, read, revisions, write, delete, purge), with the same store and checks as the tools; the caller
   * has checked the user's role
   */
  files: (operation: string) => `project.files.${operation}`,
  filesAll: "project.files.*",
  /**
   * tool-runner: a project's git repository for the gateway (docs/repositories.md): `import` (a staged bundle),
   * `clone` (from a remote), `push` (a branch to that remote), `get`, `detach`, a branch's `commits`, a chat's `branch`, `changes` and `discard`, a
   * branch's `files` and one file's `read` for the files API; the caller has checked the user's role
   */
  repository: (operation: string) => `project.repository.${operation}`,
  repositoryAll: "project.repository.*",
  /**
   * tool-runner: git's smart HTTP protocol for the gateway (docs/repositories.md "Plain git over HTTP"):
   * `advertise` (info/refs), `upload_pack` (fetch), `receive_pack` (push); the caller has checked the user's role
   */
  git: (operation: "advertise" | "upload_pack" | "receive_pack") => `project.git.${operation}`,
  /**
   * gateway → gateway (published, not request/reply): an MCP client's answer to an elicitation that a `chat` tool
   * call waits for on some replica (McpElicitationAnswer; docs/openai-api.md "Approvals through elicitation"); `key`
   * is the random part of the elicitation's JSON-RPC id
   */
  mcpElicitationAnswer: (key: string) => `gateway.mcp.elicitation.${key}`,
  /** orchestrator: its model routes without keys or URLs, for the agent list (shared/src/wire/model-routes.ts; docs/models.md) */
  modelRoutes: "agent.models.routes",
  /**
   * the audit log (docs/audit.md): one record per security-relevant act, kept in the `AUDIT` stream; the project
   * (or `_`) and the actor (base64url, or `_`) are subject tokens, so a project's or an actor's records are a
   * subject filter. The gateway publishes every act but an agent's write, which the tool-runner publishes
   */
  audit: (projectToken: string, actorToken: string, action: string) => `audit.${projectToken}.${actorToken}.${action}`,
  auditAll: "audit.>",
} as const;

/**
 * Each service receives replies on its own inbox prefix, so NATS permissions can keep services from
 * reading each other's replies.
 */
export function inboxPrefixFor(service: ServiceName): string {
  return `_INBOX_${service.replace(/-/g, "_")}`;
}

/** Ids that appear as subject tokens or folder names must be plain tokens: no dots, wildcards or separators. */
/**
 * JetStream names. A subject prefix (used by tests that share one server) gives its own set, so
 * `o1.` → `o1_RUN_REQUESTS`.
 */
export function jetStreamNames(subjectPrefix = "") {
  const lead = subjectPrefix.replace(/[^A-Za-z0-9]+/g, "_");
  return {
    runRequests: `${lead}RUN_REQUESTS`,
    runEvents: `${lead}RUN_EVENTS`,
    runRequestsConsumer: "orchestrators",
    sessionsBucket: `${lead}sessions`,
    /** each user's running turns (docs/design.md "Fair shares"): one small key per user, written with compare-and-set */
    turnSlotsBucket: `${lead}turn_slots`,
    /** projects and each user's default project (docs/projects.md "Storage"), written with compare-and-set */
    projectsBucket: `${lead}projects`,
    /** the file index of every project and chat space with its revisions (docs/projects.md "Storage") */
    fileIndexBucket: `${lead}file_index`,
    /** each file's recent revisions, as the KV history (64 values) of one key per file */
    fileRevisionsBucket: `${lead}file_revisions`,
    /** file contents, one object per sha256 */
    fileContentsStore: `${lead}file_contents`,
    /**
     * request bodies on their way in (docs/uploads.md): the gateway streams an upload here under a fresh
     * name, the tool-runner moves it into file_contents; leftovers expire
     */
    fileUploadsStore: `${lead}file_uploads`,
    /** completion records of side-effecting tool calls, for retries that reach another replica */
    toolCallsBucket: `${lead}tool_calls`,
    /**
     * projects' git repositories (docs/repositories.md "Where every byte lives"): records, pack lists, refs and
     * working-tree states, each moved by compare-and-set
     */
    repositoriesBucket: `${lead}repositories`,
    /** the git packs (and their indexes) of every repository, never changed once stored */
    repositoryPacksStore: `${lead}repository_packs`,
    /** a repository's remote credential; only the tool-runner's NATS user may read it */
    repositoryCredentialsBucket: `${lead}repository_credentials`,
    /**
     * what turns spent (docs/models.md "Cost totals"): one key per project and month, one per user, each changed by
     * compare-and-set and counting a turn's delivery once
     */
    spendingBucket: `${lead}spending`,
    /**
     * tool calls waiting for a member's decision (docs/approvals.md): `approval.<session>.<approval>` records, moved by
     * compare-and-set, and `pending.<project>.<session>.<approval>` index keys while they wait
     */
    approvalsBucket: `${lead}approvals`,
    /** the audit log (docs/audit.md), made by the gateway at its start */
    auditStream: `${lead}AUDIT`,
    /** personal API tokens by sha256 and by owner (docs/tokens.md), made and read by the gateway only */
    personalTokensBucket: `${lead}personal_tokens`,
    /** the gateway's OpenID Connect sign-ins (docs/sign-in.md): one key per browser session, the hash of its cookie; expires with the session */
    signInsBucket: `${lead}sign_ins`,
    /** `/v1/responses` (docs/openai-api.md "Responses"): each stored response's chat and turn and what it answered, by response id; made and read by the gateway only */
    responsesBucket: `${lead}responses`,
  };
}

export const subjectTokenPattern = /^[A-Za-z0-9_-]{1,128}$/;
