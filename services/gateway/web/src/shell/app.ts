import type { AgentSummary, NextStep } from "@agent-orchestrator/shared/wire";
import { agentPicker } from "../agents/agent-picker.js";
import { toApiError } from "../api/api-error.js";
import { approvalApi } from "../approvals/approval-api.js";
import { ApprovalsBadge } from "../approvals/approvals-badge.js";
import { AssistantMessage } from "../chat/assistant-message.js";
import { attachmentChips } from "../chat/attachment-chips.js";
import { ChatActions } from "../chat/chat-actions.js";
import { ChatApprovals, type OpenEvents } from "../chat/chat-approvals.js";
import { greetNewChat } from "../chat/chat-greeting.js";
import { ChatView } from "../chat/chat-view.js";
import { compactionLine } from "../chat/compaction-line.js";
import { Composer } from "../chat/composer.js";
import { ComposerAttachments } from "../chat/composer-attachments.js";
import { byId, h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { FileViewer } from "../chat/file-viewer.js";
import { formatHashRoute, parseHashRoute } from "../lib/hash-route.js";
import { pendingMessage } from "../chat/pending-message.js";
import { projectChoice } from "../projects/project-choice.js";
import { BranchHistory } from "../repository/branch-history.js";
import { branchChoices } from "../repository/branch-choices.js";
import { ChatChangesButton } from "../repository/chat-changes.js";
import { ProjectFilesView } from "../files/project-files-view.js";
import { ProjectOverviewView } from "../projects/project-overview-view.js";
import { ProjectPanel } from "../projects/project-panel.js";
import { SessionList } from "../chat-list/session-list.js";
import { SidebarDrawer } from "./sidebar-drawer.js";
import { showToast } from "../ui/toasts.js";
import { TurnRunner, type TurnHooks } from "../chat/turn-runner.js";
import { workflowMessage } from "../chat/workflow-message.js";
import { pageApi, pageLive, pageTokens } from "../api/page-api.js";

/** The open chat: its agent, its project, and its session once the first turn (or the URL) has named one. */
interface ChatState {
  agentId: string;
  projectId: string;
  sessionId?: string;
  /** the caller is a viewer of the chat's project: no message box */
  readOnly: boolean;
}

/** A workflow the overview started: the new chat sends this first message as soon as it is open. */
interface WorkflowStart {
  agentId: string;
  projectId: string;
  message: string;
}

/** The page: routes from the URL fragment to the picker or a chat, and runs turns against the gateway. */
export class App {
  private readonly tokens = pageTokens;
  private readonly api = pageApi;
  private readonly sessionList = new SessionList();
  private readonly drawer = new SidebarDrawer();
  private readonly files = new FileViewer(this.api, (open) => {
    byId("files-button").setAttribute("aria-expanded", String(open));
    // a wide screen shows the files beside the chat instead of over it
    byId("app").classList.toggle("files-open", open);
  });
  private readonly projects = new ProjectPanel(this.api, () => this.projectChanged());
  private readonly projectFiles = new ProjectFilesView(
    this.api,
    (projectId) => this.projects.find(projectId),
    (projectId) => branchChoices(projectId, (sessionId) => this.sessionList.titleOf(sessionId)),
  );
  /** a project's repository: its branches' commits (files view), a chat's changes (chat header) */
  private readonly branchHistory = new BranchHistory();
  private readonly chatChanges = new ChatChangesButton();
  private readonly overview = new ProjectOverviewView(this.api, {
    findProject: (projectId) => this.projects.find(projectId),
    agent: (agentId) => this.agentsById.get(agentId),
    start: (projectId, step) => void this.startWorkflow(projectId, step),
  });
  private readonly chatActions = new ChatActions(
    this.api,
    () => {
      const state = this.chatState;
      return state?.sessionId ? { sessionId: state.sessionId, projectId: state.projectId, title: this.sessionList.titleOf(state.sessionId) } : undefined;
    },
    () => this.refreshSessions(),
  );
  private readonly attachments = new ComposerAttachments(
    this.api,
    () => this.chatState && { projectId: this.chatState.projectId, sessionId: this.chatState.sessionId },
    (path) => this.openFile(path),
  );
  private readonly chat = new ChatView((relativePath) => this.openFile(relativePath));
  private readonly composer = new Composer({ send: (text) => void this.send(text), stop: () => this.turns.stop() });
  private readonly turns = new TurnRunner(this.api, this.composer);
  private readonly approvalsBadge = new ApprovalsBadge(approvalApi, async (projectId) => (await this.projects.find(projectId))?.name);
  private readonly approvals = new ChatApprovals({
    api: this.api,
    approvals: approvalApi,
    live: pageLive,
    newMessage: () => this.chat.addAssistantMessage(this.chatState ? this.agentsById.get(this.chatState.agentId) : undefined),
    resumed: (message, open) => void this.followResumed(message, open),
    changed: () => this.approvalsBadge.refresh(),
  });
  private readonly pickerView = byId<HTMLElement>("picker-view");
  private readonly agentGroups = byId<HTMLElement>("agent-groups");
  private readonly filter = byId<HTMLInputElement>("agent-filter");
  private agents: AgentSummary[] = [];
  private agentsById = new Map<string, AgentSummary>();
  private agentsLoaded: Promise<void> = Promise.resolve();
  private chatState: ChatState | undefined;
  private workflowStart: WorkflowStart | undefined;
  /** bumped on every navigation, so answers for a page the user has left are dropped */
  private generation = 0;

  start(): void {
    window.addEventListener("hashchange", () => void this.route());
    this.filter.addEventListener("input", () => this.renderPicker());
    byId("files-button").addEventListener("click", () => {
      if (this.chatState?.sessionId) void this.files.open(this.chatState.sessionId);
    });
    byId("refresh-sessions").addEventListener("click", () => void this.refreshSessions());
    const filesLink = byId<HTMLAnchorElement>("project-files-link");
    const pointFilesLink = (projectId: string): void => void (filesLink.href = formatHashRoute({ view: "files", projectId }));
    pointFilesLink(projectChoice.get());
    projectChoice.onChange(pointFilesLink);
    // the sidebar lists the chats of the current project
    projectChoice.onChange(() => void this.refreshSessions());
    void this.projects.reload();
    this.approvalsBadge.start();
    const forget = byId<HTMLButtonElement>("forget-token");
    forget.hidden = this.tokens.get() === undefined;
    forget.addEventListener("click", () => {
      this.tokens.clear();
      location.reload();
    });
    this.agentsLoaded = this.loadAgents();
    void this.agentsLoaded.then(() => this.refreshSessions());
    void this.route();
  }

  private async loadAgents(): Promise<void> {
    this.agentGroups.replaceChildren(h("p", { class: "muted" }, "Loading agents…"));
    try {
      this.agents = await this.api.listAgents();
      this.agentsById = new Map(this.agents.map((agent) => [agent.id, agent]));
      this.renderPicker();
    } catch (error) {
      const retry = h("button", { type: "button", class: "button", onclick: () => void (this.agentsLoaded = this.loadAgents()) }, "Try again");
      this.agentGroups.replaceChildren(errorCallout(toApiError(error), retry));
    }
    byId<HTMLButtonElement>("forget-token").hidden = this.tokens.get() === undefined;
  }

  private renderPicker(): void {
    this.agentGroups.replaceChildren(agentPicker(this.agents, this.filter.value));
  }

  private async route(): Promise<void> {
    const generation = ++this.generation;
    const route = parseHashRoute(location.hash);
    this.turns.leave();
    this.approvals.close();
    this.files.close();
    this.drawer.close();
    this.chatChanges.show(undefined);
    // the chat that was open is gone: its Rename and Delete would act on nothing until the next one is shown
    this.chatState = undefined;
    this.showChatActions();
    await this.agentsLoaded;
    if (generation !== this.generation) return;
    this.pickerView.hidden = route.view !== "picker";
    this.chat.section.hidden = route.view !== "agent" && route.view !== "session";
    if (route.view === "files") byId("project-files-link").setAttribute("aria-current", "page");
    else byId("project-files-link").removeAttribute("aria-current");
    if (route.view === "project") byId("project-overview-link").setAttribute("aria-current", "page");
    else byId("project-overview-link").removeAttribute("aria-current");
    if (route.view !== "files") this.projectFiles.hide();
    if (route.view !== "project") this.overview.hide();
    if (route.view === "files" || route.view === "project") {
      this.sessionList.setCurrent(undefined);
      if (route.view === "files") await Promise.all([this.projectFiles.show(route.projectId, route.path, route.branch), this.branchHistory.show(route.projectId)]);
      else await this.overview.show(route.projectId);
      return;
    }
    if (route.view === "picker") {
      this.sessionList.setCurrent(undefined);
      document.title = "Agent Orchestrator";
      return;
    }
    // a message written before the chat is shown would have no chat to go to: showChat enables the box
    this.composer.setDisabled(true);
    if (route.view === "agent") await this.newChat(route.agentId, generation);
    else await this.openSession(route.sessionId, generation);
  }

  private async newChat(agentId: string, generation: number): Promise<void> {
    const agent = this.agentsById.get(agentId);
    const projectId = projectChoice.get();
    const project = await this.projects.find(projectId);
    if (generation !== this.generation) return;
    this.showChat({ agentId, projectId, readOnly: project?.role === "viewer" }, agent);
    if (!agent) {
      this.chat.append(errorCallout({ code: "AGENT_NOT_FOUND", message: `No agent “${agentId}” is installed.` }, this.pickerLink()));
      return;
    }
    const start = this.workflowStart;
    this.workflowStart = undefined;
    const state = this.chatState as ChatState;
    // the chat starts with the agent's greeting (no model call); the first message waits for its session
    this.composer.setDisabled(true);
    const sessionId = await greetNewChat({ agent, projectId, readOnly: state.readOnly, chat: this.chat, useCommand: (trigger) => this.useCommand(trigger) });
    if (generation !== this.generation || state !== this.chatState) return;
    this.composer.setDisabled(false);
    if (sessionId) this.sessionStarted(state, sessionId);
    if (start?.agentId === agentId && start.projectId === projectId) void this.send(start.message);
    else this.composer.focus();
  }

  private async openSession(sessionId: string, generation: number): Promise<void> {
    this.sessionList.setCurrent(sessionId);
    try {
      const session = await this.api.getSession(sessionId);
      if (generation !== this.generation) return;
      const agent = this.agentsById.get(session.agent_id);
      // the files link and the sidebar lead to this chat's project
      projectChoice.set(session.project_id);
      const project = await this.projects.find(session.project_id);
      if (generation !== this.generation) return;
      this.showChat({ agentId: session.agent_id, projectId: session.project_id, sessionId, readOnly: project?.role === "viewer" }, agent);
      // a chat in a project with a repository names its branch (docs/repositories.md "A chat's work")
      this.chatChanges.show(session.branch === undefined ? undefined : { sessionId, projectId: session.project_id, branch: session.branch, writable: project?.role !== "viewer" });
      // each line where the chat was compacted goes before the message it names (after them all: past the last)
      const compactionsAt = (index: number) => (session.compactions ?? []).filter((point) => point.message_index === index || (index === session.messages.length && point.message_index > index));
      for (const [index, message] of session.messages.entries()) {
        for (const point of compactionsAt(index)) this.chat.append(compactionLine(point));
        if (message.role === "user") this.chat.addUserMessage(message.content, message.attachments?.length ? attachmentChips(session.project_id, message.attachments) : undefined);
        else this.chat.append(AssistantMessage.completed(agent, message.content, (path) => this.openFile(path)).element);
      }
      for (const point of compactionsAt(session.messages.length)) this.chat.append(compactionLine(point));
      void this.refreshFileCount();
      // watched from here on, so a decision made anywhere, and the turn it resumes, reach this page
      this.approvals.open({ sessionId, projectId: session.project_id, readOnly: project?.role === "viewer" });
      void this.approvals.list();
      if (session.status === "running") await this.followRunning(sessionId, agent);
      else pendingMessage.clear(sessionId);
    } catch (error) {
      if (generation !== this.generation) return;
      this.chatState = undefined;
      this.chat.reset(undefined, "Session", "could not be opened");
      this.chat.append(errorCallout(toApiError(error), this.pickerLink()));
      this.composer.setDisabled(true);
    }
  }

  /** A session that was answering when it was opened: its turn is shown from the start, as it goes on. */
  private async followRunning(sessionId: string, agent: AgentSummary | undefined): Promise<void> {
    const state = this.chatState as ChatState;
    const sent = pendingMessage.get(sessionId);
    if (sent) this.chat.addUserMessage(sent);
    const message = this.chat.addAssistantMessage(agent);
    const refusal = await this.turns.follow(message, (signal) => this.api.watch(sessionId, signal), this.turnHooks(state), { sessionId });
    if (!refusal) return;
    // most often the turn finished in between: the session, opened again, shows its answer
    message.element.remove();
    if (state === this.chatState) showToast(`Could not follow the running answer (${refusal.code}): ${refusal.message}`, "error");
  }

  private showChat(state: ChatState, agent: AgentSummary | undefined): void {
    this.chatState = state;
    this.chat.reset(agent, agent?.name ?? state.agentId, agent?.title ?? "This agent is not installed");
    this.composer.setBusy(false);
    this.composer.setDisabled(false);
    this.composer.setHidden(state.readOnly);
    this.attachments.clear();
    byId("chat-read-only").hidden = !state.readOnly;
    this.showChatActions();
    this.composer.setPlaceholder(`Message ${agent?.name ?? "the agent"}…`);
    document.title = `${agent ? `${agent.name} — ${agent.title}` : "Chat"} · Agent Orchestrator`;
  }

  private async send(text: string): Promise<void> {
    const state = this.chatState;
    if (!state || this.turns.running) return;
    if (this.attachments.uploading) {
      this.composer.setText(text);
      showToast("A file is still uploading: send once it is attached.", "error");
      return;
    }
    const attached = this.attachments.take();
    this.chat.addUserMessage(text, attached.length > 0 ? attachmentChips(state.projectId, attached.map((item) => item.shown)) : undefined);
    const message = this.chat.addAssistantMessage(this.agentsById.get(state.agentId));
    // detached: only Stop cancels a turn; leaving or reloading the page must not undo the agent's work,
    // which the page follows again when the session is reopened
    const body = {
      agent_id: state.agentId,
      message: text,
      detach: true,
      ...(state.sessionId ? { session_id: state.sessionId } : { project_id: state.projectId }),
      ...(attached.length > 0 ? { attachments: attached.map((item) => item.attachment) } : {}),
    };
    const known = { sent: text, ...(state.sessionId ? { sessionId: state.sessionId } : {}) };
    const refusal = await this.turns.follow(message, (signal) => this.api.chat(body, signal), this.turnHooks(state), known);
    if (!refusal) return;
    message.fail(refusal);
    // a refused turn never ran: the text and the files go back into the box, ready to send again
    this.composer.setText(text);
    this.attachments.restore(attached);
  }

  /** A turn that resumed after a decision on one of its calls plays on in the message where it paused. */
  private async followResumed(message: AssistantMessage, open: OpenEvents): Promise<void> {
    const state = this.chatState;
    await this.turns.whenIdle();
    if (!state?.sessionId || state !== this.chatState || !message.element.isConnected) return;
    message.resume();
    const refusal = await this.turns.follow(message, open, this.turnHooks(state), { sessionId: state.sessionId });
    if (refusal) message.fail(refusal);
  }

  /** The overview's one click: a new chat with the step's agent in the project, asking for the workflow by its menu entry. */
  private async startWorkflow(projectId: string, step: NextStep & { agent_id: string }): Promise<void> {
    // without the agent's menu the catalogue's code names the workflow too
    const menu = await this.api.getAgent(step.agent_id).then((agent) => agent.menu, () => []);
    this.workflowStart = { agentId: step.agent_id, projectId, message: workflowMessage(step, menu) };
    projectChoice.set(projectId);
    location.hash = formatHashRoute({ view: "agent", agentId: step.agent_id });
  }

  private turnHooks(state: ChatState): TurnHooks {
    return {
      sessionStarted: (sessionId) => this.sessionStarted(state, sessionId),
      fileSaved: () => void this.refreshFileCount(),
      approvalRequired: (event, message) => {
        if (state === this.chatState) this.approvals.required(event, message);
      },
      approvalDecided: (event) => {
        if (state === this.chatState) this.approvals.decided(event);
      },
      ended: () => {
        void this.refreshSessions();
        if (state === this.chatState) void this.refreshFileCount();
      },
    };
  }

  private sessionStarted(state: ChatState, sessionId: string): void {
    if (state !== this.chatState || state.sessionId === sessionId) return;
    state.sessionId = sessionId;
    this.approvals.open({ sessionId, projectId: state.projectId, readOnly: state.readOnly });
    // replaceState fires no hashchange: the chat stays as it is, and a reload reopens this session
    history.replaceState(null, "", formatHashRoute({ view: "session", sessionId }));
    this.sessionList.setCurrent(sessionId);
    this.chat.setFileCount(0);
    this.showChatActions();
    void this.refreshSessions();
  }

  private async refreshSessions(): Promise<void> {
    const projectId = projectChoice.get();
    try {
      const sessions = await this.api.listSessions(projectId);
      // an answer for a project the user has since left is not this project's list
      if (projectId === projectChoice.get()) this.sessionList.show(sessions, this.agentsById);
    } catch (error) {
      if (projectId === projectChoice.get()) this.sessionList.showError(toApiError(error));
    }
  }

  private async refreshFileCount(): Promise<void> {
    const sessionId = this.chatState?.sessionId;
    if (!sessionId) return;
    try {
      const files = await this.api.listFiles(sessionId);
      if (this.chatState?.sessionId !== sessionId) return;
      this.chat.setFileCount(files.length);
      await this.files.refresh(sessionId);
    } catch {
      // the files button keeps its last count; opening the panel shows the error itself
    }
  }

  private openFile(relativePath: string): void {
    if (this.chatState?.sessionId) void this.files.open(this.chatState.sessionId, relativePath);
  }

  private showChatActions(): void {
    this.chatActions.show(this.chatState?.sessionId !== undefined && !this.chatState.readOnly);
  }

  /** A project was renamed or deleted: what shows it loads again. */
  private projectChanged(): void {
    this.projectFiles.forget();
    void this.refreshSessions();
    void this.route();
  }

  private useCommand(trigger: string): void {
    this.composer.setText(trigger);
    this.composer.focus();
  }

  private pickerLink(): HTMLAnchorElement {
    return h("a", { class: "button", href: formatHashRoute({ view: "picker" }) }, "Choose an agent");
  }
}
