import type { NatsConnection } from "nats";
import type { Logger } from "@agent-orchestrator/shared/runtime";
import type { ActiveTurns } from "./active-turns.js";
import type { OrchestratorConfig } from "../config.js";
import type { SessionStore } from "../sessions/session-store.js";
import type { ProjectStore } from "../projects/project-store.js";
import type { ModelRouter } from "../model/model-router.js";
import type { RegistryLookups } from "../agent/registry-lookups.js";
import type { StartCache } from "../agent/start-cache.js";
import type { ToolCaller } from "../loop/tool-caller.js";
import type { Budgets } from "../spending/budgets.js";
import type { SpendingStore } from "../spending/spending-store.js";
import type { SettingsStore } from "../settings/settings-store.js";
import type { ApprovalStore } from "../approvals/approval-store.js";
import type { ProjectRepositories } from "../projects/project-repositories.js";

/** What every turn of this process shares: the connection, the stores and the services a turn's phases call. */
export interface TurnDeps {
  connection: NatsConnection;
  config: OrchestratorConfig;
  logger: Logger;
  store: SessionStore;
  projects: ProjectStore;
  /** the agent and its rules, kept per agent until the registry changes */
  registry: RegistryLookups;
  /** the agents' starts, kept until a file they read changes */
  starts: StartCache;
  tools: ToolCaller;
  /** the model routes: each turn is given the one for its agent, module and project (MODEL_NOT_CONFIGURED when none) */
  models: ModelRouter;
  /** the turns running here, so a cancel reaches them */
  active: ActiveTurns;
  subjectPrefix: string;
  /** adds a run-queue slot while a subagent runs (RunQueue.lendSlot) */
  lendSlot?: () => () => void;
  /** what turns spent (docs/models.md "Cost totals"); without it nothing is counted */
  spending?: SpendingStore;
  /** the projects' and users' budgets; without them no turn is refused for its cost */
  budgets?: Budgets;
  /** BMAD's settings of projects and members (docs/settings.md); without them the install's answers apply to everyone */
  settings?: SettingsStore;
  /**
   * tool calls waiting for a member's decision (docs/approvals.md); without it no call asks: every one runs or is
   * denied by the project's policies
   */
  approvals?: ApprovalStore;
  /** which projects have a git repository, so their turns are offered `run_command`; without it none is */
  repositories?: ProjectRepositories;
}
