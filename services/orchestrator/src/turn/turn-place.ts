import { AppError, retryWhileLeaderless } from "@agent-orchestrator/shared/runtime";
import { roleOf, type ProjectRecord, type RunStartRequest } from "@agent-orchestrator/shared/wire";
import type { SessionStore, StoredSession } from "../sessions/session-store.js";
import { projectOfWriter, writerRole, type MemberProject } from "../projects/project-access.js";
import type { ProjectRepositories } from "../projects/project-repositories.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { SettingsDocuments, SettingsStore } from "../settings/settings-store.js";

/** Where a turn runs: its chat's project, and for a continued chat the session as it was read. */
export interface TurnPlace {
  projectId: string;
  /** the project's name, `project_name` when its owner set none (docs/settings.md); absent for a personal project */
  projectName?: string | undefined;
  /** the project's record as this turn read it, so that nothing of the turn reads it again (its budget) */
  project?: ProjectRecord | undefined;
  stored?: StoredSession;
  /** the branch of the project's repository the chat works on when a person named one (docs/repositories.md) */
  branch?: string | undefined;
  /** the project's and the member's settings documents, read once for BMAD's answers and the approval policies */
  documents?: SettingsDocuments | undefined;
  /** the project has a git repository: its turns are offered `run_command` (docs/commands.md) */
  repository: boolean;
}

/** The stores a place is read from: the settings and the repositories' records are optional, as in TurnDeps. */
export interface PlaceStores {
  sessions: SessionStore;
  projects: ProjectStore;
  settings?: SettingsStore | undefined;
  repositories?: ProjectRepositories | undefined;
}

type KeyedReads = Pick<TurnPlace, "documents" | "repository">;

/**
 * The project a turn runs in, checked before every turn: a new chat goes into the project the request names (its
 * owner's default project when it names none); a continued chat stays in its own, and a request naming another is
 * refused; so with the branch of the project's repository a chat was started on. Either way the chat's owner must still be the project's owner or an editor (a member demoted to viewer
 * runs no more turns: PROJECT_FORBIDDEN; a removed member or a deleted project: PROJECT_NOT_FOUND). A continued
 * chat of another owner answers SESSION_NOT_FOUND, or PROJECT_FORBIDDEN to a member of its project, who can see it
 * but not run its turns.
 *
 * The place is read in one step: the project's record, and alongside it what is keyed by the project (its settings
 * documents and whether it has a repository), started as soon as the project's id is known (before the owner's role
 * in it is checked); a continued chat's project is read while its conversation is.
 */
export async function placeTurn(stores: PlaceStores, request: RunStartRequest): Promise<TurnPlace> {
  const { sessions, projects } = stores;
  const keyed = keyedReads(stores, request.owner);
  if (request.new_session) {
    const projectId = request.project_id ?? (await projects.defaultId(request.owner));
    // the owner's default project is checked as it was made or read, not read again
    const reading = request.project_id === undefined ? projects.defaultFor(request.owner) : projectOfWriter(projects, projectId, request.owner).then(({ record }) => record);
    const reads = keyed(projectId);
    const record = await reading;
    if (request.project_id === undefined) writerRole(record, request.owner);
    return { projectId: record.id, projectName: nameOf(record), project: record, branch: request.branch, ...(await reads) };
  }
  const reads = new Map<string, Promise<MemberProject>>();
  const projectOf = (projectId: string): Promise<MemberProject> => {
    const started = reads.get(projectId);
    if (started) return started;
    void keyed(projectId);
    const reading = projectOfWriter(projects, projectId, request.owner);
    // awaited below once the chat is read; a chat that cannot be read leaves its answer unheard
    reading.catch(() => undefined);
    reads.set(projectId, reading);
    return reading;
  };
  const stored = await retryWhileLeaderless(() =>
    sessions.get(request.session_id, request.owner, (head) => {
      if (head.project_id !== undefined) void projectOf(head.project_id);
    }),
  );
  if (!stored) throw await notTheOwners(stores, request);
  // a chat written by an orchestrator from before projects, not yet moved at a start, goes to the default project
  const projectId = stored.record.project_id ?? (await projects.defaultFor(request.owner)).id;
  if (request.project_id !== undefined && request.project_id !== projectId) {
    throw new AppError("BAD_REQUEST", "This chat belongs to another project; a chat stays in the project it was started in");
  }
  if (request.branch !== undefined && request.branch !== stored.record.branch) {
    throw new AppError("BAD_REQUEST", "A chat stays on the branch it was started on; start a new chat to work on another");
  }
  const { record } = await projectOf(projectId);
  return { projectId, projectName: nameOf(record), project: record, stored, branch: stored.record.branch, ...(await keyed(projectId)) };
}

/**
 * The place of a subagent's turn: its chat's project as its parent names it (a child queued by an orchestrator from
 * before projects reads it from the session's head), the project's name, its settings' default `project_name`, and
 * what is keyed by the project, read alongside.
 */
export async function placeChildTurn(stores: PlaceStores, request: RunStartRequest): Promise<TurnPlace> {
  let projectId = request.project_id;
  if (projectId === undefined) {
    const state = await retryWhileLeaderless(() => stores.sessions.getState(request.session_id, request.owner));
    if (state?.project_id === undefined) throw new AppError("SESSION_NOT_FOUND", "The subagent's chat has no project");
    projectId = state.project_id;
  }
  const reads = keyedReads(stores, request.owner)(projectId);
  const project = await stores.projects.get(projectId);
  return { projectId, projectName: project && !project.record.personal ? project.record.name : undefined, project: project?.record, branch: request.branch, ...(await reads) };
}

/**
 * The reads keyed by a turn's project, each started once, as soon as the project's id is known; unheard when the
 * turn is refused. The project's settings document holds both BMAD's answers and the approval policies: read once
 * for both; run_command is offered only where it can run, in a project with a repository (docs/commands.md).
 */
function keyedReads(stores: PlaceStores, owner: string): (projectId: string) => Promise<KeyedReads> {
  const started = new Map<string, Promise<KeyedReads>>();
  return (projectId) => {
    let reading = started.get(projectId);
    if (!reading) {
      reading = Promise.all([stores.settings?.documents(projectId, owner), stores.repositories?.has(projectId) ?? false]).then(([documents, repository]) => ({ documents, repository }));
      reading.catch(() => undefined);
      started.set(projectId, reading);
    }
    return reading;
  };
}

const nameOf = (record: ProjectRecord): string | undefined => (record.personal ? undefined : record.name);

async function notTheOwners(stores: { sessions: SessionStore; projects: ProjectStore }, request: RunStartRequest): Promise<AppError> {
  const place = await retryWhileLeaderless(() => stores.sessions.locate(request.session_id));
  const project = place && (await stores.projects.get(place.project_id));
  if (project && roleOf(project.record, request.owner) !== undefined) {
    return new AppError("PROJECT_FORBIDDEN", `Only the chat's owner, ${place.owner}, runs its turns; start a chat of your own in this project`);
  }
  return new AppError("SESSION_NOT_FOUND", "Session not found");
}
